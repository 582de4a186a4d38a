import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { error } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { createSpace, spaceWithRoles } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;

/** A well-formed base id that no base has. */
const UNKNOWN_BASE = 'bse0000000000000000';

const createBase = async (user: User, spaceId: string, extra: { name?: string; icon?: string } = {}) => {
  const res = await call('create-base', { token: user.auth, body: { spaceId, ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; icon: string | null; spaceId: string };
};

/** A space owned by a fresh user, with one collaborator of every other role and one base. */
const baseWithRoles = async () => {
  const space = await spaceWithRoles(['creator', 'editor', 'commenter', 'viewer']);
  const base = await createBase(space.owner, space.spaceId, { name: 'Main' });
  return { ...space, baseId: base.id };
};

/** Every item of the table whose key mentions one of `ids`. */
/**
 * A table in the base written straight to the table (the table routes are not part of this
 * file): the base's reference, the schema, a view, records, their number index and the view's order.
 */
const seedTable = async (baseId: string, records: number) => {
  const tableId = newId('table');
  const viewId = newId('view');
  const items: Record<string, unknown>[] = [
    { ...keys.baseTable(baseId, tableId), type: 'baseTable', tableId, name: 'T' },
    { ...keys.table(tableId), type: 'table', id: tableId, baseId, name: 'T' },
    { ...keys.field(tableId, newId('field')), type: 'field' },
    { ...keys.view(tableId, viewId), type: 'view', id: viewId },
  ];
  for (let n = 1; n <= records; n++) {
    const recordId = newId('record');
    items.push(
      { ...keys.record(tableId, recordId), type: 'record' },
      { ...keys.recordNumber(tableId, n), recordId },
      { ...keys.viewOrder(viewId, `a${String(n).padStart(4, '0')}`), recordId },
    );
  }
  for (const item of items)
    await documentClient.send(new PutCommand({ TableName: process.env.TABLE_NAME, Item: item }));
  return { tableId, viewId, count: items.length };
};

const notFound = (baseId: string) => error(404, 'not_found', `Base ${baseId} not found`);

const forbidden = (action: string, id: string) =>
  error(403, 'restricted_resource', `not allowed to operate ${action} on ${id}`);

describe('POST /base', () => {
  it('answers 201 with exactly id, name, icon and spaceId', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const res = await call('create-base', {
      token: user.auth,
      body: { spaceId, name: ' Sales ', icon: '🚀' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bse[0-9A-Za-z]{16}$/),
      name: 'Sales',
      icon: '🚀',
      spaceId,
    });
    const got = await call('get-base', { token: user.auth, params: { baseId: res.body.id } });
    expect(got).toMatchObject({ status: 200, body: { ...res.body, role: 'owner' } });
  });

  it('answers icon null when none is given', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const res = await call('create-base', { token: user.auth, body: { spaceId, name: 'Plain' } });
    expect(res).toMatchObject({ status: 201 });
    expect(res.body).toEqual({ id: expect.any(String), name: 'Plain', icon: null, spaceId });
  });

  it('names bases Untitled Base, Untitled Base 2, Untitled Base 3 without a name', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push((await createBase(user, spaceId)).name);
    expect(names).toEqual(['Untitled Base', 'Untitled Base 2', 'Untitled Base 3']);
  });

  it('counts default names per space', async () => {
    const user = await newUser();
    const [first, second] = [await createSpace(user, 'A'), await createSpace(user, 'B')];
    await createBase(user, first);
    await createBase(user, first);
    expect((await createBase(user, second)).name).toBe('Untitled Base');
  });

  it('does not count a base in the trash for the default name', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const base = await createBase(user, spaceId);
    expect((await call('delete-base', { token: user.auth, params: { baseId: base.id } })).status).toBe(200);
    expect((await createBase(user, spaceId)).name).toBe('Untitled Base');
  });

  it('skips a default name that an explicit name took', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    await createBase(user, spaceId, { name: 'Untitled Base' });
    expect((await createBase(user, spaceId)).name).toBe('Untitled Base 2');
  });

  it('lets a creator create a base', async () => {
    const roles = await baseWithRoles();
    const res = await call('create-base', {
      token: roles.creator.auth,
      body: { spaceId: roles.spaceId, name: 'By creator' },
    });
    expect(res).toMatchObject({ status: 201, body: { name: 'By creator', spaceId: roles.spaceId } });
  });

  it.each(['editor', 'commenter', 'viewer'] as const)(
    'answers 403 naming base|create to a %s and creates nothing',
    async (role) => {
      const roles = await baseWithRoles();
      const res = await call('create-base', {
        token: roles[role].auth,
        body: { spaceId: roles.spaceId, name: 'Nope' },
      });
      expect(res).toMatchObject(forbidden('base|create', roles.spaceId));
      const list = await call('list-bases', { token: roles.owner.auth, params: { spaceId: roles.spaceId } });
      expect(list.body.map((b: { name: string }) => b.name)).toEqual(['Main']);
    },
  );

  it('answers 403 to a user outside the space', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const res = await call('create-base', { token: stranger.auth, body: { spaceId } });
    expect(res).toMatchObject({
      status: 403,
      body: { status: 403, code: 'restricted_resource', message: `not a collaborator of space ${spaceId}` },
    });
  });

  it('answers 404 for a space that does not exist or is in the trash', async () => {
    const user = await newUser();
    const unknown = await call('create-base', { token: user.auth, body: { spaceId: 'spc0000000000000000' } });
    expect(unknown).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: 'Space spc0000000000000000 not found' },
    });
    const spaceId = await createSpace(user);
    await call('delete-space', { token: user.auth, params: { spaceId } });
    const trashed = await call('create-base', { token: user.auth, body: { spaceId } });
    expect(trashed).toMatchObject({ status: 404, body: { message: `Space ${spaceId} not found` } });
  });

  it.each([
    ['no spaceId', { spaceId: undefined }],
    ['a malformed spaceId', { spaceId: 'spc123' }],
    ['a base id as spaceId', { spaceId: UNKNOWN_BASE }],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name over 255 characters', { name: 'n'.repeat(256) }],
    ['a name that is not a string', { name: 7 }],
    ['an icon over 100 characters', { icon: 'i'.repeat(101) }],
    ['an icon that is not a string', { icon: 5 }],
  ])('answers 400 validation_error for %s and creates nothing', async (_, fields) => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const res = await call('create-base', { token: user.auth, body: { spaceId, ...fields } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error', message: expect.any(String) });
    expect((await call('list-bases', { token: user.auth, params: { spaceId } })).body).toEqual([]);
  });

  it('answers 400 for invalid JSON', async () => {
    const user = await newUser();
    const res = await call('create-base', { token: user.auth, rawBody: '{"spaceId":' });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('answers 401 without a token', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const res = await call('create-base', { body: { spaceId } });
    expect(res).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });
});

describe('GET /space/{spaceId}/base', () => {
  it("lists only the space's bases, oldest first", async () => {
    const user = await newUser();
    const [spaceId, other] = [await createSpace(user, 'Mine'), await createSpace(user, 'Other')];
    const first = await createBase(user, spaceId, { name: 'First' });
    await createBase(user, other, { name: 'Elsewhere' });
    const second = await createBase(user, spaceId, { name: 'Second', icon: '📦' });

    const res = await call('list-bases', { token: user.auth, params: { spaceId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([first, second]);
  });

  it('answers an empty list for a space without bases', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    expect(await call('list-bases', { token: user.auth, params: { spaceId } })).toMatchObject({
      status: 200,
      body: [],
    });
  });

  it('leaves out bases in the trash and bases deleted for good', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const kept = await createBase(user, spaceId, { name: 'Kept' });
    const trashed = await createBase(user, spaceId, { name: 'Trashed' });
    const gone = await createBase(user, spaceId, { name: 'Gone' });
    await call('delete-base', { token: user.auth, params: { baseId: trashed.id } });
    await call('delete-base-permanently', { token: user.auth, params: { baseId: gone.id } });
    await drainPurges();
    const res = await call('list-bases', { token: user.auth, params: { spaceId } });
    expect(res.body).toEqual([kept]);
  });

  it.each(['viewer', 'commenter', 'editor', 'creator'] as const)('lets a %s list the bases', async (role) => {
    const roles = await baseWithRoles();
    const res = await call('list-bases', { token: roles[role].auth, params: { spaceId: roles.spaceId } });
    expect(res).toMatchObject({ status: 200, body: [{ id: roles.baseId, name: 'Main' }] });
  });

  it('answers 403 to a user outside the space and 404 for an unknown space', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    await createBase(owner, spaceId);
    expect(await call('list-bases', { token: stranger.auth, params: { spaceId } })).toMatchObject({
      status: 403,
      body: { message: `not a collaborator of space ${spaceId}` },
    });
    expect(
      await call('list-bases', { token: owner.auth, params: { spaceId: 'spc0000000000000000' } }),
    ).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers 400 for a malformed space id', async () => {
    const user = await newUser();
    const res = await call('list-bases', { token: user.auth, params: { spaceId: UNKNOWN_BASE } });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(res.body.message).toContain('spaceId');
  });
});

describe('GET /base/{baseId}', () => {
  it.each(['owner', 'creator', 'editor', 'commenter', 'viewer'] as const)(
    "answers the base to a %s, with the caller's role (Teable's web app shows what it may do by it)",
    async (role) => {
      const roles = await baseWithRoles();
      const res = await call('get-base', { token: roles[role].auth, params: { baseId: roles.baseId } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: roles.baseId,
        name: 'Main',
        icon: null,
        spaceId: roles.spaceId,
        role,
        collaboratorType: 'space',
      });
    },
  );

  it('answers 403 to a user outside the space', async () => {
    const roles = await baseWithRoles();
    const stranger = await newUser();
    const res = await call('get-base', { token: stranger.auth, params: { baseId: roles.baseId } });
    expect(res).toMatchObject({
      status: 403,
      body: {
        status: 403,
        code: 'restricted_resource',
        message: `not a collaborator of the space that holds ${roles.baseId}`,
      },
    });
  });

  it('answers 404 not_found for an unknown well-formed id', async () => {
    const user = await newUser();
    const res = await call('get-base', { token: user.auth, params: { baseId: UNKNOWN_BASE } });
    expect(res).toMatchObject(notFound(UNKNOWN_BASE));
  });

  it.each(['nope', 'spc0000000000000000', 'bse000', 'bse00000000000000-0'])(
    'answers 400 validation_error for the malformed id %s',
    async (baseId) => {
      const user = await newUser();
      const res = await call('get-base', { token: user.auth, params: { baseId } });
      expect(res).toMatchObject({ status: 400, body: { status: 400, code: 'validation_error' } });
      expect(res.body.message).toContain('baseId');
    },
  );

  it('answers 401 without a token', async () => {
    const roles = await baseWithRoles();
    const res = await call('get-base', { params: { baseId: roles.baseId } });
    expect(res).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });
});

describe('PATCH /base/{baseId}', () => {
  it('renames the base and the space list shows the new name', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId, spaceId } = roles;
    const res = await call('update-base', {
      token: owner.auth,
      params: { baseId },
      body: { name: ' Renamed ' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: baseId, name: 'Renamed', icon: null, spaceId });
    expect((await call('get-base', { token: owner.auth, params: { baseId } })).body).toEqual({
      ...res.body,
      role: 'owner',
      collaboratorType: 'space',
    });
    expect((await call('list-bases', { token: owner.auth, params: { spaceId } })).body).toEqual([res.body]);
  });

  it('changes the icon alone, keeping the name, and clears it with null', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const base = await createBase(user, spaceId, { name: 'Keep', icon: 'a' });
    const set = await call('update-base', {
      token: user.auth,
      params: { baseId: base.id },
      body: { icon: 'b' },
    });
    expect(set.body).toEqual({ ...base, icon: 'b' });
    expect((await call('list-bases', { token: user.auth, params: { spaceId } })).body).toEqual([set.body]);
    const cleared = await call('update-base', {
      token: user.auth,
      params: { baseId: base.id },
      body: { icon: null },
    });
    expect(cleared.body).toEqual({ ...base, icon: null });
    expect((await call('get-base', { token: user.auth, params: { baseId: base.id } })).body).toEqual({
      ...cleared.body,
      role: 'owner',
      collaboratorType: 'space',
    });
    expect((await call('list-bases', { token: user.auth, params: { spaceId } })).body).toEqual([
      cleared.body,
    ]);
  });

  it('lets a creator rename a base', async () => {
    const roles = await baseWithRoles();
    const res = await call('update-base', {
      token: roles.creator.auth,
      params: { baseId: roles.baseId },
      body: { name: 'By creator' },
    });
    expect(res).toMatchObject({ status: 200, body: { name: 'By creator' } });
  });

  it.each(['editor', 'commenter', 'viewer'] as const)(
    'answers 403 naming base|update to a %s and keeps the name',
    async (role) => {
      const roles = await baseWithRoles();
      const res = await call('update-base', {
        token: roles[role].auth,
        params: { baseId: roles.baseId },
        body: { name: 'Hijacked' },
      });
      expect(res).toMatchObject(forbidden('base|update', roles.baseId));
      const got = await call('get-base', { token: roles.owner.auth, params: { baseId: roles.baseId } });
      expect(got.body.name).toBe('Main');
    },
  );

  it('answers 403 to a user outside the space', async () => {
    const roles = await baseWithRoles();
    const stranger = await newUser();
    const res = await call('update-base', {
      token: stranger.auth,
      params: { baseId: roles.baseId },
      body: { name: 'X' },
    });
    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
  });

  it('answers 404 for an unknown base', async () => {
    const user = await newUser();
    const res = await call('update-base', {
      token: user.auth,
      params: { baseId: UNKNOWN_BASE },
      body: { name: 'X' },
    });
    expect(res).toMatchObject(notFound(UNKNOWN_BASE));
  });

  it.each([
    ['an empty body', {}],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '  ' }],
    ['a null name', { name: null }],
    ['a name over 255 characters', { name: 'n'.repeat(256) }],
    ['an icon over 100 characters', { icon: 'i'.repeat(101) }],
    ['an array body', []],
  ])('answers 400 validation_error for %s and changes nothing', async (_, body) => {
    const roles = await baseWithRoles();
    const res = await call('update-base', {
      token: roles.owner.auth,
      params: { baseId: roles.baseId },
      body,
    });
    expect(res).toMatchObject({ status: 400, body: { status: 400, code: 'validation_error' } });
    const got = await call('get-base', { token: roles.owner.auth, params: { baseId: roles.baseId } });
    expect(got.body).toEqual({
      id: roles.baseId,
      name: 'Main',
      icon: null,
      spaceId: roles.spaceId,
      role: 'owner',
      collaboratorType: 'space',
    });
  });

  it('answers 400 for a malformed base id', async () => {
    const user = await newUser();
    const res = await call('update-base', {
      token: user.auth,
      params: { baseId: 'bse1' },
      body: { name: 'X' },
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });
});

describe('DELETE /base/{baseId}', () => {
  it('moves the base to the trash: 404 on GET, PATCH and DELETE, absent from the list, for everyone', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId, spaceId } = roles;
    const res = await call('delete-base', { token: owner.auth, params: { baseId } });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    for (const user of [roles.owner, roles.creator, roles.editor, roles.commenter, roles.viewer]) {
      expect(await call('get-base', { token: user.auth, params: { baseId } })).toMatchObject(
        notFound(baseId),
      );
      expect(
        await call('update-base', { token: user.auth, params: { baseId }, body: { name: 'X' } }),
      ).toMatchObject(notFound(baseId));
      expect((await call('list-bases', { token: user.auth, params: { spaceId } })).body).toEqual([]);
    }
    const stranger = await newUser();
    expect(await call('get-base', { token: stranger.auth, params: { baseId } })).toMatchObject(
      notFound(baseId),
    );
  });

  it('answers 404 to a second DELETE', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId } = roles;
    expect((await call('delete-base', { token: owner.auth, params: { baseId } })).status).toBe(200);
    expect(await call('delete-base', { token: owner.auth, params: { baseId } })).toMatchObject(
      notFound(baseId),
    );
  });

  it('lets a creator move a base to the trash', async () => {
    const roles = await baseWithRoles();
    const res = await call('delete-base', { token: roles.creator.auth, params: { baseId: roles.baseId } });
    expect(res.status).toBe(200);
    expect(
      await call('get-base', { token: roles.owner.auth, params: { baseId: roles.baseId } }),
    ).toMatchObject(notFound(roles.baseId));
  });

  it.each(['editor', 'commenter', 'viewer'] as const)(
    'answers 403 naming base|delete to a %s and keeps the base',
    async (role) => {
      const roles = await baseWithRoles();
      const res = await call('delete-base', { token: roles[role].auth, params: { baseId: roles.baseId } });
      expect(res).toMatchObject(forbidden('base|delete', roles.baseId));
      expect(
        (await call('get-base', { token: roles.owner.auth, params: { baseId: roles.baseId } })).status,
      ).toBe(200);
    },
  );

  it('answers 403 to a user outside the space', async () => {
    const roles = await baseWithRoles();
    const stranger = await newUser();
    const res = await call('delete-base', { token: stranger.auth, params: { baseId: roles.baseId } });
    expect(res).toMatchObject({
      status: 403,
      body: {
        code: 'restricted_resource',
        message: `not a collaborator of the space that holds ${roles.baseId}`,
      },
    });
  });

  it('answers 404 for an unknown base and 400 for a malformed id', async () => {
    const user = await newUser();
    expect(await call('delete-base', { token: user.auth, params: { baseId: UNKNOWN_BASE } })).toMatchObject(
      notFound(UNKNOWN_BASE),
    );
    expect(await call('delete-base', { token: user.auth, params: { baseId: 'x' } })).toMatchObject({
      status: 400,
      body: { code: 'validation_error' },
    });
  });
});

describe('bases of a space in the trash', () => {
  it('answers 404 on every base route but the permanent delete', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId, spaceId } = roles;
    expect((await call('delete-space', { token: owner.auth, params: { spaceId } })).status).toBe(200);

    expect(await call('get-base', { token: owner.auth, params: { baseId } })).toMatchObject(notFound(baseId));
    expect(
      await call('update-base', { token: owner.auth, params: { baseId }, body: { name: 'X' } }),
    ).toMatchObject(notFound(baseId));
    expect(await call('delete-base', { token: owner.auth, params: { baseId } })).toMatchObject(
      notFound(baseId),
    );
    expect(await call('list-bases', { token: owner.auth, params: { spaceId } })).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: `Space ${spaceId} not found` },
    });
    expect(await call('create-base', { token: owner.auth, body: { spaceId } })).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
  });
});

describe('DELETE /base/{baseId}/permanent', () => {
  it('leaves no item of the base, its tables, records or views in the table', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId, spaceId } = roles;
    const other = await createBase(owner, spaceId, { name: 'Other' });
    // 3 × (ref + table + field + view) + records: 30 × 3 items (more than one batch write)
    const tables = [await seedTable(baseId, 30), await seedTable(baseId, 0), await seedTable(baseId, 1)];
    const otherTable = await seedTable(other.id, 2);
    const ids = [baseId, ...tables.flatMap((t) => [t.tableId, t.viewId])];
    // the base item, the space's reference, and every table's items
    expect(await itemsMentioning(...ids)).toHaveLength(2 + tables.reduce((n, t) => n + t.count, 0));

    const res = await call('delete-base-permanently', { token: owner.auth, params: { baseId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    expect(await itemsMentioning(...ids)).toEqual([]);
    expect(await call('get-base', { token: owner.auth, params: { baseId } })).toMatchObject(notFound(baseId));
    expect((await call('list-bases', { token: owner.auth, params: { spaceId } })).body).toEqual([other]);
    // the other base of the space is untouched
    expect(await itemsMentioning(other.id, otherTable.tableId, otherTable.viewId)).toHaveLength(
      2 + otherTable.count,
    );
  });

  it('deletes a base that is already in the trash', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId } = roles;
    await seedTable(baseId, 2);
    await call('delete-base', { token: owner.auth, params: { baseId } });
    const res = await call('delete-base-permanently', { token: owner.auth, params: { baseId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(await itemsMentioning(baseId)).toEqual([]);
  });

  it('finishes the work when repeated after an interruption (base marked, tables partly purged)', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId, spaceId } = roles;
    const table = await seedTable(baseId, 3);
    // what an interrupted run leaves: both items marked deleted, a table's records already gone
    await call('delete-base', { token: owner.auth, params: { baseId } });
    const { purgePartition } = await import('#shared/entities/purges.ts');
    await purgePartition(keys.recordsOf(table.tableId).pk);

    const res = await call('delete-base-permanently', { token: owner.auth, params: { baseId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(await itemsMentioning(baseId, table.tableId, table.viewId)).toEqual([]);
    expect((await call('list-bases', { token: owner.auth, params: { spaceId } })).body).toEqual([]);
  });

  it('answers 404 when the base is already gone', async () => {
    const roles = await baseWithRoles();
    const { owner, baseId } = roles;
    expect((await call('delete-base-permanently', { token: owner.auth, params: { baseId } })).status).toBe(
      200,
    );
    await drainPurges();
    expect(await call('delete-base-permanently', { token: owner.auth, params: { baseId } })).toMatchObject(
      notFound(baseId),
    );
  });

  it('lets a creator delete a base for good', async () => {
    const roles = await baseWithRoles();
    const res = await call('delete-base-permanently', {
      token: roles.creator.auth,
      params: { baseId: roles.baseId },
    });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(await itemsMentioning(roles.baseId)).toEqual([]);
  });

  it.each(['editor', 'commenter', 'viewer'] as const)(
    'answers 403 naming base|delete to a %s and deletes nothing',
    async (role) => {
      const roles = await baseWithRoles();
      const res = await call('delete-base-permanently', {
        token: roles[role].auth,
        params: { baseId: roles.baseId },
      });
      await drainPurges();
      expect(res).toMatchObject(forbidden('base|delete', roles.baseId));
      expect(await itemsMentioning(roles.baseId)).toHaveLength(2);
    },
  );

  it('answers 403 to a user outside the space, also when the base is in the trash', async () => {
    const roles = await baseWithRoles();
    await call('delete-base', { token: roles.owner.auth, params: { baseId: roles.baseId } });
    const stranger = await newUser();
    const res = await call('delete-base-permanently', {
      token: stranger.auth,
      params: { baseId: roles.baseId },
    });
    await drainPurges();
    expect(res).toMatchObject({
      status: 403,
      body: {
        code: 'restricted_resource',
        message: `not a collaborator of the space that holds ${roles.baseId}`,
      },
    });
    expect(await itemsMentioning(roles.baseId)).toHaveLength(2);
  });

  it('answers 404 for an unknown base and 400 for a malformed id', async () => {
    const user = await newUser();
    expect(
      await call('delete-base-permanently', { token: user.auth, params: { baseId: UNKNOWN_BASE } }),
    ).toMatchObject(notFound(UNKNOWN_BASE));
    expect(
      await call('delete-base-permanently', { token: user.auth, params: { baseId: 'tbl0000000000000000' } }),
    ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });
});

describe('DELETE /space/{spaceId}/permanent with bases', () => {
  it('deletes every base of the space and their tables for good', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user);
    const live = await createBase(user, spaceId);
    const trashed = await createBase(user, spaceId);
    const tables = [await seedTable(live.id, 2), await seedTable(trashed.id, 1)];
    await call('delete-base', { token: user.auth, params: { baseId: trashed.id } });

    const res = await call('delete-space-permanently', { token: user.auth, params: { spaceId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(
      await itemsMentioning(spaceId, live.id, trashed.id, ...tables.flatMap((t) => [t.tableId, t.viewId])),
    ).toEqual([]);
  });
});
