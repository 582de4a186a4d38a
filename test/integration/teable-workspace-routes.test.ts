import { describe, expect, it } from 'vitest';
import { SCOPES } from '#shared/auth/scopes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { forbidden, ISO, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable, newWorkspace } from '#test/support/workspace.ts';

const future = () => new Date(Date.now() + 86_400_000).toISOString();

const baseNames = async (token: string, spaceId: string) =>
  (await call('list-bases', { token, params: { spaceId } })).body.map((b: { name: string }) => b.name);

describe('POST /space/{spaceId}/collaborator', () => {
  it('adds users like the plural route', async () => {
    const ws = await newWorkspace();
    const ann = await newUser({ name: 'Ann' });
    const res = await call('add-collaborator', {
      token: ws.owner.auth,
      params: { spaceId: ws.spaceId },
      body: { collaborators: [{ principalId: ann.id, principalType: 'user' }], role: 'editor' },
    });
    expect(res.status).toBe(201);
    const list = await call('list-collaborators', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    expect(list.body.collaborators.map((c: { userId: string; role: string }) => [c.userId, c.role])).toEqual([
      [ws.owner.id, 'owner'],
      [ann.id, 'editor'],
    ]);
  });

  it('refuses a bad body (400) and an editor (403)', async () => {
    const ws = await newWorkspace();
    const editor = await newMember(ws, 'editor');
    expect(
      await call('add-collaborator', {
        token: ws.owner.auth,
        params: { spaceId: ws.spaceId },
        body: { role: 'x' },
      }),
    ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const res = await call('add-collaborator', {
      token: editor.auth,
      params: { spaceId: ws.spaceId },
      body: { collaborators: [{ principalId: editor.id, principalType: 'user' }], role: 'viewer' },
    });
    expect(res).toMatchObject(forbidden(`not allowed to operate space|invite on ${ws.spaceId}`));
  });
});

describe('GET /space/{spaceId}/collaborators and GET /base/{baseId}/collaborators', () => {
  it('answers {collaborators, total, uniqTotal} with the client fields, paged and searched', async () => {
    const ws = await newWorkspace();
    const viewer = await newMember(ws, 'viewer');
    const space = await call('list-collaborators', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    expect(space.status).toBe(200);
    expect(space.body).toEqual({
      collaborators: [
        {
          userId: ws.owner.id,
          userName: ws.owner.name,
          email: ws.owner.email,
          role: 'owner',
          avatar: null,
          createdTime: expect.stringMatching(ISO),
          type: 'user',
          resourceType: 'space',
        },
        expect.objectContaining({ userId: viewer.id, role: 'viewer' }),
      ],
      total: 2,
      uniqTotal: 2,
    });
    const base = await call('list-base-collaborators', {
      token: viewer.auth,
      params: { baseId: ws.baseId },
      query: 'skip=1&take=1',
    });
    expect(base.body).toEqual({ collaborators: [space.body.collaborators[1]], total: 2, uniqTotal: 2 });
    const searched = await call('list-base-collaborators', {
      token: viewer.auth,
      params: { baseId: ws.baseId },
      query: `search=${encodeURIComponent(viewer.email)}`,
    });
    expect(searched.body.collaborators.map((c: { userId: string }) => c.userId)).toEqual([viewer.id]);
    expect(searched.body.total).toBe(1);
  });

  it('refuses a bad take (400) and an unknown base (404)', async () => {
    const ws = await newWorkspace();
    const bad = await call('list-base-collaborators', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      query: 'take=x',
    });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(
      await call('list-base-collaborators', {
        token: ws.owner.auth,
        params: { baseId: 'bse0000000000000000' },
      }),
    ).toMatchObject(notFound('Base bse0000000000000000 not found'));
  });
});

describe('GET /base/{baseId}/collaborators/users', () => {
  it('answers the users a user cell may hold, by name', async () => {
    const ws = await newWorkspace();
    const zed = await newUser({ name: 'Zed' });
    const amy = await newUser({ name: 'Amy' });
    for (const u of [zed, amy])
      await call('add-collaborators', {
        token: ws.owner.auth,
        params: { spaceId: ws.spaceId },
        body: { collaborators: [{ principalId: u.id, principalType: 'user' }], role: 'viewer' },
      });
    const res = await call('list-base-collaborator-users', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      query: 'orderBy=desc&take=2',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      users: [
        { id: zed.id, name: 'Zed', email: zed.email, avatar: null },
        { id: ws.owner.id, name: ws.owner.name, email: ws.owner.email, avatar: null },
      ],
      total: 3,
    });
    const bad = await call('list-base-collaborator-users', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      query: 'orderBy=up',
    });
    expect(bad.status).toBe(400);
  });
});

describe('PUT /base/{baseId}/order', () => {
  it('moves a base before or after another of its space', async () => {
    const ws = await newWorkspace();
    await call('update-base', { token: ws.owner.auth, params: { baseId: ws.baseId }, body: { name: 'A' } });
    const b = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId, name: 'B' } });
    const c = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId, name: 'C' } });
    const move = (baseId: string, anchorId: string, position: string) =>
      call('update-base-order', { token: ws.owner.auth, params: { baseId }, body: { anchorId, position } });
    const moved = await move(c.body.id, b.body.id, 'before');
    expect(moved).toMatchObject({ status: 200, body: undefined });
    expect(await baseNames(ws.owner.auth, ws.spaceId)).toEqual(['A', 'C', 'B']);
    expect((await move(ws.baseId, b.body.id, 'after')).status).toBe(200);
    expect(await baseNames(ws.owner.auth, ws.spaceId)).toEqual(['C', 'B', 'A']);
    await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId, name: 'D' } });
    expect(await baseNames(ws.owner.auth, ws.spaceId)).toEqual(['C', 'B', 'A', 'D']);
  });

  it('refuses itself as anchor (400), an unknown anchor (404) and a bad position (400)', async () => {
    const ws = await newWorkspace();
    const move = (anchorId: string, position = 'before') =>
      call('update-base-order', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId },
        body: { anchorId, position },
      });
    expect(await move(ws.baseId)).toMatchObject(
      invalid(`Base ${ws.baseId} cannot be moved relative to itself`),
    );
    expect(await move('bse0000000000000000')).toMatchObject(notFound('Anchor bse0000000000000000 not found'));
    expect((await move('bse0000000000000000', 'middle')).status).toBe(400);
  });
});

describe('GET /base/access/all', () => {
  it("lists the bases of the caller's spaces within the token's limits", async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    const viewer = await newMember(ws, 'viewer');
    await newMember(other, 'viewer');
    const res = await call('list-accessible-bases', { token: viewer.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: ws.baseId,
        name: expect.any(String),
        spaceId: ws.spaceId,
        icon: null,
        role: 'viewer',
        collaboratorType: 'space',
      },
    ]);
    const second = await call('create-base', {
      token: ws.owner.auth,
      body: { spaceId: ws.spaceId, name: 'Two' },
    });
    const { token } = await createOperatorToken(ws.owner.id, {
      name: 'limited',
      scopes: ['base|read'],
      baseIds: [second.body.id],
      expiredTime: future(),
    });
    const limited = await call('list-accessible-bases', { token: `Bearer ${token}` });
    expect(limited.body.map((b: { id: string }) => b.id)).toEqual([second.body.id]);
  });
});

describe('GET /base/{baseId}/permission and GET …/table/{tableId}/permission', () => {
  it("answers every action, allowed or not, for the caller's role and token", async () => {
    const t = await newTable();
    const editor = await newMember(t, 'editor');
    const base = await call('get-base-permission', { token: editor.auth, params: { baseId: t.baseId } });
    expect(base.status).toBe(200);
    expect(Object.keys(base.body).sort()).toEqual([...SCOPES].sort());
    expect(base.body).toMatchObject({ 'base|read': true, 'base|update': false, 'record|create': true });
    const table = await call('get-table-permission', {
      token: editor.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(table.status).toBe(200);
    expect(table.body).toEqual({
      table: { 'table|create': false, 'table|read': true, 'table|update': false, 'table|delete': false },
      view: { 'view|create': true, 'view|read': true, 'view|update': true, 'view|delete': true },
      // flat, as Teable's client has it, and per field, as Teable 1.5's web app reads it
      field: {
        'field|create': false,
        'field|read': true,
        'field|update': false,
        'field|delete': false,
        fields: Object.fromEntries(
          t.table.fields.map((f: { id: string }) => [
            f.id,
            { 'field|read': true, 'field|update': false, 'field|delete': false },
          ]),
        ),
        create: false,
      },
      record: {
        'record|create': true,
        'record|read': true,
        'record|update': true,
        'record|delete': true,
        'record|comment': true,
      },
    });
    const { token } = await createOperatorToken(t.owner.id, {
      name: 'read only',
      scopes: ['table|read', 'base|read'],
      expiredTime: future(),
    });
    const narrow = await call('get-table-permission', {
      token: `Bearer ${token}`,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(narrow.body.table).toEqual({
      'table|create': false,
      'table|read': true,
      'table|update': false,
      'table|delete': false,
    });
    expect(
      await call('get-table-permission', {
        token: t.owner.auth,
        params: { baseId: 'bse0000000000000000', tableId: t.tableId },
      }),
    ).toMatchObject({ status: 404 });
  });
});

describe('PUT /base/{baseId}/table/{tableId}/name, icon, description, db-table-name, order', () => {
  it('changes each and answers empty', async () => {
    const t = await newTable({ name: 'First' });
    const p = { baseId: t.baseId, tableId: t.tableId };
    for (const [handler, body] of [
      ['update-table-name', { name: 'Renamed' }],
      ['update-table-icon', { icon: '🚀' }],
      ['update-table-description', { description: 'About' }],
      ['update-table-db-table-name', { dbTableName: 'renamed_t' }],
    ] as const) {
      const res = await call(handler, { token: t.owner.auth, params: p, body });
      expect(res).toMatchObject({ status: 200, body: undefined });
    }
    const got = await call('get-table', { token: t.owner.auth, params: p });
    expect(got.body).toMatchObject({
      name: 'Renamed',
      icon: '🚀',
      description: 'About',
      dbTableName: 'renamed_t',
    });
    await call('update-table-description', { token: t.owner.auth, params: p, body: { description: null } });
    expect((await call('get-table', { token: t.owner.auth, params: p })).body.description).toBeNull();
  });

  it('refuses bad input (400) and a table of another base (404)', async () => {
    const t = await newTable();
    const other = await newTable();
    const p = { baseId: t.baseId, tableId: t.tableId };
    expect(
      await call('update-table-name', { token: t.owner.auth, params: p, body: { name: '' } }),
    ).toMatchObject({
      status: 400,
      body: { code: 'validation_error' },
    });
    expect(
      await call('update-table-db-table-name', {
        token: t.owner.auth,
        params: p,
        body: { dbTableName: '1x' },
      }),
    ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(
      await call('update-table-name', {
        token: other.owner.auth,
        params: { baseId: other.baseId, tableId: t.tableId },
        body: { name: 'x' },
      }),
    ).toMatchObject({ status: 403 });
  });

  it('moves a table before or after another table', async () => {
    const t = await newTable({ name: 'A' });
    const b = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'B' },
    });
    const c = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'C' },
    });
    const names = async () =>
      (await call('list-tables', { token: t.owner.auth, params: { baseId: t.baseId } })).body.map(
        (x: { name: string }) => x.name,
      );
    const move = (tableId: string, anchorId: string, position: string) =>
      call('update-table-order', {
        token: t.owner.auth,
        params: { baseId: t.baseId, tableId },
        body: { anchorId, position },
      });
    expect(await move(c.body.id, t.tableId, 'before')).toMatchObject({ status: 200, body: undefined });
    expect(await names()).toEqual(['C', 'A', 'B']);
    expect((await move(c.body.id, b.body.id, 'after')).status).toBe(200);
    expect(await names()).toEqual(['A', 'B', 'C']);
    expect(await move(t.tableId, t.tableId, 'after')).toMatchObject(
      invalid(`Table ${t.tableId} cannot be moved relative to itself`),
    );
    expect(await move(t.tableId, 'tbl0000000000000000', 'after')).toMatchObject(
      notFound('Anchor tbl0000000000000000 not found'),
    );
  });
});

describe('access tokens: PUT and GET /access-token/{id}', () => {
  it('replaces the fields, clearing what the body leaves out, and reads the token back', async () => {
    const user = await newUser();
    const created = await call('create-access-token', {
      token: user.auth,
      body: {
        name: 'Old',
        description: 'd',
        scopes: ['space|read'],
        spaceIds: ['spc0000000000000001'],
        expiredTime: future(),
      },
    });
    const res = await call('replace-access-token', {
      token: user.auth,
      params: { accessTokenId: created.body.id },
      body: { name: 'New', scopes: ['base|read', 'base|read'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      name: 'New',
      description: null,
      scopes: ['base|read'],
      spaceIds: null,
      baseIds: null,
      hasFullAccess: true,
    });
    const got = await call('get-access-token', {
      token: user.auth,
      params: { accessTokenId: created.body.id },
    });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...res.body, lastUsedTime: got.body.lastUsedTime });
    expect(got.body).not.toHaveProperty('token');
    const listed = await call('list-access-tokens', { token: user.auth });
    expect(listed.body.find((t: { id: string }) => t.id === created.body.id)).toMatchObject({
      hasFullAccess: true,
    });
    const limited = await call('create-access-token', {
      token: user.auth,
      body: { name: 'L', scopes: ['space|read'], spaceIds: ['spc0000000000000001'], expiredTime: future() },
    });
    const again = await call('list-access-tokens', { token: user.auth });
    expect(again.body.find((t: { id: string }) => t.id === limited.body.id)).toMatchObject({
      hasFullAccess: false,
    });
  });

  it("answers 404 for another user's token and keeps the ceiling", async () => {
    const [ann, ben] = await Promise.all([newUser(), newUser()]);
    const bens = await call('create-access-token', {
      token: ben.auth,
      body: { name: 'B', scopes: ['space|read'], expiredTime: future() },
    });
    expect(
      await call('get-access-token', { token: ann.auth, params: { accessTokenId: bens.body.id } }),
    ).toMatchObject(notFound(`Access token ${bens.body.id} not found`));
    const { token: narrow } = await createOperatorToken(ann.id, {
      name: 'narrow',
      scopes: ['space|read'],
      expiredTime: future(),
    });
    // within the narrow token's lifetime (a token gives no later expiry than its own, issue 27)
    const target = await call('create-access-token', {
      token: `Bearer ${narrow}`,
      body: {
        name: 'T',
        scopes: ['space|read'],
        expiredTime: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(target.status, JSON.stringify(target.body)).toBe(201);
    const widened = await call('replace-access-token', {
      token: `Bearer ${narrow}`,
      params: { accessTokenId: target.body.id },
      body: { name: 'T', scopes: ['space|read', 'space|delete'] },
    });
    expect(widened).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
    const still = await call('get-access-token', {
      token: ann.auth,
      params: { accessTokenId: target.body.id },
    });
    expect(still.body.scopes).toEqual(['space|read']);
    expect(
      await call('replace-access-token', {
        token: ann.auth,
        params: { accessTokenId: target.body.id },
        body: { name: 'T', scopes: [], spaceIds: [] },
      }),
    ).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(
      await call('replace-access-token', {
        token: ann.auth,
        params: { accessTokenId: target.body.id },
        body: { name: 'T', scopes: ['space|read'], hasFullAccess: true, spaceIds: ['spc0000000000000001'] },
      }),
    ).toMatchObject(invalid('hasFullAccess: true cannot go with spaceIds or baseIds'));
  });
});

describe('GET /auth/user, GET /auth/user/me and PATCH /user/name', () => {
  it('answers the user with the client fields', async () => {
    const user = await newUser({ name: 'Ada' });
    expect((await call('get-user-info', { token: user.auth })).body).toEqual({
      id: user.id,
      name: 'Ada',
      avatar: null,
      email: user.email,
    });
    expect((await call('get-current-user', { token: user.auth })).body).toEqual({
      id: user.id,
      name: 'Ada',
      avatar: null,
      email: user.email,
      notifyMeta: { email: false },
      hasPassword: false,
      isAdmin: false,
    });
  });

  it('renames the caller everywhere it is read: profile and collaborator lists', async () => {
    const ws = await newWorkspace();
    const res = await call('rename-user', { token: ws.owner.auth, body: { name: 'Renamed Owner' } });
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect((await call('get-user-info', { token: ws.owner.auth })).body.name).toBe('Renamed Owner');
    const list = await call('list-collaborators', { token: ws.owner.auth, params: { spaceId: ws.spaceId } });
    expect(list.body.collaborators[0].userName).toBe('Renamed Owner');
    expect(await call('rename-user', { token: ws.owner.auth, body: { name: ' ' } })).toMatchObject({
      status: 400,
      body: { code: 'validation_error' },
    });
  });
});

describe('GET /trash and /trash/items: userMap and resourceMap', () => {
  it('names who deleted and what', async () => {
    const t = await newTable({ name: 'Gone' });
    await call('delete-table', { token: t.owner.auth, params: { baseId: t.baseId, tableId: t.tableId } });
    const items = await call('list-trash-items', {
      token: t.owner.auth,
      query: `resourceType=base&resourceId=${t.baseId}`,
    });
    expect(items.status).toBe(200);
    expect(items.body.userMap).toEqual({
      [t.owner.id]: { id: t.owner.id, name: t.owner.name, email: t.owner.email, avatar: null },
    });
    expect(items.body.resourceMap).toEqual({ [t.tableId]: { id: t.tableId, name: 'Gone' } });
    await call('delete-base', { token: t.owner.auth, params: { baseId: t.baseId } });
    const trash = await call('list-trash', { token: t.owner.auth, query: 'resourceType=base' });
    expect(trash.body.resourceMap[t.baseId]).toEqual({
      id: t.baseId,
      name: expect.any(String),
      spaceId: t.spaceId,
    });
    expect(Object.keys(trash.body.userMap)).toEqual([t.owner.id]);
  });
});

describe('PUT /base/{baseId}/move', () => {
  it('moves a base with its tables to another space, placed last', async () => {
    const t = await newTable({ name: 'Kept', records: [{ fields: { Name: 'r1' } }] });
    const gone = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Old' },
    });
    await call('delete-table', { token: t.owner.auth, params: { baseId: t.baseId, tableId: gone.body.id } });
    const target = await call('create-space', { token: t.owner.auth, body: { name: 'Target' } });
    const spaceId = target.body.id as string;
    await call('create-base', { token: t.owner.auth, body: { spaceId, name: 'Resident' } });
    const res = await call('move-base', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { spaceId },
    });
    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(await baseNames(t.owner.auth, t.spaceId)).toEqual([]);
    const listed = await call('list-bases', { token: t.owner.auth, params: { spaceId } });
    expect(listed.body.map((b: { id: string; name: string }) => b.name === 'Resident' || b.id)).toEqual([
      true,
      t.baseId,
    ]);
    expect((await call('get-base', { token: t.owner.auth, params: { baseId: t.baseId } })).body.spaceId).toBe(
      spaceId,
    );
    const records = await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(records.body.records.map((r: { name: string }) => r.name)).toEqual(['r1']);
    // A member of the old space only loses the base; one of the new space gains it.
    const newcomer = await newMember({ owner: t.owner, spaceId }, 'viewer');
    expect(
      (await call('get-table', { token: newcomer.auth, params: { baseId: t.baseId, tableId: t.tableId } }))
        .status,
    ).toBe(200);
    const restored = await call('list-trash-items', {
      token: t.owner.auth,
      query: `resourceType=base&resourceId=${t.baseId}`,
    });
    const trashId = restored.body.trashItems[0].id as string;
    expect((await call('restore-trash-item', { token: newcomer.auth, params: { trashId } })).status).toBe(
      403,
    );
    expect((await call('restore-trash-item', { token: t.owner.auth, params: { trashId } })).status).toBe(201);
  });

  it('needs base|create in the target space, and the target must exist', async () => {
    const ws = await newWorkspace();
    const other = await newWorkspace();
    await call('add-collaborators', {
      token: other.owner.auth,
      params: { spaceId: other.spaceId },
      body: { collaborators: [{ principalId: ws.owner.id, principalType: 'user' }], role: 'editor' },
    });
    const move = (spaceId: string) =>
      call('move-base', { token: ws.owner.auth, params: { baseId: ws.baseId }, body: { spaceId } });
    expect(await move(other.spaceId)).toMatchObject(
      forbidden(`not allowed to operate base|create on ${other.spaceId}`),
    );
    expect(await move('spc0000000000000000')).toMatchObject(notFound('Space spc0000000000000000 not found'));
    expect((await move('nope')).status).toBe(400);
    expect(await baseNames(ws.owner.auth, ws.spaceId)).toHaveLength(1);
    const creator = await newMember(ws, 'creator');
    const byCreator = await call('move-base', {
      token: creator.auth,
      params: { baseId: ws.baseId },
      body: { spaceId: other.spaceId },
    });
    expect(byCreator).toMatchObject(forbidden(`not allowed to operate space|update on ${ws.baseId}`));
  });
});
