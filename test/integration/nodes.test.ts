import { describe, expect, it } from 'vitest';
import { deleteItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { nodeIdOf } from '#shared/ids.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { forbidden, id, invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { newDashboard, newMember, newWorkspace } from '#test/support/workspace.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
interface Node {
  id: string;
  parentId: string | null;
  resourceType: string;
  resourceId: string;
  order: number;
  resourceMeta: { name: string; icon?: string };
}

const UNKNOWN_NODE = 'nod0000000000000000';

const tree = async (ws: Ws, token = ws.owner.auth): Promise<Node[]> => {
  const res = await call('list-nodes', { token, params: { baseId: ws.baseId } });
  expect(res.status).toBe(200);
  return res.body;
};
/** The tree as `name` or `parent/name` strings, depth first. */
const shape = async (ws: Ws) => {
  const nodes = await tree(ws);
  const names = new Map(nodes.map((n) => [n.id, n.resourceMeta.name]));
  return nodes.map((n) =>
    n.parentId ? `${names.get(n.parentId)}/${n.resourceMeta.name}` : n.resourceMeta.name,
  );
};

const newTableIn = async (ws: Ws, name: string, extra: Record<string, unknown> = {}) => {
  const res = await call('create-table', {
    token: ws.owner.auth,
    params: { baseId: ws.baseId },
    body: { name, records: [], ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const newFolder = async (ws: Ws, name: string, parentId?: string | null) => {
  const res = await call('create-node', {
    token: ws.owner.auth,
    params: { baseId: ws.baseId },
    body: { resourceType: 'folder', name, ...(parentId !== undefined ? { parentId } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Node;
};
const move = (ws: Ws, nodeId: string, body: Record<string, unknown>, token = ws.owner.auth) =>
  call('move-node', { token, params: { baseId: ws.baseId, nodeId }, body });
const del = (ws: Ws, nodeId: string, token = ws.owner.auth) =>
  call('delete-node', { token, params: { baseId: ws.baseId, nodeId } });
const delForGood = (ws: Ws, nodeId: string, token = ws.owner.auth) =>
  call('delete-node-permanently', { token, params: { baseId: ws.baseId, nodeId } });

describe('nodes of tables and dashboards', () => {
  it('creates a node at the end of the root with every table and dashboard', async () => {
    const ws = await newWorkspace();
    const t1 = await newTableIn(ws, 'Orders', { icon: '📦' });
    const d1 = await newDashboard(ws, 'Overview');
    const t2 = await newTableIn(ws, 'Clients');

    expect(await tree(ws)).toEqual([
      {
        id: nodeIdOf(t1),
        parentId: null,
        resourceType: 'table',
        resourceId: t1,
        order: 0,
        resourceMeta: { name: 'Orders', icon: '📦' },
      },
      {
        id: nodeIdOf(d1),
        parentId: null,
        resourceType: 'dashboard',
        resourceId: d1,
        order: 1,
        resourceMeta: { name: 'Overview' },
      },
      {
        id: nodeIdOf(t2),
        parentId: null,
        resourceType: 'table',
        resourceId: t2,
        order: 2,
        resourceMeta: { name: 'Clients' },
      },
    ]);
  });

  it('follows table and dashboard renames and icon changes', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'Old');
    const d = await newDashboard(ws, 'Board');
    await call('update-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, tableId: t },
      body: { name: 'New', icon: '🚀' },
    });
    await call('rename-dashboard', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId: d },
      body: { name: 'Panel' },
    });

    expect((await tree(ws)).map((n) => n.resourceMeta)).toEqual([
      { name: 'New', icon: '🚀' },
      { name: 'Panel' },
    ]);
  });

  it('hides a trashed table and shows it again in its place after a restore', async () => {
    const ws = await newWorkspace();
    const folder = await newFolder(ws, 'F');
    const a = await newTableIn(ws, 'A');
    await newTableIn(ws, 'B');
    expect((await move(ws, nodeIdOf(a), { parentId: folder.id })).status).toBe(200);
    const trashed = await call('delete-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, tableId: a },
    });
    expect(trashed.status).toBe(200);

    expect(await shape(ws)).toEqual(['F', 'B']);

    const items = await call('list-trash-items', {
      token: ws.owner.auth,
      query: `resourceType=base&resourceId=${ws.baseId}`,
    });
    const trashId = items.body.trashItems[0].id;
    expect((await call('restore-trash-item', { token: ws.owner.auth, params: { trashId } })).status).toBe(
      201,
    );
    expect(await shape(ws)).toEqual(['F', 'F/A', 'B']);
  });

  it('lists a table that has no node (made before nodes existed) at the end of the root', async () => {
    const ws = await newWorkspace();
    const old = await newTableIn(ws, 'Old');
    await deleteItems([keys.node(ws.baseId, nodeIdOf(old))]);
    await newTableIn(ws, 'New');
    const folder = await newFolder(ws, 'F');
    expect(folder.order).toBe(1);

    expect(await shape(ws)).toEqual(['New', 'F', 'Old']);
    const nodes = await tree(ws);
    expect(nodes[2]).toEqual({
      id: nodeIdOf(old),
      parentId: null,
      resourceType: 'table',
      resourceId: old,
      order: 2,
      resourceMeta: { name: 'Old' },
    });

    // moving it (or around it) gives it a node of its own, in place
    expect((await move(ws, nodeIdOf(old), { anchorId: folder.id, position: 'before' })).body.order).toBe(1);
    expect(await shape(ws)).toEqual(['New', 'Old', 'F']);
    expect(await itemsMentioning(`NODE#${nodeIdOf(old)}`)).toHaveLength(1);
  });

  it('lists tables (GET /base/{baseId}/table) in tree order', async () => {
    const ws = await newWorkspace();
    const a = await newTableIn(ws, 'A');
    const b = await newTableIn(ws, 'B');
    const folder = await newFolder(ws, 'F');
    await move(ws, nodeIdOf(b), { anchorId: nodeIdOf(a), position: 'before' });
    await move(ws, nodeIdOf(a), { parentId: folder.id });
    const c = await newTableIn(ws, 'C');
    await move(ws, nodeIdOf(c), { anchorId: folder.id, position: 'before' });

    const res = await call('list-tables', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(res.body.map((t: { name: string; order: number }) => [t.name, t.order])).toEqual([
      ['B', 0],
      ['C', 1],
      ['A', 2],
    ]);
  });
});

describe('POST /base/{baseId}/node', () => {
  it('creates folders at the end of the root or of a folder', async () => {
    const ws = await newWorkspace();
    await newTableIn(ws, 'T');
    const top = await newFolder(ws, '  Top  ');
    expect(top).toEqual({
      id: id('nod'),
      parentId: null,
      resourceType: 'folder',
      resourceId: top.id,
      order: 1,
      resourceMeta: { name: 'Top' },
    });
    const inner = await newFolder(ws, 'Inner', top.id);
    expect(inner).toMatchObject({ parentId: top.id, order: 0, resourceMeta: { name: 'Inner' } });
    await newFolder(ws, 'Second', top.id);

    expect(await shape(ws)).toEqual(['T', 'Top', 'Top/Inner', 'Top/Second']);
  });

  it('refuses a folder deeper than 2 levels', async () => {
    const ws = await newWorkspace();
    const top = await newFolder(ws, 'Top');
    const inner = await newFolder(ws, 'Inner', top.id);

    const res = await call('create-node', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { resourceType: 'folder', name: 'Deep', parentId: inner.id },
    });
    expect(res).toMatchObject(invalid('Folders nest at most 2 deep'));
  });

  it('answers 404 for an unknown parent and 400 for a parent that is not a folder', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    const body = (parentId: string) => ({ resourceType: 'folder', name: 'F', parentId });

    expect(
      await call('create-node', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId },
        body: body(UNKNOWN_NODE),
      }),
    ).toMatchObject(notFound(`Parent node ${UNKNOWN_NODE} not found`));
    expect(
      await call('create-node', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId },
        body: body(nodeIdOf(t)),
      }),
    ).toMatchObject(invalid(`Parent node ${nodeIdOf(t)} is not a folder`));
  });

  it.each([
    ['a table', { resourceType: 'table', name: 'T' }],
    ['no name', { resourceType: 'folder' }],
    ['a blank name', { resourceType: 'folder', name: '   ' }],
    ['a name over 255 characters', { resourceType: 'folder', name: 'x'.repeat(256) }],
    ['a malformed parent', { resourceType: 'folder', name: 'F', parentId: 'tbl123' }],
  ])('refuses %s (400)', async (_, body) => {
    const ws = await newWorkspace();
    const res = await call('create-node', { token: ws.owner.auth, params: { baseId: ws.baseId }, body });
    expect(res).toMatchObject(invalid(/^Invalid body/));
  });

  it('needs base|update: an editor may read the tree, not add to it', async () => {
    const ws = await newWorkspace();
    await newTableIn(ws, 'T');
    const editor = await newMember(ws, 'editor');

    expect((await tree(ws, editor.auth)).map((n) => n.resourceMeta.name)).toEqual(['T']);
    const res = await call('create-node', {
      token: editor.auth,
      params: { baseId: ws.baseId },
      body: { resourceType: 'folder', name: 'F' },
    });
    expect(res).toMatchObject(forbidden(`not allowed to operate base|update on ${ws.baseId}`));
  });
});

describe('PUT /base/{baseId}/node/{nodeId}/move', () => {
  const abc = async () => {
    const ws = await newWorkspace();
    const [a, b, c] = [await newFolder(ws, 'A'), await newFolder(ws, 'B'), await newFolder(ws, 'C')];
    return { ws, a: a.id, b: b.id, c: c.id };
  };

  it('moves C before B: A C B, and answers the node in its new place', async () => {
    const { ws, b, c } = await abc();
    const res = await move(ws, c, { anchorId: b, position: 'before' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: c,
      parentId: null,
      resourceType: 'folder',
      resourceId: c,
      order: 1,
      resourceMeta: { name: 'C' },
    });
    expect(await shape(ws)).toEqual(['A', 'C', 'B']);
  });

  it('moves A after C: B C A; and back before B: A B C', async () => {
    const { ws, a, b, c } = await abc();
    await move(ws, a, { anchorId: c, position: 'after' });
    expect(await shape(ws)).toEqual(['B', 'C', 'A']);
    await move(ws, a, { anchorId: b, position: 'before' });
    expect(await shape(ws)).toEqual(['A', 'B', 'C']);
  });

  it('changes nothing when the node is already there', async () => {
    const { ws, a, b } = await abc();
    const before = await tree(ws);
    const res = await move(ws, b, { anchorId: a, position: 'after' });
    expect(res.body.order).toBe(1);
    expect(await tree(ws)).toEqual(before);
  });

  it('keeps the order exact over many moves to the same spot', async () => {
    const { ws, a, b, c } = await abc();
    for (let i = 0; i < 40; i++) {
      await move(ws, i % 2 ? b : c, { anchorId: a, position: 'after' });
    }
    expect(await shape(ws)).toEqual(['A', 'B', 'C']);
  });

  it('moves a node into a folder (at its end), next to a node of a folder, and back to the root', async () => {
    const ws = await newWorkspace();
    const folder = await newFolder(ws, 'F');
    const t1 = nodeIdOf(await newTableIn(ws, 'T1'));
    const t2 = nodeIdOf(await newTableIn(ws, 'T2'));
    const t3 = nodeIdOf(await newTableIn(ws, 'T3'));

    expect((await move(ws, t1, { parentId: folder.id })).body).toMatchObject({
      parentId: folder.id,
      order: 0,
    });
    await move(ws, t2, { parentId: folder.id });
    await move(ws, t3, { parentId: folder.id, anchorId: t2, position: 'before' });
    expect(await shape(ws)).toEqual(['F', 'F/T1', 'F/T3', 'F/T2']);
    // an anchor in the node's own (new) list without parentId
    await move(ws, t1, { anchorId: t2, position: 'after' });
    expect(await shape(ws)).toEqual(['F', 'F/T3', 'F/T2', 'F/T1']);

    expect((await move(ws, t3, { parentId: null })).body).toMatchObject({ parentId: null, order: 1 });
    expect(await shape(ws)).toEqual(['F', 'F/T2', 'F/T1', 'T3']);
  });

  it('answers 404 for an anchor that is not in the target list', async () => {
    const ws = await newWorkspace();
    const folder = await newFolder(ws, 'F');
    const inside = nodeIdOf(await newTableIn(ws, 'In'));
    await move(ws, inside, { parentId: folder.id });
    const outside = nodeIdOf(await newTableIn(ws, 'Out'));

    expect(await move(ws, outside, { anchorId: inside, position: 'before' })).toMatchObject(
      notFound(`Anchor ${inside} not found in this list`),
    );
    expect(await move(ws, inside, { anchorId: UNKNOWN_NODE, position: 'after' })).toMatchObject(
      notFound(`Anchor ${UNKNOWN_NODE} not found in this list`),
    );
  });

  type Abc = { a: string; b: string; c: string };
  it.each<[string, (n: Abc) => Record<string, unknown>, string | RegExp]>([
    [
      'moving relative to itself',
      (n) => ({ anchorId: n.a, position: 'before' }),
      'Node X cannot be moved relative to itself',
    ],
    ['a bad position', (n) => ({ anchorId: n.b, position: 'above' }), /^Invalid body.position/],
    [
      'an anchor without position',
      (n) => ({ anchorId: n.b }),
      'position (before or after) is required with anchorId',
    ],
    ['a position without anchor', () => ({ position: 'after' }), 'anchorId is required with position'],
    ['an empty body', () => ({}), 'Give anchorId and position, or parentId, to move a node'],
    ['a malformed anchor', () => ({ anchorId: 'rec123', position: 'after' }), /^Invalid body.anchorId/],
  ])('answers 400 for %s', async (_, body, message) => {
    const { ws, a, b, c } = await abc();
    const res = await move(ws, a, body({ a, b, c }));
    expect(res).toMatchObject(invalid(typeof message === 'string' ? message.replace('X', a) : message));
    expect(await shape(ws)).toEqual(['A', 'B', 'C']);
  });

  it('answers 404 for an unknown node or parent, 400 for a parent that is not a folder', async () => {
    const { ws, a } = await abc();
    const t = nodeIdOf(await newTableIn(ws, 'T'));
    expect(await move(ws, UNKNOWN_NODE, { parentId: a })).toMatchObject(
      notFound(`Node ${UNKNOWN_NODE} not found`),
    );
    expect(await move(ws, a, { parentId: UNKNOWN_NODE })).toMatchObject(
      notFound(`Parent node ${UNKNOWN_NODE} not found`),
    );
    expect(await move(ws, a, { parentId: t })).toMatchObject(invalid(`Parent node ${t} is not a folder`));
  });

  it('refuses a cycle and a folder deeper than 2 levels', async () => {
    const ws = await newWorkspace();
    const outer = await newFolder(ws, 'Outer');
    const inner = await newFolder(ws, 'Inner', outer.id);
    const other = await newFolder(ws, 'Other');

    expect(await move(ws, outer.id, { parentId: inner.id })).toMatchObject(
      invalid(`Node ${outer.id} cannot be moved into itself or a folder inside it`),
    );
    expect(await move(ws, outer.id, { parentId: outer.id })).toMatchObject(
      invalid(`Node ${outer.id} cannot be moved into itself or a folder inside it`),
    );
    // Outer holds a folder: inside Other it would put Inner at depth 3
    expect(await move(ws, outer.id, { parentId: other.id })).toMatchObject(
      invalid('Folders nest at most 2 deep'),
    );
    // a folder without sub-folders may go one level down; a table may go into the deepest folder
    expect((await move(ws, other.id, { parentId: outer.id })).status).toBe(200);
    const t = nodeIdOf(await newTableIn(ws, 'T'));
    expect((await move(ws, t, { parentId: inner.id })).status).toBe(200);
    expect(await shape(ws)).toEqual(['Outer', 'Outer/Inner', 'Inner/T', 'Outer/Other']);
  });

  it('needs base|update (an editor is refused)', async () => {
    const { ws, a, b } = await abc();
    const editor = await newMember(ws, 'editor');
    expect(await move(ws, a, { anchorId: b, position: 'after' }, editor.auth)).toMatchObject(
      forbidden(`not allowed to operate base|update on ${ws.baseId}`),
    );
  });
});

describe('DELETE /base/{baseId}/node/{nodeId}', () => {
  it('moves a table to the trash', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    const res = await del(ws, nodeIdOf(t));
    expect(res.status).toBe(200);

    expect(await tree(ws)).toEqual([]);
    expect(
      (await call('get-table', { token: ws.owner.auth, params: { baseId: ws.baseId, tableId: t } })).status,
    ).toBe(404);
    const items = await call('list-trash-items', {
      token: ws.owner.auth,
      query: `resourceType=base&resourceId=${ws.baseId}`,
    });
    expect(items.body.trashItems.map((i: { resourceId: string }) => i.resourceId)).toEqual([t]);
    // a trashed table's node is gone from the routes that act on shown nodes
    expect(await del(ws, nodeIdOf(t))).toMatchObject(notFound(`Node ${nodeIdOf(t)} not found`));
  });

  it('deletes a dashboard with its plugin installs', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws, 'D');
    const plugin = await call('create-plugin', {
      token: ws.owner.auth,
      body: { name: 'P', logo: 'https://example.test/p.png', positions: ['dashboard'] },
    });
    await call('install-dashboard-plugin', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, dashboardId: d },
      body: { pluginId: plugin.body.id },
    });

    expect((await del(ws, nodeIdOf(d))).status).toBe(200);
    expect(await tree(ws)).toEqual([]);
    expect(
      (await call('get-dashboard', { token: ws.owner.auth, params: { baseId: ws.baseId, dashboardId: d } }))
        .status,
    ).toBe(404);
    expect(await itemsMentioning(d.slice(3))).toEqual([]);
  });

  it('deletes an empty folder and refuses one with children', async () => {
    const ws = await newWorkspace();
    const full = await newFolder(ws, 'Full');
    const empty = await newFolder(ws, 'Empty');
    await newFolder(ws, 'Child', full.id);

    expect(await del(ws, full.id)).toMatchObject(invalid(`Folder ${full.id} is not empty`));
    expect((await del(ws, empty.id)).status).toBe(200);
    expect(await shape(ws)).toEqual(['Full', 'Full/Child']);
    expect(await del(ws, UNKNOWN_NODE)).toMatchObject(notFound(`Node ${UNKNOWN_NODE} not found`));
  });

  it('needs table|delete for a table, base|update for a folder', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    const folder = await newFolder(ws, 'F');
    const editor = await newMember(ws, 'editor');
    const viewer = await newMember(ws, 'viewer');

    expect(await del(ws, nodeIdOf(t), editor.auth)).toMatchObject(
      forbidden(`not allowed to operate table|delete on ${t}`),
    );
    expect(await del(ws, folder.id, viewer.auth)).toMatchObject(
      forbidden(`not allowed to operate base|update on ${folder.id}`),
    );
    expect(await shape(ws)).toEqual(['T', 'F']);
  });
});

describe('delete a node for good: DELETE /base/{baseId}/node/{nodeId}/permanent', () => {
  it('deletes a table for good, with no trash item', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    await call('create-records', {
      token: ws.owner.auth,
      params: { tableId: t },
      body: { records: [{ fields: {} }] },
    });

    const res = await delForGood(ws, nodeIdOf(t));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resourceId: t, resourceType: 'table', permanent: true });

    await drainPurges();
    expect(await tree(ws)).toEqual([]);
    const items = await call('list-trash-items', {
      token: ws.owner.auth,
      query: `resourceType=base&resourceId=${ws.baseId}`,
    });
    expect(items.body.trashItems).toEqual([]);
    expect(await itemsMentioning(t, nodeIdOf(t))).toEqual([]);
    expect(await delForGood(ws, nodeIdOf(t))).toMatchObject(notFound(`Node ${nodeIdOf(t)} not found`));
  });

  it('deletes a table that is in the trash for good through its node', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    await del(ws, nodeIdOf(t));

    const res = await delForGood(ws, nodeIdOf(t));
    expect(res.body).toEqual({ resourceId: t, resourceType: 'table', permanent: true });
    await drainPurges();
    expect(await itemsMentioning(t, nodeIdOf(t))).toEqual([]);
  });

  it('deletes a dashboard with its installs', async () => {
    const ws = await newWorkspace();
    const d = await newDashboard(ws, 'D');
    const plugin = await call('create-plugin', {
      token: ws.owner.auth,
      body: { name: 'P', logo: 'https://example.test/p.png', positions: ['dashboard'] },
    });
    for (let i = 0; i < 2; i++)
      await call('install-dashboard-plugin', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId, dashboardId: d },
        body: { pluginId: plugin.body.id },
      });

    const res = await delForGood(ws, nodeIdOf(d));
    expect(res.body).toEqual({ resourceId: d, resourceType: 'dashboard', permanent: true });
    expect(await itemsMentioning(d.slice(3))).toEqual([]);
  });

  it('deletes an empty folder; a folder with children is a 400', async () => {
    const ws = await newWorkspace();
    const folder = await newFolder(ws, 'F');
    const t = await newTableIn(ws, 'T');
    await move(ws, nodeIdOf(t), { parentId: folder.id });

    expect(await delForGood(ws, folder.id)).toMatchObject(invalid(`Folder ${folder.id} is not empty`));
    await move(ws, nodeIdOf(t), { parentId: null });
    const res = await delForGood(ws, folder.id);
    expect(res.body).toEqual({ resourceId: folder.id, resourceType: 'folder', permanent: true });
    expect(await shape(ws)).toEqual(['T']);
    expect(await itemsMentioning(folder.id)).toEqual([]);
  });

  it('answers 404 for an unknown node and needs the delete right on the resource', async () => {
    const ws = await newWorkspace();
    const t = await newTableIn(ws, 'T');
    const d = await newDashboard(ws, 'D');
    const editor = await newMember(ws, 'editor');

    expect(await delForGood(ws, UNKNOWN_NODE)).toMatchObject(notFound(`Node ${UNKNOWN_NODE} not found`));
    expect(await delForGood(ws, nodeIdOf(t), editor.auth)).toMatchObject(
      forbidden(`not allowed to operate table|delete on ${t}`),
    );
    expect(await delForGood(ws, nodeIdOf(d), editor.auth)).toMatchObject(
      forbidden(`not allowed to operate base|update on ${d}`),
    );
    expect(await shape(ws)).toEqual(['T', 'D']);
  });
});
