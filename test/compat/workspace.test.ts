/**
 * The space, base, table, token and user routes of teable-routes.md §2 and §3 through Teable's
 * own client (`@teable/openapi` 1.10.0, pinned), pointed at the local server.
 */
import {
  addSpaceCollaborator,
  configApi,
  createAccessToken,
  createBase,
  createSpace,
  createTable,
  deleteTable,
  getAccessToken,
  getBaseAll,
  getBaseCollaboratorList,
  getBasePermission,
  getSpaceCollaboratorList,
  getTablePermission,
  getTrashItems,
  getUserCollaborators,
  tablePermissionVoSchema,
  updateAccessToken,
  updateBaseOrder,
  updateDbTableName,
  updateTableDescription,
  updateTableIcon,
  updateTableName,
  updateTableOrder,
  updateUserName,
  userInfo,
  userMe,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe("workspace routes through Teable's client", () => {
  let user: Awaited<ReturnType<typeof newUser>>;
  beforeAll(async () => {
    user = await newUser({ name: 'Compat workspace' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('adds and lists collaborators of a space and a base', async () => {
    const space = await createSpace({ name: 'Compat team' });
    const base = await createBase({ spaceId: space.data.id, name: 'B1' });
    const ann = await newUser({ name: 'Ann' });
    const added = await addSpaceCollaborator(space.data.id, {
      collaborators: [{ principalId: ann.id, principalType: 'user' as never }],
      role: 'editor' as never,
    });
    expect(added.status).toBe(201);
    const spaceList = await getSpaceCollaboratorList(space.data.id);
    expect(spaceList.data.total).toBe(2);
    expect(spaceList.data.uniqTotal).toBe(2);
    const baseList = await getBaseCollaboratorList(base.data.id, { skip: 1, take: 1 });
    expect(baseList.data).toMatchObject({ collaborators: [{ userId: ann.id, role: 'editor' }], total: 2 });
    const users = await getUserCollaborators(base.data.id, { search: 'ann' });
    expect(users.data).toEqual({
      users: [{ id: ann.id, name: 'Ann', email: ann.email, avatar: null }],
      total: 1,
    });
  });

  it('orders bases, lists every reachable base and answers permissions', async () => {
    const space = await createSpace({ name: 'Compat order' });
    const b1 = await createBase({ spaceId: space.data.id, name: 'B1' });
    const b2 = await createBase({ spaceId: space.data.id, name: 'B2' });
    const moved = await updateBaseOrder({ baseId: b2.data.id, anchorId: b1.data.id, position: 'before' });
    expect(moved.status).toBe(200);
    const all = await getBaseAll();
    const mine = all.data.filter((b) => b.spaceId === space.data.id).map((b) => b.name);
    expect(mine).toEqual(['B2', 'B1']);
    const permission = await getBasePermission(b1.data.id);
    expect(permission.data['base|update' as never]).toBe(true);
  });

  it('changes a table through its PUT routes and reads its permission', async () => {
    const space = await createSpace({ name: 'Compat tables' });
    const base = await createBase({ spaceId: space.data.id });
    const t1 = await createTable(base.data.id, { name: 'One' });
    const t2 = await createTable(base.data.id, { name: 'Two' });
    const b = base.data.id;
    expect((await updateTableName(b, t1.data.id, { name: 'Uno' })).status).toBe(200);
    expect((await updateTableIcon(b, t1.data.id, { icon: '📋' })).status).toBe(200);
    expect((await updateTableDescription(b, t1.data.id, { description: null })).status).toBe(200);
    expect((await updateDbTableName(b, t1.data.id, { dbTableName: 'uno_table' })).status).toBe(200);
    expect((await updateTableOrder(b, t2.data.id, { anchorId: t1.data.id, position: 'before' })).status).toBe(
      200,
    );
    const permission = await getTablePermission(b, t1.data.id);
    expect(permission.data.table['table|update' as never]).toBe(true);
    expect(permission.data.record['record|read' as never]).toBe(true);
    expect(permission.data.field['field|update' as never]).toBe(true);
    // Decided: beside the client's flat field rights, the per-field ones Teable 1.5's web app reads
    // (`field.fields`, `field.create`): the client's schema, a record of booleans, would refuse
    // those two keys, so it parses the answer without them
    const { fields, create, ...flat } = permission.data.field as Record<string, unknown>;
    expect(tablePermissionVoSchema.parse({ ...permission.data, field: flat })).toBeTruthy();
    expect(Object.keys(fields as object)).toHaveLength(t1.data.fields.length);
    expect(create).toBe(true);
    await deleteTable(b, t1.data.id);
    const trash = await getTrashItems({ resourceType: 'base' as never, resourceId: b });
    expect(trash.data.resourceMap[t1.data.id]).toEqual({ id: t1.data.id, name: 'Uno' });
    expect(trash.data.userMap[user.id]).toMatchObject({ id: user.id, avatar: null });
  });

  it('replaces and reads a token, reads and renames the user', async () => {
    const created = await createAccessToken({
      name: 'Client token',
      scopes: ['space|read'],
      expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
    } as never);
    const replaced = await updateAccessToken(created.data.id, { name: 'Replaced', scopes: ['base|read'] });
    expect(replaced.data).toMatchObject({ id: created.data.id, name: 'Replaced', scopes: ['base|read'] });
    const got = await getAccessToken(created.data.id);
    expect(got.data).toMatchObject({ id: created.data.id, name: 'Replaced', spaceIds: null });
    expect(got.data).not.toHaveProperty('token');
    expect((await updateUserName({ name: 'Compat renamed' })).status).toBe(200);
    expect((await userInfo()).data).toEqual({
      id: user.id,
      name: 'Compat renamed',
      avatar: null,
      email: user.email,
    });
    expect((await userMe()).data).toMatchObject({
      notifyMeta: { email: false },
      hasPassword: false,
      isAdmin: false,
    });
  });
});
