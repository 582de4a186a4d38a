import { describe, expect, it } from 'vitest';
import { getItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { readTable } from '#shared/entities/tables.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { MAX_MENU_ENTRIES } from '#shared/plugins/context-menu.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { forbidden, id, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newPlugin, publishPlugin } from '#test/support/plugins.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;

/** A plugin of the user's named `name`, for context menus unless told otherwise; answers its id. */
const menuPlugin = async (user: User, name: string, positions: string[] = ['contextMenu']) =>
  (await newPlugin(user, { name, positions })).id;

const install = (user: User, tableId: string, pluginId: string, name?: string) =>
  call('install-context-menu-plugin', {
    token: user.auth,
    params: { tableId },
    body: { pluginId, ...(name !== undefined ? { name } : {}) },
  });

const list = async (user: User, tableId: string) => {
  const res = await call('list-context-menu-plugins', { token: user.auth, params: { tableId } });
  expect(res.status).toBe(200);
  return res.body as { pluginInstallId: string; name: string; order: number; pluginId: string }[];
};

const move = (user: User, tableId: string, pluginInstallId: string, body: unknown) =>
  call('move-context-menu-plugin', { token: user.auth, params: { tableId, pluginInstallId }, body });

/** A table whose owner installed plugins named by `names`, in order; answers the install ids. */
const menuOf = async (...names: string[]) => {
  const ws = await newTable();
  const pluginId = await menuPlugin(ws.owner, 'Menu plugin');
  const ids: string[] = [];
  for (const name of names) {
    const res = await install(ws.owner, ws.tableId, pluginId, name);
    expect(res.status).toBe(201);
    ids.push(res.body.pluginInstallId);
  }
  return { ...ws, pluginId, ids };
};

const names = async (user: User, tableId: string) => (await list(user, tableId)).map((e) => e.name);

const UNKNOWN_INSTALL = 'pli0000000000000000';

describe('POST /table/{tableId}/plugin-context-menu/install', () => {
  it('appends installs at the end, named after the plugin unless a name is given', async () => {
    const ws = await newTable();
    const chart = await menuPlugin(ws.owner, 'Chart');
    const first = await install(ws.owner, ws.tableId, chart);
    expect(first).toMatchObject({ status: 201 });
    expect(first.body).toEqual({ pluginInstallId: id('pli'), name: 'Chart', order: 0 });
    const second = await install(ws.owner, ws.tableId, chart, '  Second  ');
    expect(second.body).toEqual({ pluginInstallId: id('pli'), name: 'Second', order: 1 });
    expect(await list(ws.owner, ws.tableId)).toEqual([
      {
        pluginInstallId: first.body.pluginInstallId,
        name: 'Chart',
        order: 0,
        pluginId: chart,
        logo: 'https://plugins.example.test/logo.png',
      },
      {
        pluginInstallId: second.body.pluginInstallId,
        name: 'Second',
        order: 1,
        pluginId: chart,
        logo: 'https://plugins.example.test/logo.png',
      },
    ]);
  });

  it('refuses another user’s developing plugin (403) and installs it once published', async () => {
    const ws = await newTable();
    const author = await newUser();
    const pluginId = await menuPlugin(author, 'Theirs');
    expect(await install(ws.owner, ws.tableId, pluginId)).toMatchObject(
      forbidden(`Plugin ${pluginId} is still developing: only its creator may install it`),
    );
    expect(await list(ws.owner, ws.tableId)).toEqual([]);
    await publishPlugin(pluginId);
    expect(await install(ws.owner, ws.tableId, pluginId)).toMatchObject({
      status: 201,
      body: { name: 'Theirs' },
    });
  });

  it('refuses a plugin that does not list contextMenu (400), an unknown plugin (404), bad bodies (400)', async () => {
    const ws = await newTable();
    const dashboardOnly = await menuPlugin(ws.owner, 'Dash', ['dashboard']);
    expect(await install(ws.owner, ws.tableId, dashboardOnly)).toMatchObject(
      invalid(`Plugin ${dashboardOnly} cannot be installed into contextMenu`),
    );
    expect(await install(ws.owner, ws.tableId, 'plg0000000000000000')).toMatchObject(
      notFound('Plugin plg0000000000000000 not found'),
    );
    expect(await install(ws.owner, ws.tableId, 'plgchart')).toMatchObject(
      notFound('Plugin plgchart not found'),
    );
    expect(await install(ws.owner, ws.tableId, '')).toMatchObject(invalid(/^Invalid body\.pluginId/));
    const pluginId = await menuPlugin(ws.owner, 'P');
    expect(await install(ws.owner, ws.tableId, pluginId, '')).toMatchObject(invalid(/^Invalid body\.name/));
    expect(
      await call('install-context-menu-plugin', {
        token: ws.owner.auth,
        params: { tableId: ws.tableId },
        body: {},
      }),
    ).toMatchObject(invalid(/^Invalid body\.pluginId/));
    expect(await list(ws.owner, ws.tableId)).toEqual([]);
  });

  it(`holds at most ${MAX_MENU_ENTRIES} plugins (400 beyond)`, async () => {
    const ws = await newTable();
    const pluginId = await menuPlugin(ws.owner, 'Many');
    for (let i = 0; i < MAX_MENU_ENTRIES; i++)
      expect((await install(ws.owner, ws.tableId, pluginId, `P${i}`)).status).toBe(201);
    expect(await install(ws.owner, ws.tableId, pluginId)).toMatchObject(
      invalid(`A context menu holds at most ${MAX_MENU_ENTRIES} plugins`),
    );
    const entries = await list(ws.owner, ws.tableId);
    expect(entries.map((e) => e.name)).toEqual(Array.from({ length: MAX_MENU_ENTRIES }, (_, i) => `P${i}`));
    expect(entries.map((e) => e.order)).toEqual(Array.from({ length: MAX_MENU_ENTRIES }, (_, i) => i));
  });

  it('does not disturb the table’s schema (fields and views read the same)', async () => {
    const { tableId, ids } = await menuOf('A', 'B');
    expect(ids).toHaveLength(2);
    const table = await readTable(tableId);
    const schema = await loadSchema(tableId, table);
    expect(schema.fields.length).toBeGreaterThan(0);
    expect(schema.views.length).toBeGreaterThan(0);
    expect(schema.fields.every((f) => f.id.startsWith('fld'))).toBe(true);
    expect(schema.views.every((v) => v.id.startsWith('viw'))).toBe(true);
  });
});

describe('GET and DELETE /table/{tableId}/plugin-context-menu', () => {
  it('removes one entry and keeps the others in order', async () => {
    const { owner, tableId, ids } = await menuOf('A', 'B', 'C');
    const res = await call('remove-context-menu-plugin', {
      token: owner.auth,
      params: { tableId, pluginInstallId: ids[1] as string },
    });
    expect(res).toMatchObject({ status: 200 });
    expect(await list(owner, tableId)).toEqual([
      expect.objectContaining({ pluginInstallId: ids[0], name: 'A', order: 0 }),
      expect.objectContaining({ pluginInstallId: ids[2], name: 'C', order: 1 }),
    ]);
    expect(await itemsMentioning(ids[1] as string)).toEqual([]);
  });

  it('answers 404 for an install that is not in this table’s menu', async () => {
    const one = await menuOf('A');
    const other = await menuOf('X');
    for (const pluginInstallId of [UNKNOWN_INSTALL, other.ids[0] as string])
      expect(
        await call('remove-context-menu-plugin', {
          token: one.owner.auth,
          params: { tableId: one.tableId, pluginInstallId },
        }),
      ).toMatchObject(notFound(`Plugin install ${pluginInstallId} not found in this context menu`));
    expect(await names(other.owner, other.tableId)).toEqual(['X']);
  });

  it('keeps installs of a plugin deleted later (they stay until removed, with no logo)', async () => {
    const { owner, tableId, ids, pluginId } = await menuOf('A');
    expect((await call('delete-plugin', { token: owner.auth, params: { pluginId } })).status).toBe(200);
    expect(await list(owner, tableId)).toEqual([
      { pluginInstallId: ids[0], name: 'A', order: 0, pluginId, logo: '' },
    ]);
    expect(await install(owner, tableId, pluginId)).toMatchObject(notFound(`Plugin ${pluginId} not found`));
  });

  it('lets a viewer list but not install, remove or move (table|update)', async () => {
    const ws = await menuOf('A', 'B');
    const viewer = await newMember(ws, 'viewer');
    expect(await names(viewer, ws.tableId)).toEqual(['A', 'B']);
    expect(
      await call('remove-context-menu-plugin', {
        token: viewer.auth,
        params: { tableId: ws.tableId, pluginInstallId: ws.ids[0] as string },
      }),
    ).toMatchObject(forbidden(`not allowed to operate table|update on ${ws.tableId}`));
    expect(
      await move(viewer, ws.tableId, ws.ids[1] as string, { anchorId: ws.ids[0], position: 'before' }),
    ).toMatchObject(forbidden(`not allowed to operate table|update on ${ws.tableId}`));
    expect(await names(ws.owner, ws.tableId)).toEqual(['A', 'B']);
  });

  it('goes with the table: its permanent delete leaves no menu entry', async () => {
    const { owner, tableId, baseId, ids } = await menuOf('A', 'B');
    const res = await call('delete-table-permanently', { token: owner.auth, params: { baseId, tableId } });
    expect(res.status).toBe(200);
    await drainPurges(); // the purge runs in the background (shared/trash)
    expect(await itemsMentioning(...ids)).toEqual([]);
  });
});

describe('move a context-menu plugin: PUT /table/{tableId}/plugin-context-menu/{pluginInstallId}/move', () => {
  it('after installing A, B, C, moving C before B lists A C B (200, empty body)', async () => {
    const { owner, tableId, ids } = await menuOf('A', 'B', 'C');
    const [a, b, c] = ids as [string, string, string];
    const res = await move(owner, tableId, c, { anchorId: b, position: 'before' });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect(await list(owner, tableId)).toEqual([
      expect.objectContaining({ pluginInstallId: a, name: 'A', order: 0 }),
      expect.objectContaining({ pluginInstallId: c, name: 'C', order: 1 }),
      expect.objectContaining({ pluginInstallId: b, name: 'B', order: 2 }),
    ]);
  });

  it.each([
    ['A after C', 0, 2, 'after', ['B', 'C', 'A']],
    ['C before A', 2, 0, 'before', ['C', 'A', 'B']],
    ['A after B', 0, 1, 'after', ['B', 'A', 'C']],
    ['B after C', 1, 2, 'after', ['A', 'C', 'B']],
  ] as const)('moves %s', async (_, from, to, position, expected) => {
    const { owner, tableId, ids } = await menuOf('A', 'B', 'C');
    const res = await move(owner, tableId, ids[from] as string, { anchorId: ids[to], position });
    expect(res.status).toBe(200);
    expect(await names(owner, tableId)).toEqual(expected);
  });

  it('changes nothing when moving an entry to where it already is', async () => {
    const { owner, tableId, ids } = await menuOf('A', 'B', 'C');
    const [a, b, c] = ids as [string, string, string];
    const before = await Promise.all(ids.map((i) => getItem(keys.contextMenuItem(tableId, i))));
    expect((await move(owner, tableId, b, { anchorId: a, position: 'after' })).status).toBe(200);
    expect((await move(owner, tableId, b, { anchorId: c, position: 'before' })).status).toBe(200);
    const after = await Promise.all(ids.map((i) => getItem(keys.contextMenuItem(tableId, i))));
    expect(after).toEqual(before);
    expect(await names(owner, tableId)).toEqual(['A', 'B', 'C']);
  });

  it('answers 404 for an anchor not in this table’s menu and for a moved install not in it', async () => {
    const one = await menuOf('A', 'B');
    const other = await menuOf('X');
    const [a, b] = one.ids as [string, string];
    const x = other.ids[0] as string;
    for (const anchorId of [UNKNOWN_INSTALL, x])
      expect(await move(one.owner, one.tableId, a, { anchorId, position: 'after' })).toMatchObject(
        notFound(`Anchor ${anchorId} not found in this context menu`),
      );
    for (const moved of [UNKNOWN_INSTALL, x])
      expect(await move(one.owner, one.tableId, moved, { anchorId: b, position: 'after' })).toMatchObject(
        notFound(`Plugin install ${moved} not found in this context menu`),
      );
    expect(await names(one.owner, one.tableId)).toEqual(['A', 'B']);
    expect(await names(other.owner, other.tableId)).toEqual(['X']);
  });

  it('answers 404 for an anchor that was removed', async () => {
    const { owner, tableId, ids } = await menuOf('A', 'B');
    const [a, b] = ids as [string, string];
    await call('remove-context-menu-plugin', { token: owner.auth, params: { tableId, pluginInstallId: a } });
    expect(await move(owner, tableId, b, { anchorId: a, position: 'before' })).toMatchObject(
      notFound(`Anchor ${a} not found in this context menu`),
    );
  });

  it.each([
    [
      'moving relative to itself',
      'self',
      'before',
      /^Plugin install pli\w{16} cannot be moved relative to itself$/,
    ],
    ['a bad position', 'other', 'inside', /^Invalid body\.position/],
    ['no position', 'other', undefined, /^Invalid body\.position/],
    ['a malformed anchor', 'bad', 'after', /^Invalid body\.anchorId/],
  ] as const)('answers 400 for %s and changes nothing', async (_, anchor, position, message) => {
    const { owner, tableId, ids } = await menuOf('A', 'B');
    const [a, b] = ids as [string, string];
    const anchorId = anchor === 'self' ? b : anchor === 'other' ? a : 'rec0000000000000000';
    expect(await move(owner, tableId, b, { anchorId, position })).toMatchObject(invalid(message));
    expect(await names(owner, tableId)).toEqual(['A', 'B']);
  });

  it('answers 400 for a malformed install id in the path', async () => {
    const { owner, tableId, ids } = await menuOf('A');
    expect(
      await move(owner, tableId, 'plg0000000000000000', { anchorId: ids[0], position: 'after' }),
    ).toMatchObject(invalid(/^Invalid path\.pluginInstallId/));
  });

  it('follows an array model over a run of random moves', async () => {
    const labels = ['A', 'B', 'C', 'D', 'E', 'F'];
    const { owner, tableId, ids } = await menuOf(...labels);
    const nameOf = new Map(ids.map((x, i) => [x, labels[i] as string]));
    let model = [...ids];
    // A small deterministic generator: the run is the same every time.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let step = 0; step < 40; step++) {
      const moved = model[next(model.length)] as string;
      let anchor = model[next(model.length)] as string;
      if (anchor === moved) anchor = model[(model.indexOf(moved) + 1) % model.length] as string;
      const position = next(2) === 0 ? 'before' : 'after';
      const res = await move(owner, tableId, moved, { anchorId: anchor, position });
      expect(res.status).toBe(200);
      const rest = model.filter((x) => x !== moved);
      const at = rest.indexOf(anchor) + (position === 'after' ? 1 : 0);
      model = [...rest.slice(0, at), moved, ...rest.slice(at)];
    }
    const listed = await list(owner, tableId);
    expect(listed.map((e) => e.pluginInstallId)).toEqual(model);
    expect(listed.map((e) => e.name)).toEqual(model.map((x) => nameOf.get(x)));
    expect(listed.map((e) => e.order)).toEqual(labels.map((_, i) => i));
  });

  it('orders installs that raced (equal keys) and moves among them exactly', async () => {
    const ws = await newTable();
    const pluginId = await menuPlugin(ws.owner, 'Race');
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) => install(ws.owner, ws.tableId, pluginId, name)),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    let model = (await list(ws.owner, ws.tableId)).map((e) => e.pluginInstallId);
    expect(model.sort()).toEqual(results.map((r) => r.body.pluginInstallId).sort());
    model = (await list(ws.owner, ws.tableId)).map((e) => e.pluginInstallId);
    const steps: [number, number, 'before' | 'after'][] = [
      [3, 0, 'before'],
      [0, 2, 'after'],
      [1, 3, 'before'],
      [2, 1, 'after'],
    ];
    for (const [m, a, position] of steps) {
      const moved = model[m] as string;
      const anchor = model[a] as string;
      expect((await move(ws.owner, ws.tableId, moved, { anchorId: anchor, position })).status).toBe(200);
      const rest = model.filter((x) => x !== moved);
      const at = rest.indexOf(anchor) + (position === 'after' ? 1 : 0);
      model = [...rest.slice(0, at), moved, ...rest.slice(at)];
      expect((await list(ws.owner, ws.tableId)).map((e) => e.pluginInstallId)).toEqual(model);
    }
  });

  it('keeps working when the same spot is used over and over (keys are rebalanced)', async () => {
    const { owner, tableId, ids } = await menuOf('A', 'B', 'C');
    const [a, b, c] = ids as [string, string, string];
    // Alternating C and B into the gap right after A halves the gap each time: the keys run out of
    // room after ~320 moves and the whole menu is respread (shown by the unit test of planMenuMove).
    for (let i = 0; i < 400; i++) {
      const moved = i % 2 === 0 ? c : b;
      const anchor = i % 2 === 0 ? b : c;
      expect((await move(owner, tableId, moved, { anchorId: anchor, position: 'before' })).status).toBe(200);
    }
    expect((await list(owner, tableId)).map((e) => e.pluginInstallId)).toEqual([a, b, c]);
    const stored = await Promise.all(ids.map((i) => getItem(keys.contextMenuItem(tableId, i))));
    for (const item of stored) expect(String(item?.orderKey).length).toBeLessThanOrEqual(64);
  });
});
