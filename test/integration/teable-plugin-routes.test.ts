import { describe, expect, it } from 'vitest';
import { forbidden, ISO, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newPlugin, publishPlugin } from '#test/support/plugins.ts';
import { newDashboard, newMember, newTable, newWorkspace } from '#test/support/workspace.ts';

/**
 * The dashboard, plugin and context-menu routes Teable's client calls (teable-routes.md §2
 * "Dashboard and plugins", §3 plugins and the context-menu list).
 */

type User = Awaited<ReturnType<typeof newUser>>;
type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const UNKNOWN_PLUGIN = 'plg0000000000000000';
const UNKNOWN_INSTALL = 'pli0000000000000000';
const UNKNOWN_DASHBOARD = 'dsh0000000000000000';
const LOGO = 'https://plugins.example.test/logo.png';

/** A dashboard with `n` installs of a fresh plugin, in install order. */
const dashboardWith = async (n: number) => {
  const ws = await newWorkspace();
  const dashboardId = await newDashboard(ws);
  const plugin = await newPlugin(ws.owner, { positions: ['dashboard'] });
  const installIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call('install-dashboard-plugin', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId },
      body: { pluginId: plugin.id },
    });
    expect(res.status).toBe(201);
    installIds.push(res.body.pluginInstallId);
  }
  return { ...ws, dashboardId, pluginId: plugin.id, installIds };
};

const onDashboard = (ws: Ws & { dashboardId: string }, pluginInstallId?: string) => ({
  params: {
    baseId: ws.baseId,
    dashboardId: ws.dashboardId,
    ...(pluginInstallId ? { pluginInstallId } : {}),
  },
});

/** A table whose menu holds one install of a fresh plugin with a url and a context-menu config. */
const menuWithOne = async () => {
  const ws = await newTable();
  const plugin = await call('create-plugin', {
    token: ws.owner.auth,
    body: {
      name: 'Translate',
      logo: LOGO,
      positions: ['contextMenu'],
      url: 'https://plugins.example.test/translate',
      config: { contextMenu: { width: 320, height: '50%', frozenDrag: true } },
    },
  });
  expect(plugin.status).toBe(201);
  const install = await call('install-context-menu-plugin', {
    token: ws.owner.auth,
    params: { tableId: ws.tableId },
    body: { pluginId: plugin.body.id },
  });
  expect(install.status).toBe(201);
  return { ...ws, pluginId: plugin.body.id as string, installId: install.body.pluginInstallId as string };
};

const onEntry = (ws: { tableId: string }, pluginInstallId: string) => ({
  params: { tableId: ws.tableId, pluginInstallId },
});

describe('PATCH /base/{b}/dashboard/{d}/layout', () => {
  it('sets the boxes it lists, keeps the others, and answers the whole layout top to bottom', async () => {
    const ws = await dashboardWith(3);
    const [a, b, c] = ws.installIds as [string, string, string];
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      ...onDashboard(ws),
      body: {
        layout: [
          { pluginInstallId: a, x: 4, y: 6, w: 3, h: 2 },
          { pluginInstallId: c, x: 0, y: 0, w: 6, h: 1 },
        ],
      },
    });
    const layout = [
      { pluginInstallId: c, x: 0, y: 0, w: 6, h: 1 },
      { pluginInstallId: b, x: 0, y: 2, w: 2, h: 2 },
      { pluginInstallId: a, x: 4, y: 6, w: 3, h: 2 },
    ];
    expect(res).toMatchObject({ status: 200, body: { id: ws.dashboardId, layout } });
    expect(Object.keys(res.body).sort()).toEqual(['id', 'layout']);
    const got = await call('get-dashboard', { token: ws.owner.auth, ...onDashboard(ws) });
    expect(got.body.layout).toEqual(layout);
  });

  it('accepts an empty layout as no change', async () => {
    const ws = await dashboardWith(1);
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      ...onDashboard(ws),
      body: { layout: [] },
    });
    expect(res).toMatchObject({
      status: 200,
      body: { layout: [{ pluginInstallId: ws.installIds[0], x: 0, y: 0, w: 2, h: 2 }] },
    });
  });

  it('leaves out boxes of installs not on this dashboard, whatever their id text (Teable takes any); sets the others', async () => {
    const ws = await dashboardWith(1);
    const other = await dashboardWith(1);
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      ...onDashboard(ws),
      body: {
        layout: [
          { pluginInstallId: ws.installIds[0], x: 5, y: 5, w: 1, h: 1 },
          { pluginInstallId: other.installIds[0], x: 0, y: 0, w: 1, h: 1 },
          { pluginInstallId: 'not-an-install-id', x: 1, y: 1, w: 1, h: 1 },
        ],
      },
    });
    const layout = [{ pluginInstallId: ws.installIds[0], x: 5, y: 5, w: 1, h: 1 }];
    expect(res).toMatchObject({ status: 200, body: { id: ws.dashboardId, layout } });
    const got = await call('get-dashboard', { token: ws.owner.auth, ...onDashboard(ws) });
    expect(got.body.layout).toEqual(layout);
    const theirs = await call('get-dashboard', { token: other.owner.auth, ...onDashboard(other) });
    expect(theirs.body.layout).toEqual([{ pluginInstallId: other.installIds[0], x: 0, y: 0, w: 2, h: 2 }]);
  });

  it('answers 404 for an unknown dashboard', async () => {
    const ws = await dashboardWith(0);
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId: UNKNOWN_DASHBOARD },
      body: { layout: [] },
    });
    expect(res).toMatchObject(notFound(`Dashboard ${UNKNOWN_DASHBOARD} not found`));
  });

  it.each([
    ['no layout', {}, /^Invalid body\.layout/],
    ['a negative x', { layout: [{ x: -1, y: 0, w: 1, h: 1 }] }, /^Invalid body\.layout\.0\.x/],
    ['a zero width', { layout: [{ x: 0, y: 0, w: 0, h: 1 }] }, /^Invalid body\.layout\.0\.w/],
    ['a fractional height', { layout: [{ x: 0, y: 0, w: 1, h: 1.5 }] }, /^Invalid body\.layout\.0\.h/],
    ['a text y', { layout: [{ x: 0, y: '1', w: 1, h: 1 }] }, /^Invalid body\.layout\.0\.y/],
    [
      'an empty install id',
      { layout: [{ pluginInstallId: '', x: 0, y: 0, w: 1, h: 1 }] },
      /^Invalid body\.layout\.0\.pluginInstallId/,
    ],
  ])('rejects %s with a 400', async (_, body, message) => {
    const ws = await dashboardWith(1);
    const withId = {
      ...body,
      ...('layout' in body
        ? { layout: body.layout.map((box) => ({ pluginInstallId: ws.installIds[0], ...box })) }
        : {}),
    };
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      ...onDashboard(ws),
      body: withId,
    });
    expect(res).toMatchObject(invalid(message));
  });

  it('rejects an install listed twice with a 400', async () => {
    const ws = await dashboardWith(1);
    const box = { pluginInstallId: ws.installIds[0], x: 0, y: 0, w: 1, h: 1 };
    const res = await call('update-dashboard-layout', {
      token: ws.owner.auth,
      ...onDashboard(ws),
      body: { layout: [box, box] },
    });
    expect(res).toMatchObject(invalid(`Plugin install ${ws.installIds[0]} is listed twice in the layout`));
  });

  it('needs base|update: a viewer is refused (403)', async () => {
    const ws = await dashboardWith(1);
    const viewer = await newMember(ws, 'viewer');
    const res = await call('update-dashboard-layout', {
      token: viewer.auth,
      ...onDashboard(ws),
      body: { layout: [] },
    });
    expect(res).toMatchObject(forbidden(/^not allowed to operate base\|update on bse/));
  });
});

describe('GET and PATCH …/dashboard/{d}/plugin/{i}(/update-storage)', () => {
  it('answers an install with {} as storage until one is stored, then the stored JSON', async () => {
    const ws = await dashboardWith(1);
    const installId = ws.installIds[0] as string;
    expect(
      await call('get-dashboard-plugin', { token: ws.owner.auth, ...onDashboard(ws, installId) }),
    ).toEqual(
      expect.objectContaining({
        status: 200,
        body: {
          pluginId: ws.pluginId,
          pluginInstallId: installId,
          baseId: ws.baseId,
          name: 'Chart',
          storage: {},
        },
      }),
    );
    const storage = { query: { filter: [1, 2, { deep: null }] }, '': 'empty key', title: 'Sales' };
    const updated = await call('update-dashboard-plugin-storage', {
      token: ws.owner.auth,
      ...onDashboard(ws, installId),
      body: { storage },
    });
    expect(updated).toMatchObject({ status: 200 });
    expect(updated.body).toEqual({
      baseId: ws.baseId,
      dashboardId: ws.dashboardId,
      pluginInstallId: installId,
      storage,
    });
    const got = await call('get-dashboard-plugin', { token: ws.owner.auth, ...onDashboard(ws, installId) });
    expect(got.body.storage).toEqual(storage);
  });

  it('stores {} when storage is left out', async () => {
    const ws = await dashboardWith(1);
    const installId = ws.installIds[0] as string;
    const on = { token: ws.owner.auth, ...onDashboard(ws, installId) };
    await call('update-dashboard-plugin-storage', { ...on, body: { storage: { a: 1 } } });
    const cleared = await call('update-dashboard-plugin-storage', { ...on, body: {} });
    expect(cleared).toMatchObject({ status: 200, body: { storage: {} } });
    expect((await call('get-dashboard-plugin', on)).body.storage).toEqual({});
  });

  it.each([
    ['a list', []],
    ['a text', 'x'],
    ['null', null],
    ['over 100,000 characters', { big: 'x'.repeat(100_000) }],
  ])('rejects storage that is %s with a 400', async (_, storage) => {
    const ws = await dashboardWith(1);
    const res = await call('update-dashboard-plugin-storage', {
      token: ws.owner.auth,
      ...onDashboard(ws, ws.installIds[0]),
      body: { storage },
    });
    expect(res).toMatchObject(invalid(/^Invalid body\.storage/));
  });

  it('answers 404 for an install of another dashboard or an unknown one', async () => {
    const ws = await dashboardWith(1);
    const other = await dashboardWith(1);
    const foreign = other.installIds[0] as string;
    for (const installId of [foreign, UNKNOWN_INSTALL]) {
      const missing = notFound(`Plugin install ${installId} not found in this dashboard`);
      expect(
        await call('get-dashboard-plugin', { token: ws.owner.auth, ...onDashboard(ws, installId) }),
      ).toMatchObject(missing);
      expect(
        await call('update-dashboard-plugin-storage', {
          token: ws.owner.auth,
          ...onDashboard(ws, installId),
          body: { storage: {} },
        }),
      ).toMatchObject(missing);
    }
  });

  it('lets a viewer read an install but not store (403)', async () => {
    const ws = await dashboardWith(1);
    const viewer = await newMember(ws, 'viewer');
    const on = { token: viewer.auth, ...onDashboard(ws, ws.installIds[0]) };
    expect((await call('get-dashboard-plugin', on)).status).toBe(200);
    expect(await call('update-dashboard-plugin-storage', { ...on, body: { storage: {} } })).toMatchObject(
      forbidden(/^not allowed to operate base\|update on bse/),
    );
  });
});

describe('PUT /plugin/{p}', () => {
  it('replaces every field it is given, removes the optional ones it is not, keeps the logo', async () => {
    const user = await newUser();
    const created = await call('create-plugin', {
      token: user.auth,
      body: {
        name: 'Chart',
        logo: LOGO,
        description: 'Old',
        detailDesc: 'Old detail',
        positions: ['dashboard'],
        url: 'https://plugins.example.test/old',
        helpUrl: 'https://plugins.example.test/help',
      },
    });
    const pluginId = created.body.id as string;
    const res = await call('update-plugin', {
      token: user.auth,
      params: { pluginId },
      body: {
        name: '  Chart 2 ',
        positions: ['view', 'panel', 'contextMenu'],
        detailDesc: 'New detail',
        i18n: { en: { title: 'Chart' }, zh: { title: '图表', nested: { hint: '提示' } } },
        config: { contextMenu: { x: 10, y: '20px' }, view: null },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: pluginId,
      name: 'Chart 2',
      detailDesc: 'New detail',
      logo: LOGO,
      positions: ['view', 'panel', 'contextMenu'],
      i18n: { en: { title: 'Chart' }, zh: { title: '图表', nested: { hint: '提示' } } },
      config: { contextMenu: { x: 10, y: '20px' }, view: null },
      secret: expect.stringMatching(/^\w{4}\*{32}\w{4}$/),
      status: 'developing',
      createdBy: user.id,
      createdTime: created.body.createdTime,
      lastModifiedTime: expect.stringMatching(ISO),
    });
    expect((await call('get-plugin', { token: user.auth, params: { pluginId } })).body).toEqual(res.body);
    const logo = await call('update-plugin', {
      token: user.auth,
      params: { pluginId },
      body: { name: 'Chart 2', positions: ['view'], logo: '/logos/new.png' },
    });
    expect(logo.body).toMatchObject({ logo: '/logos/new.png', positions: ['view'] });
    expect(logo.body).not.toHaveProperty('i18n');
  });

  it('updates a published plugin in the listings too, its status kept', async () => {
    const user = await newUser();
    const plugin = await newPlugin(user);
    await publishPlugin(plugin.id);
    const res = await call('update-plugin', {
      token: user.auth,
      params: { pluginId: plugin.id },
      body: { name: 'Renamed', positions: ['dashboard'] },
    });
    expect(res).toMatchObject({ status: 200, body: { name: 'Renamed', status: 'published' } });
    const other = await newUser();
    const listed = (await call('list-plugins', { token: other.auth })).body.find(
      (p: { id: string }) => p.id === plugin.id,
    );
    expect(listed).toEqual(res.body);
    const center = await call('list-plugin-center', { token: other.auth, query: `ids[]=${plugin.id}` });
    expect(center.body).toMatchObject([{ id: plugin.id, name: 'Renamed' }]);
  });

  it('refuses anyone but the creator: 403 on a published plugin, 404 on an unpublished one', async () => {
    const author = await newUser();
    const other = await newUser();
    const admin = await newUser({ isAdmin: true });
    const hidden = await newPlugin(author);
    const shown = await newPlugin(author);
    await publishPlugin(shown.id);
    const body = { name: 'X', positions: ['dashboard'] };
    expect(
      await call('update-plugin', { token: other.auth, params: { pluginId: hidden.id }, body }),
    ).toMatchObject(notFound(`Plugin ${hidden.id} not found`));
    expect(
      await call('update-plugin', { token: other.auth, params: { pluginId: shown.id }, body }),
    ).toMatchObject(forbidden(`only the creator of plugin ${shown.id} may update it`));
    expect(
      await call('update-plugin', { token: admin.auth, params: { pluginId: shown.id }, body }),
    ).toMatchObject(forbidden(`only the creator of plugin ${shown.id} may update it`));
    expect(
      await call('update-plugin', { token: author.auth, params: { pluginId: UNKNOWN_PLUGIN }, body }),
    ).toMatchObject(notFound(`Plugin ${UNKNOWN_PLUGIN} not found`));
  });

  it.each([
    ['no positions', { name: 'P' }, /^Invalid body\.positions/],
    ['an unknown position', { name: 'P', positions: ['sidebar'] }, /^Invalid body\.positions\.0/],
    ['an empty logo', { name: 'P', positions: ['view'], logo: '' }, /^Invalid body\.logo/],
    [
      'a help url that is not one',
      { name: 'P', positions: ['view'], helpUrl: 'x' },
      /^Invalid body\.helpUrl/,
    ],
    [
      'i18n that is not texts',
      { name: 'P', positions: ['view'], i18n: { en: { a: 1 } } },
      /^Invalid body\.i18n/,
    ],
    [
      'a config of an unknown position',
      { name: 'P', positions: ['view'], config: { sidebar: null } },
      /config/,
    ],
    [
      'a context-menu config of another shape',
      { name: 'P', positions: ['view'], config: { contextMenu: { width: true } } },
      /^Invalid body\.config\.contextMenu\.width/,
    ],
  ])('rejects %s with a 400 and changes nothing', async (_, body, message) => {
    const user = await newUser();
    const plugin = await newPlugin(user);
    expect(
      await call('update-plugin', { token: user.auth, params: { pluginId: plugin.id }, body }),
    ).toMatchObject(invalid(message));
    expect((await call('get-plugin', { token: user.auth, params: { pluginId: plugin.id } })).body.name).toBe(
      'Chart',
    );
  });
});

describe('GET /plugin/center/list', () => {
  it('lists published plugins only, with their creators, filtered by position and id', async () => {
    const author = await newUser({ name: 'Ada Author' });
    const reader = await newUser();
    const board = await newPlugin(author, { name: 'Board', positions: ['dashboard'] });
    const menu = await newPlugin(author, { name: 'Menu', positions: ['contextMenu', 'view'] });
    const draft = await newPlugin(author, { name: 'Draft', positions: ['dashboard'] });
    await publishPlugin(board.id);
    await publishPlugin(menu.id);
    const ids = `ids[]=${board.id}&ids[]=${menu.id}&ids[]=${draft.id}`;

    const all = await call('list-plugin-center', { token: reader.auth, query: ids });
    expect(all.status).toBe(200);
    expect(all.body.map((p: { id: string }) => p.id)).toEqual([board.id, menu.id]);
    expect(all.body[0]).toEqual({
      id: board.id,
      name: 'Board',
      logo: 'https://plugins.example.test/logo.png',
      status: 'published',
      createdTime: expect.stringMatching(ISO),
      lastModifiedTime: expect.stringMatching(ISO),
      createdBy: { id: author.id, name: 'Ada Author', email: expect.stringContaining('@'), avatar: null },
    });

    const positions = encodeURIComponent(JSON.stringify(['view', 'panel']));
    const byPosition = await call('list-plugin-center', {
      token: reader.auth,
      query: `${ids}&positions=${positions}`,
    });
    expect(byPosition.body.map((p: { id: string }) => p.id)).toEqual([menu.id]);
  });

  it.each([
    ['positions that are not JSON', 'positions=dashboard', /^Invalid query\.positions/],
    ['an unknown position', `positions=${encodeURIComponent('["sidebar"]')}`, /^Invalid query\.positions\.0/],
    ['no position', `positions=${encodeURIComponent('[]')}`, /^Invalid query\.positions/],
    ['an id that is not a plugin id', 'ids[]=tbl0000000000000000', /^Invalid query\.ids\.0/],
  ])('rejects %s with a 400', async (_, query, message) => {
    const user = await newUser();
    expect(await call('list-plugin-center', { token: user.auth, query })).toMatchObject(invalid(message));
  });
});

describe('PATCH /plugin/{p}/submit, unpublish and /admin/plugin/{p}/unpublish', () => {
  const status = async (user: User, pluginId: string) =>
    (await call('get-plugin', { token: user.auth, params: { pluginId } })).body.status;

  it('submits a developing plugin for review; submitting again is a 400; an admin then publishes it', async () => {
    const user = await newUser();
    const plugin = await newPlugin(user);
    const res = await call('submit-plugin', { token: user.auth, params: { pluginId: plugin.id } });
    expect(res).toEqual(expect.objectContaining({ status: 200, body: undefined }));
    expect(await status(user, plugin.id)).toBe('reviewing');
    expect(await call('submit-plugin', { token: user.auth, params: { pluginId: plugin.id } })).toMatchObject(
      invalid(`Plugin ${plugin.id} is reviewing: only a developing plugin can be submitted`),
    );
    // Reviewing plugins stay out of others' sight.
    const other = await newUser();
    expect((await call('get-plugin', { token: other.auth, params: { pluginId: plugin.id } })).status).toBe(
      404,
    );
    await publishPlugin(plugin.id);
    expect(await status(user, plugin.id)).toBe('published');
    expect(await call('submit-plugin', { token: user.auth, params: { pluginId: plugin.id } })).toMatchObject(
      invalid(`Plugin ${plugin.id} is published: only a developing plugin can be submitted`),
    );
  });

  it('lets only the creator submit (404 unseen, 403 published) and answers 404 for an unknown plugin', async () => {
    const author = await newUser();
    const other = await newUser();
    const plugin = await newPlugin(author);
    expect(await call('submit-plugin', { token: other.auth, params: { pluginId: plugin.id } })).toMatchObject(
      notFound(`Plugin ${plugin.id} not found`),
    );
    await publishPlugin(plugin.id);
    expect(await call('submit-plugin', { token: other.auth, params: { pluginId: plugin.id } })).toMatchObject(
      forbidden(`only the creator of plugin ${plugin.id} may submit it`),
    );
    expect(
      await call('submit-plugin', { token: author.auth, params: { pluginId: UNKNOWN_PLUGIN } }),
    ).toMatchObject(notFound(`Plugin ${UNKNOWN_PLUGIN} not found`));
  });

  it('unpublishes (creator): back to developing, out of the center, installs kept', async () => {
    const ws = await newTable();
    const plugin = await newPlugin(ws.owner, { positions: ['contextMenu'] });
    await publishPlugin(plugin.id);
    const install = await call('install-context-menu-plugin', {
      token: ws.owner.auth,
      params: { tableId: ws.tableId },
      body: { pluginId: plugin.id },
    });
    const res = await call('unpublish-plugin', { token: ws.owner.auth, params: { pluginId: plugin.id } });
    expect(res).toEqual(expect.objectContaining({ status: 200, body: undefined }));
    expect(await status(ws.owner, plugin.id)).toBe('developing');
    const center = await call('list-plugin-center', { token: ws.owner.auth, query: `ids[]=${plugin.id}` });
    expect(center.body).toEqual([]);
    const other = await newUser();
    expect((await call('get-plugin', { token: other.auth, params: { pluginId: plugin.id } })).status).toBe(
      404,
    );
    const menu = await call('list-context-menu-plugins', {
      token: ws.owner.auth,
      params: { tableId: ws.tableId },
    });
    expect(menu.body.map((e: { pluginInstallId: string }) => e.pluginInstallId)).toEqual([
      install.body.pluginInstallId,
    ]);
    // Unpublishing a developing plugin changes nothing.
    expect(
      (await call('unpublish-plugin', { token: ws.owner.auth, params: { pluginId: plugin.id } })).status,
    ).toBe(200);
  });

  it('lets only the creator unpublish through /plugin (403), any plugin through /admin (admin only)', async () => {
    const author = await newUser();
    const other = await newUser();
    const admin = await newUser({ isAdmin: true });
    const plugin = await newPlugin(author);
    await call('submit-plugin', { token: author.auth, params: { pluginId: plugin.id } });
    await publishPlugin(plugin.id);
    expect(
      await call('unpublish-plugin', { token: other.auth, params: { pluginId: plugin.id } }),
    ).toMatchObject(forbidden(`only the creator of plugin ${plugin.id} may unpublish it`));
    expect(
      await call('unpublish-plugin-as-admin', { token: author.auth, params: { pluginId: plugin.id } }),
    ).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
    expect(await status(author, plugin.id)).toBe('published');
    const res = await call('unpublish-plugin-as-admin', {
      token: admin.auth,
      params: { pluginId: plugin.id },
    });
    expect(res).toEqual(expect.objectContaining({ status: 200, body: undefined }));
    expect(await status(author, plugin.id)).toBe('developing');
    expect(
      await call('unpublish-plugin-as-admin', { token: admin.auth, params: { pluginId: UNKNOWN_PLUGIN } }),
    ).toMatchObject(notFound(`Plugin ${UNKNOWN_PLUGIN} not found`));
    expect(
      await call('unpublish-plugin', { token: author.auth, params: { pluginId: UNKNOWN_PLUGIN } }),
    ).toMatchObject(notFound(`Plugin ${UNKNOWN_PLUGIN} not found`));
  });
});

describe('context-menu install routes', () => {
  it('answers one install with its plugin’s url and config, positionId the table', async () => {
    const ws = await menuWithOne();
    const res = await call('get-context-menu-plugin', { token: ws.owner.auth, ...onEntry(ws, ws.installId) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'Translate',
      tableId: ws.tableId,
      pluginId: ws.pluginId,
      pluginInstallId: ws.installId,
      positionId: ws.tableId,
      url: 'https://plugins.example.test/translate',
      config: { contextMenu: { width: 320, height: '50%', frozenDrag: true } },
    });
  });

  it('lists each entry with its plugin’s logo', async () => {
    const ws = await menuWithOne();
    const res = await call('list-context-menu-plugins', {
      token: ws.owner.auth,
      params: { tableId: ws.tableId },
    });
    expect(res.body).toEqual([
      { pluginInstallId: ws.installId, name: 'Translate', order: 0, pluginId: ws.pluginId, logo: LOGO },
    ]);
  });

  it('renames an install (empty answer) and rejects an empty name (400)', async () => {
    const ws = await menuWithOne();
    const on = { token: ws.owner.auth, ...onEntry(ws, ws.installId) };
    const res = await call('rename-context-menu-plugin', { ...on, body: { name: '  Translate all ' } });
    expect(res).toEqual(expect.objectContaining({ status: 200, body: undefined }));
    expect((await call('get-context-menu-plugin', on)).body.name).toBe('Translate all');
    expect(await call('rename-context-menu-plugin', { ...on, body: { name: ' ' } })).toMatchObject(
      invalid(/^Invalid body\.name/),
    );
    expect(await call('rename-context-menu-plugin', { ...on, body: {} })).toMatchObject(
      invalid(/^Invalid body\.name/),
    );
  });

  it('stores JSON on an install and reads it back ({} until set)', async () => {
    const ws = await menuWithOne();
    const on = { token: ws.owner.auth, ...onEntry(ws, ws.installId) };
    const base = {
      name: 'Translate',
      tableId: ws.tableId,
      pluginId: ws.pluginId,
      pluginInstallId: ws.installId,
    };
    expect(await call('get-context-menu-plugin-storage', on)).toEqual(
      expect.objectContaining({ status: 200, body: { ...base, storage: {} } }),
    );
    const storage = { language: 'fr', fields: ['fld1', 'fld2'], '': 0 };
    const res = await call('update-context-menu-plugin-storage', { ...on, body: { storage } });
    expect(res).toEqual(
      expect.objectContaining({
        status: 200,
        body: { tableId: ws.tableId, pluginInstallId: ws.installId, storage },
      }),
    );
    expect((await call('get-context-menu-plugin-storage', on)).body).toEqual({ ...base, storage });
    // The rest of the entry is untouched.
    expect(
      (await call('list-context-menu-plugins', { ...on, params: { tableId: ws.tableId } })).body,
    ).toHaveLength(1);
    const cleared = await call('update-context-menu-plugin-storage', { ...on, body: {} });
    expect(cleared.body.storage).toEqual({});
    expect(await call('update-context-menu-plugin-storage', { ...on, body: { storage: [1] } })).toMatchObject(
      invalid(/^Invalid body\.storage/),
    );
  });

  it('answers 404 for an install of another table or an unknown one, on every route', async () => {
    const ws = await menuWithOne();
    const other = await menuWithOne();
    for (const installId of [other.installId, UNKNOWN_INSTALL]) {
      const on = { token: ws.owner.auth, ...onEntry(ws, installId) };
      const missing = notFound(`Plugin install ${installId} not found in this context menu`);
      expect(await call('get-context-menu-plugin', on)).toMatchObject(missing);
      expect(await call('get-context-menu-plugin-storage', on)).toMatchObject(missing);
      expect(await call('rename-context-menu-plugin', { ...on, body: { name: 'X' } })).toMatchObject(missing);
      expect(
        await call('update-context-menu-plugin-storage', { ...on, body: { storage: {} } }),
      ).toMatchObject(missing);
    }
    expect(
      (await call('get-context-menu-plugin', { token: other.owner.auth, ...onEntry(other, other.installId) }))
        .body.name,
    ).toBe('Translate');
  });

  it('answers an install whose plugin was deleted without url or config', async () => {
    const ws = await menuWithOne();
    await call('delete-plugin', { token: ws.owner.auth, params: { pluginId: ws.pluginId } });
    const res = await call('get-context-menu-plugin', { token: ws.owner.auth, ...onEntry(ws, ws.installId) });
    expect(res.body).toEqual({
      name: 'Translate',
      tableId: ws.tableId,
      pluginId: ws.pluginId,
      pluginInstallId: ws.installId,
      positionId: ws.tableId,
    });
  });

  it('lets a viewer read (table|read) but not rename or store (table|update)', async () => {
    const ws = await menuWithOne();
    const viewer = await newMember(ws, 'viewer');
    const on = { token: viewer.auth, ...onEntry(ws, ws.installId) };
    expect((await call('get-context-menu-plugin', on)).status).toBe(200);
    expect((await call('get-context-menu-plugin-storage', on)).status).toBe(200);
    const refused = forbidden(/^not allowed to operate table\|update on tbl/);
    expect(await call('rename-context-menu-plugin', { ...on, body: { name: 'X' } })).toMatchObject(refused);
    expect(await call('update-context-menu-plugin-storage', { ...on, body: {} })).toMatchObject(refused);
  });
});
