import { describe, expect, it } from 'vitest';
import { MAX_DASHBOARD_PLUGINS } from '#shared/dashboards/dashboards.ts';
import { putItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId, nodeIdOf } from '#shared/ids.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { forbidden, id, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newPlugin } from '#test/support/plugins.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { newDashboard, newMember, newWorkspace } from '#test/support/workspace.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
type User = Awaited<ReturnType<typeof newUser>>;

const UNKNOWN_DASHBOARD = 'dsh0000000000000000';
const UNKNOWN_INSTALL = 'pli0000000000000000';

/** A plugin of the user's, for dashboards unless told otherwise; answers its id. */
const dashboardPlugin = async (user: User, positions = ['dashboard'], name = 'Chart') =>
  (await newPlugin(user, { positions, name })).id;
const install = (ws: Ws, dashboardId: string, body: Record<string, unknown>, token = ws.owner.auth) =>
  call('install-dashboard-plugin', { token, params: { baseId: ws.baseId, dashboardId }, body });
const getOne = (ws: Ws, dashboardId: string, token = ws.owner.auth) =>
  call('get-dashboard', { token, params: { baseId: ws.baseId, dashboardId } });
const renameInstall = (
  ws: Ws,
  dashboardId: string,
  pluginInstallId: string,
  body: unknown,
  token = ws.owner.auth,
) =>
  call('rename-dashboard-plugin', {
    token,
    params: { baseId: ws.baseId, dashboardId, pluginInstallId },
    body,
  });

describe('dashboards', () => {
  it('creates a dashboard (201 {id, name}) with its node, lists and gets it', async () => {
    const ws = await newWorkspace();
    const res = await call('create-dashboard', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { name: '  Sales  ' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: id('dsh'), name: 'Sales' });
    const other = await newDashboard(ws, 'Ops');

    const nodes = await call('list-nodes', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(nodes.body.map((n: { id: string; resourceType: string }) => [n.id, n.resourceType])).toEqual([
      [nodeIdOf(res.body.id), 'dashboard'],
      [nodeIdOf(other), 'dashboard'],
    ]);
    const list = await call('list-dashboards', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(list.body).toEqual([
      { id: res.body.id, name: 'Sales' },
      { id: other, name: 'Ops' },
    ]);
    expect((await getOne(ws, res.body.id)).body).toEqual({
      id: res.body.id,
      name: 'Sales',
      layout: [],
      pluginMap: {},
    });
  });

  it('lists dashboards in tree order', async () => {
    const ws = await newWorkspace();
    const a = await newDashboard(ws, 'A');
    const b = await newDashboard(ws, 'B');
    await call('move-node', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, nodeId: nodeIdOf(b) },
      body: { anchorId: nodeIdOf(a), position: 'before' },
    });
    const list = await call('list-dashboards', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(list.body.map((d: { name: string }) => d.name)).toEqual(['B', 'A']);
  });

  it('renames a dashboard; unknown dashboards are 404 and names are validated', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const rename = (dashboardId: string, body: unknown) =>
      call('rename-dashboard', { token: ws.owner.auth, params: { baseId: ws.baseId, dashboardId }, body });

    expect(await rename(d, { name: ' New ' })).toMatchObject({ status: 200, body: { id: d, name: 'New' } });
    expect((await getOne(ws, d)).body.name).toBe('New');
    expect(await rename(UNKNOWN_DASHBOARD, { name: 'X' })).toMatchObject(
      notFound(`Dashboard ${UNKNOWN_DASHBOARD} not found`),
    );
    expect(await rename(d, { name: '' })).toMatchObject(invalid(/^Invalid body.name/));
    expect(await rename(d, {})).toMatchObject(invalid(/^Invalid body.name/));
    expect(await getOne(ws, UNKNOWN_DASHBOARD)).toMatchObject(
      notFound(`Dashboard ${UNKNOWN_DASHBOARD} not found`),
    );
    expect(await getOne(ws, 'tbl123')).toMatchObject(invalid(/^Invalid path.dashboardId/));
  });

  it('refuses a dashboard without a valid name', async () => {
    const ws = await newWorkspace();
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(256) }, { name: 3 }])
      expect(
        await call('create-dashboard', { token: ws.owner.auth, params: { baseId: ws.baseId }, body }),
      ).toMatchObject(invalid(/^Invalid body.name/));
  });

  it('deletes a dashboard with its installs and its node', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const plugin = await dashboardPlugin(ws.owner);
    await install(ws, d, { pluginId: plugin });
    await install(ws, d, { pluginId: plugin });

    const res = await call('delete-dashboard', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId: d },
    });
    expect(res.status).toBe(200);
    expect(await getOne(ws, d)).toMatchObject(notFound(`Dashboard ${d} not found`));
    expect(await itemsMentioning(d.slice(3))).toEqual([]);
    expect(
      await call('delete-dashboard', { token: ws.owner.auth, params: { baseId: ws.baseId, dashboardId: d } }),
    ).toMatchObject(notFound(`Dashboard ${d} not found`));
  });

  it('lets a viewer read dashboards and only a creator or owner change them', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const viewer = await newMember(ws, 'viewer');
    const editor = await newMember(ws, 'editor');
    const creator = await newMember(ws, 'creator');

    expect((await getOne(ws, d, viewer.auth)).status).toBe(200);
    expect(
      await call('create-dashboard', {
        token: editor.auth,
        params: { baseId: ws.baseId },
        body: { name: 'E' },
      }),
    ).toMatchObject(forbidden(`not allowed to operate base|update on ${ws.baseId}`));
    expect(
      (
        await call('rename-dashboard', {
          token: creator.auth,
          params: { baseId: ws.baseId, dashboardId: d },
          body: { name: 'C' },
        })
      ).status,
    ).toBe(200);
  });

  it('answers 404 for a dashboard of another base', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const base2 = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId } });
    const res = await call('get-dashboard', {
      token: ws.owner.auth,
      params: { baseId: base2.body.id, dashboardId: d },
    });
    expect(res).toMatchObject(notFound(`Dashboard ${d} not found`));
  });
});

describe('a base deleted for good', () => {
  it('leaves no dashboard, install or node behind', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const pli = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;
    const folder = await call('create-node', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { resourceType: 'folder', name: 'F' },
    });
    const t = await call('create-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { records: [] },
    });
    expect([folder.status, t.status]).toEqual([201, 201]);

    const res = await call('delete-base-permanently', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
    });
    expect(res.status).toBe(200);
    await drainPurges();
    expect(await itemsMentioning(ws.baseId, d.slice(3), pli, folder.body.id, t.body.id.slice(3))).toEqual([]);
  });
});

describe('dashboard plugin installs', () => {
  it('installs plugins, appending a 2×2 box below the last one', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner, ['dashboard', 'contextMenu'], 'Chart');

    const first = await install(ws, d, { pluginId: chart });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: d, pluginId: chart, pluginInstallId: id('pli'), name: 'Chart' });
    const second = await install(ws, d, { pluginId: chart, name: ' Sales chart ' });
    expect(second.body).toMatchObject({ id: d, pluginId: chart, name: 'Sales chart' });

    const res = await getOne(ws, d);
    expect(res.body).toEqual({
      id: d,
      name: 'Board',
      layout: [
        { pluginInstallId: first.body.pluginInstallId, x: 0, y: 0, w: 2, h: 2 },
        { pluginInstallId: second.body.pluginInstallId, x: 0, y: 2, w: 2, h: 2 },
      ],
      pluginMap: {
        [first.body.pluginInstallId]: {
          id: chart,
          pluginInstallId: first.body.pluginInstallId,
          name: 'Chart',
          positionId: d,
          position: 'dashboard',
        },
        [second.body.pluginInstallId]: {
          id: chart,
          pluginInstallId: second.body.pluginInstallId,
          name: 'Sales chart',
          positionId: d,
          position: 'dashboard',
        },
      },
    });
  });

  it('places two installs racing in different boxes', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const answers = await Promise.all([1, 2, 3].map(() => install(ws, d, { pluginId: chart })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    const layout = (await getOne(ws, d)).body.layout as { y: number }[];
    expect(layout.map((b) => b.y)).toEqual([0, 2, 4]);
  });

  it('removes an install and its box; the next install goes below the remaining boxes', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const a = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;
    const b = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;

    const res = await call('remove-dashboard-plugin', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId: d, pluginInstallId: b },
    });
    expect(res.status).toBe(200);
    const after = await getOne(ws, d);
    expect(after.body.layout).toEqual([{ pluginInstallId: a, x: 0, y: 0, w: 2, h: 2 }]);
    expect(Object.keys(after.body.pluginMap)).toEqual([a]);
    const c = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;
    expect((await getOne(ws, d)).body.layout[1]).toEqual({ pluginInstallId: c, x: 0, y: 2, w: 2, h: 2 });

    expect(
      await call('remove-dashboard-plugin', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId, dashboardId: d, pluginInstallId: b },
      }),
    ).toMatchObject(notFound(`Plugin install ${b} not found in this dashboard`));
  });

  it('refuses a plugin that is unknown (404), someone else’s while developing (403), or not for dashboards (400)', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const stranger = await newUser();
    const theirs = await dashboardPlugin(stranger);
    const menuOnly = await dashboardPlugin(ws.owner, ['contextMenu']);
    const UNKNOWN = 'plg0000000000000000';

    expect(await install(ws, d, { pluginId: UNKNOWN })).toMatchObject(
      notFound(`Plugin ${UNKNOWN} not found`),
    );
    expect(await install(ws, d, { pluginId: theirs })).toMatchObject(forbidden(/still developing/));
    expect(await install(ws, d, { pluginId: menuOnly })).toMatchObject(
      invalid(`Plugin ${menuOnly} cannot be installed into dashboard`),
    );
    expect(await install(ws, d, { pluginId: 'tbl1' })).toMatchObject(notFound('Plugin tbl1 not found'));
    expect(await install(ws, d, { pluginId: 'x'.repeat(101) })).toMatchObject(
      invalid(/^Invalid body.pluginId/),
    );
    expect(await install(ws, d, {})).toMatchObject(invalid(/^Invalid body.pluginId/));
    expect((await getOne(ws, d)).body.layout).toEqual([]);
  });

  it('installs a published plugin of someone else', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const stranger = await newUser();
    const theirs = await dashboardPlugin(stranger);
    const admin = await newUser({ isAdmin: true });
    await call('publish-plugin', { token: admin.auth, params: { pluginId: theirs } });
    expect((await install(ws, d, { pluginId: theirs })).status).toBe(201);
  });

  it('answers 404 for an install on an unknown dashboard', async () => {
    const ws = await newWorkspace();
    const chart = await dashboardPlugin(ws.owner);
    expect(await install(ws, UNKNOWN_DASHBOARD, { pluginId: chart })).toMatchObject(
      notFound(`Dashboard ${UNKNOWN_DASHBOARD} not found`),
    );
    expect(await itemsMentioning(UNKNOWN_DASHBOARD)).toEqual([]);
  });

  it(`holds at most ${MAX_DASHBOARD_PLUGINS} plugins`, async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    // stage a full dashboard directly (50 calls would only slow the test)
    for (let i = 0; i < MAX_DASHBOARD_PLUGINS; i++) {
      const pli = newId('pluginInstall');
      await putItem({
        ...keys.dashboardPlugin(ws.baseId, d, pli),
        type: 'dashboardPlugin',
        id: pli,
        dashboardId: d,
        pluginId: chart,
        name: 'C',
        x: 0,
        y: i * 2,
        w: 2,
        h: 2,
        createdTime: new Date().toISOString(),
      });
    }
    expect(await install(ws, d, { pluginId: chart })).toMatchObject(
      invalid(`A dashboard holds at most ${MAX_DASHBOARD_PLUGINS} plugins`),
    );
    // and the whole dashboard still goes in one delete
    expect(
      (
        await call('delete-dashboard', {
          token: ws.owner.auth,
          params: { baseId: ws.baseId, dashboardId: d },
        })
      ).status,
    ).toBe(200);
    expect(await itemsMentioning(d.slice(3))).toEqual([]);
  });

  it('needs base|update to install or remove', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const editor = await newMember(ws, 'editor');
    const chart = await dashboardPlugin(editor);
    expect(await install(ws, d, { pluginId: chart }, editor.auth)).toMatchObject(
      forbidden(`not allowed to operate base|update on ${ws.baseId}`),
    );
  });
});

describe('rename a dashboard plugin install: PATCH …/dashboard/{dashboardId}/plugin/{pluginInstallId}/rename', () => {
  it('renames an install and answers {id: <plugin id>, pluginInstallId, name}', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const pli = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;

    const res = await renameInstall(ws, d, pli, { name: '  Revenue  ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: chart, pluginInstallId: pli, name: 'Revenue' });
    const after = await getOne(ws, d);
    expect(after.body.pluginMap[pli].name).toBe('Revenue');
    expect(after.body.layout).toEqual([{ pluginInstallId: pli, x: 0, y: 0, w: 2, h: 2 }]);
  });

  it('answers 404 for an unknown install, an install of another dashboard, an unknown dashboard', async () => {
    const ws = await newWorkspace();
    const d1 = await newDashboard(ws, 'One');
    const d2 = await newDashboard(ws, 'Two');
    const chart = await dashboardPlugin(ws.owner);
    const pli = (await install(ws, d1, { pluginId: chart })).body.pluginInstallId;
    const message = (p: string) => `Plugin install ${p} not found in this dashboard`;

    expect(await renameInstall(ws, d1, UNKNOWN_INSTALL, { name: 'X' })).toMatchObject(
      notFound(message(UNKNOWN_INSTALL)),
    );
    expect(await renameInstall(ws, d2, pli, { name: 'X' })).toMatchObject(notFound(message(pli)));
    expect(await renameInstall(ws, UNKNOWN_DASHBOARD, pli, { name: 'X' })).toMatchObject(
      notFound(message(pli)),
    );
    // nothing was created by the failed updates
    expect(await itemsMentioning(UNKNOWN_INSTALL)).toEqual([]);
    expect((await itemsMentioning(pli)).map((i) => i.sk)).toEqual([`DASH#${d1}#PLI#${pli}`]);
  });

  it('validates the name and the ids (400)', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const pli = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;

    for (const body of [{}, { name: '' }, { name: '  ' }, { name: 'x'.repeat(256) }, { name: null }])
      expect(await renameInstall(ws, d, pli, body)).toMatchObject(invalid(/^Invalid body.name/));
    expect(await renameInstall(ws, d, 'plg0000000000000000', { name: 'X' })).toMatchObject(
      invalid(/^Invalid path.pluginInstallId/),
    );
    expect((await getOne(ws, d)).body.pluginMap[pli].name).toBe('Chart');
  });

  it('needs base|update', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws);
    const chart = await dashboardPlugin(ws.owner);
    const pli = (await install(ws, d, { pluginId: chart })).body.pluginInstallId;
    const editor = await newMember(ws, 'editor');
    expect(await renameInstall(ws, d, pli, { name: 'X' }, editor.auth)).toMatchObject(
      forbidden(`not allowed to operate base|update on ${ws.baseId}`),
    );
  });
});
