import { describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { error } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { bearer, createToken } from '#test/support/tokens.ts';
import { addMember, createSpace, createUnnamedSpace, spaceWithRoles } from '#test/support/workspace.ts';

/** A well-formed space id that no space has. */
const UNKNOWN_SPACE = 'spc0000000000000000';

/** A space owned by a fresh user, with a creator, an editor and a viewer. */
const staffedSpace = () => spaceWithRoles(['creator', 'editor', 'viewer']);

/** Every item of the table that belongs to the space: its partition and the users' mirrors. */
const itemsOfSpace = (spaceId: string) => itemsMentioning(spaceId);

const notFound = (spaceId: string) => error(404, 'not_found', `Space ${spaceId} not found`);

describe('POST /space', () => {
  it('answers 201 with the id and name, and makes the caller its owner', async () => {
    const user = await newUser();
    const res = await call('create-space', { token: user.auth, body: { name: 'Marketing' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^spc[0-9A-Za-z]{16}$/), name: 'Marketing' });

    const got = await call('get-space', { token: user.auth, params: { spaceId: res.body.id } });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: res.body.id, name: 'Marketing', role: 'owner' });
  });

  it('names spaces Space, Space 2, Space 3 per user without a name', async () => {
    const user = await newUser();
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('create-space', { token: user.auth, body: {} });
      expect(res.status).toBe(201);
      names.push(res.body.name);
    }
    expect(names).toEqual(['Space', 'Space 2', 'Space 3']);
  });

  it('names a space Space when the body is absent', async () => {
    const user = await newUser();
    const res = await call('create-space', { token: user.auth });
    expect(res).toMatchObject({ status: 201, body: { name: 'Space' } });
  });

  it("does not count another user's spaces for the default name", async () => {
    const [other, user] = await Promise.all([newUser(), newUser()]);
    await createUnnamedSpace(other);
    await createUnnamedSpace(other);
    const res = await call('create-space', { token: user.auth, body: {} });
    expect(res).toMatchObject({ status: 201, body: { name: 'Space' } });
  });

  it("does not count another user's space shared with the caller for the default name", async () => {
    const [other, user] = await Promise.all([newUser(), newUser()]);
    const shared = await createUnnamedSpace(other);
    await addMember(other, shared, user, 'owner');
    const res = await call('create-space', { token: user.auth, body: {} });
    expect(res).toMatchObject({ status: 201, body: { name: 'Space' } });
    const again = await call('create-space', { token: user.auth, body: {} });
    expect(again).toMatchObject({ status: 201, body: { name: 'Space 2' } });
  });

  it('keeps an explicit name even when a space of the caller has it', async () => {
    const user = await newUser();
    await createSpace(user, 'Same');
    const res = await call('create-space', { token: user.auth, body: { name: 'Same' } });
    expect(res).toMatchObject({ status: 201, body: { name: 'Same' } });
    const unnamed = await call('create-space', { token: user.auth, body: {} });
    expect(unnamed).toMatchObject({ status: 201, body: { name: 'Space' } });
  });

  it('keeps an explicit name as given, trimmed', async () => {
    const user = await newUser();
    const res = await call('create-space', { token: user.auth, body: { name: '  Ünïcode  space 🚀  ' } });
    expect(res).toMatchObject({ status: 201, body: { name: 'Ünïcode  space 🚀' } });
  });

  it('accepts an explicit name of 255 characters', async () => {
    const user = await newUser();
    const name = 'n'.repeat(255);
    const res = await call('create-space', { token: user.auth, body: { name } });
    expect(res).toMatchObject({ status: 201, body: { name } });
  });

  it.each([
    ['an empty name', { body: { name: '' } }],
    ['a blank name', { body: { name: '   ' } }],
    ['a name over 255 characters', { body: { name: 'n'.repeat(256) } }],
    ['a name that is not a string', { body: { name: 42 } }],
    ['an array body', { body: [] }],
    ['a string body', { body: 'Space' }],
    ['a null body', { rawBody: 'null' }],
    ['invalid JSON', { rawBody: '{"name":' }],
  ])('answers 400 validation_error for %s and creates nothing', async (_, options) => {
    const user = await newUser();
    const res = await call('create-space', { token: user.auth, ...options });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error', message: expect.any(String) });
    const list = await call('list-spaces', { token: user.auth });
    expect(list.body).toEqual([]);
  });
});

describe('GET /space', () => {
  it("lists only the caller's spaces, oldest first, with the role", async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const first = await createSpace(user, 'First');
    await createSpace(other, 'Not mine');
    const second = await createSpace(user, 'Second');
    const shared = await createSpace(other, 'Shared with me');
    await addMember(other, shared, user, 'editor');

    const res = await call('list-spaces', { token: user.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: first, name: 'First', role: 'owner' },
      { id: second, name: 'Second', role: 'owner' },
      { id: shared, name: 'Shared with me', role: 'editor' },
    ]);
  });

  it('answers an empty list for a user without spaces', async () => {
    const user = await newUser();
    const res = await call('list-spaces', { token: user.auth });
    expect(res).toMatchObject({ status: 200, body: [] });
  });

  it('leaves out a trashed space', async () => {
    const user = await newUser();
    const kept = await createSpace(user, 'Kept');
    const trashed = await createSpace(user, 'Trashed');
    expect((await call('delete-space', { token: user.auth, params: { spaceId: trashed } })).status).toBe(200);

    const res = await call('list-spaces', { token: user.auth });
    expect(res.body).toEqual([{ id: kept, name: 'Kept', role: 'owner' }]);
  });
});

describe('GET /space with a limited token', () => {
  /** A user with three spaces (one shared with them as editor) and a base in each. */
  const threeSpaces = async () => {
    const [user, other] = await Promise.all([newUser(), newUser()]);
    const a = await createSpace(user, 'A');
    const b = await createSpace(user, 'B');
    const c = await createSpace(other, 'C');
    await addMember(other, c, user, 'editor');
    const base = async (owner: typeof user, spaceId: string) =>
      (await call('create-base', { token: owner.auth, body: { spaceId } })).body.id as string;
    return {
      user,
      a,
      b,
      c,
      baseA: await base(user, a),
      baseB: await base(user, b),
      baseC: await base(other, c),
    };
  };
  type Spaces = Awaited<ReturnType<typeof threeSpaces>>;

  /** `GET /space` with a token of the user carrying space|read and `limits`. */
  const listedWith = async (w: Spaces, limits: Record<string, string[]>) => {
    const token = await createToken(w.user, { scopes: ['space|read'], ...limits });
    const res = await call('list-spaces', { token: bearer(token.token) });
    expect(res.status).toBe(200);
    return res.body as { id: string; name: string; role: string }[];
  };

  it.each<[string, (w: Spaces) => Record<string, string[]>, (w: Spaces) => string[]]>([
    ['one of its spaces: that space alone', (w) => ({ spaceIds: [w.b] }), (w) => [w.b]],
    ['a shared space: that space alone', (w) => ({ spaceIds: [w.c] }), (w) => [w.c]],
    ['a base: the space that holds it', (w) => ({ baseIds: [w.baseB] }), (w) => [w.b]],
    [
      'a space and a base of another space: both spaces',
      (w) => ({ spaceIds: [w.a], baseIds: [w.baseC] }),
      (w) => [w.a, w.c],
    ],
    ['a space the user is not in: nothing', () => ({ spaceIds: [UNKNOWN_SPACE] }), () => []],
  ])('a token limited to %s', async (_, limits, expected) => {
    const w = await threeSpaces();

    const listed = await listedWith(w, limits(w));

    expect(listed.map((s) => s.id)).toEqual(expected(w));
  });

  it('lists a limited space as the unlimited token does (name and role)', async () => {
    const w = await threeSpaces();

    expect(await listedWith(w, { spaceIds: [w.c] })).toEqual([{ id: w.c, name: 'C', role: 'editor' }]);
  });

  it('leaves out the space of a base in the trash (the token reaches nothing there)', async () => {
    const w = await threeSpaces();
    expect((await call('delete-base', { token: w.user.auth, params: { baseId: w.baseB } })).status).toBe(200);

    expect(await listedWith(w, { baseIds: [w.baseB] })).toEqual([]);
  });

  it("a temporary token lists the spaces of its parent's limits", async () => {
    const w = await threeSpaces();
    const parent = await createToken(w.user, { scopes: ['space|read'], spaceIds: [w.a] });
    const temp = await call('create-temp-token', { token: bearer(parent.token) });

    const res = await call('list-spaces', { token: bearer(temp.body.accessToken as string) });

    expect(res.body.map((s: { id: string }) => s.id)).toEqual([w.a]);
  });
});

describe('GET /space/{spaceId}', () => {
  it('answers 200 with id, name, role and createdTime', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user, 'Mine');
    const res = await call('get-space', { token: user.auth, params: { spaceId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: spaceId, name: 'Mine', role: 'owner', createdTime: expect.any(String) });
    expect(new Date(res.body.createdTime).toISOString()).toBe(res.body.createdTime);
  });

  it.each(['creator', 'editor', 'viewer'] as const)('answers the role %s to a collaborator', async (role) => {
    const roles = await staffedSpace();
    const res = await call('get-space', { token: roles[role].auth, params: { spaceId: roles.spaceId } });
    expect(res).toMatchObject({ status: 200, body: { id: roles.spaceId, role } });
  });

  it('answers 404 not_found for an unknown well-formed id', async () => {
    const user = await newUser();
    const res = await call('get-space', { token: user.auth, params: { spaceId: UNKNOWN_SPACE } });
    expect(res).toEqual({ ...notFound(UNKNOWN_SPACE), headers: expect.any(Object) });
  });

  it.each(['nope', 'bse0000000000000000', 'spc000', 'spc00000000000000-0'])(
    'answers 400 validation_error for the malformed id %s',
    async (spaceId) => {
      const user = await newUser();
      const res = await call('get-space', { token: user.auth, params: { spaceId } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
      expect(res.body.message).toContain('spaceId');
    },
  );

  it('answers 403 restricted_resource for a space the caller does not belong to', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createUnnamedSpace(owner);
    const res = await call('get-space', { token: stranger.auth, params: { spaceId } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      status: 403,
      code: 'restricted_resource',
      message: `not a collaborator of space ${spaceId}`,
    });
  });

  it('answers 401 without a token', async () => {
    const user = await newUser();
    const spaceId = await createUnnamedSpace(user);
    const res = await call('get-space', { params: { spaceId } });
    expect(res).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });
});

describe('PATCH /space/{spaceId}', () => {
  it('lets the owner rename the space', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user, 'Old');
    const res = await call('update-space', {
      token: user.auth,
      params: { spaceId },
      body: { name: ' New ' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: spaceId, name: 'New' });
    const got = await call('get-space', { token: user.auth, params: { spaceId } });
    expect(got.body.name).toBe('New');
  });

  it.each(['creator', 'editor', 'viewer'] as const)(
    'answers 403 to a %s and keeps the name',
    async (role) => {
      const roles = await staffedSpace();
      const res = await call('update-space', {
        token: roles[role].auth,
        params: { spaceId: roles.spaceId },
        body: { name: 'Hijacked' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        status: 403,
        code: 'restricted_resource',
        message: `not allowed to operate space|update on ${roles.spaceId}`,
      });
      const got = await call('get-space', { token: roles.owner.auth, params: { spaceId: roles.spaceId } });
      expect(got.body.name).toBe('Team');
    },
  );

  it('answers 403 to a user outside the space', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createUnnamedSpace(owner);
    const res = await call('update-space', {
      token: stranger.auth,
      params: { spaceId },
      body: { name: 'X' },
    });
    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
  });

  it.each([
    ['an empty name', { name: '' }],
    ['no name', {}],
    ['a name over 255 characters', { name: 'n'.repeat(256) }],
  ])('answers 400 for %s', async (_, body) => {
    const user = await newUser();
    const spaceId = await createSpace(user, 'Old');
    const res = await call('update-space', { token: user.auth, params: { spaceId }, body });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('answers 404 for a trashed space', async () => {
    const user = await newUser();
    const spaceId = await createSpace(user, 'Old');
    await call('delete-space', { token: user.auth, params: { spaceId } });
    const res = await call('update-space', { token: user.auth, params: { spaceId }, body: { name: 'New' } });
    expect(res).toMatchObject(notFound(spaceId));
  });

  it('answers 404 for an unknown space', async () => {
    const user = await newUser();
    const res = await call('update-space', {
      token: user.auth,
      params: { spaceId: UNKNOWN_SPACE },
      body: { name: 'New' },
    });
    expect(res).toMatchObject(notFound(UNKNOWN_SPACE));
  });
});

describe('DELETE /space/{spaceId}', () => {
  it.each(['creator', 'editor', 'viewer'] as const)(
    'answers 403 to a %s and keeps the space',
    async (role) => {
      const roles = await staffedSpace();
      const res = await call('delete-space', { token: roles[role].auth, params: { spaceId: roles.spaceId } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        status: 403,
        code: 'restricted_resource',
        message: `not allowed to operate space|delete on ${roles.spaceId}`,
      });
      const got = await call('get-space', { token: roles.owner.auth, params: { spaceId: roles.spaceId } });
      expect(got.status).toBe(200);
    },
  );

  it('moves the space to the trash: 404 for everyone on GET, PATCH and collaborators', async () => {
    const roles = await staffedSpace();
    const { spaceId, owner } = roles;
    const res = await call('delete-space', { token: owner.auth, params: { spaceId } });
    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toBeUndefined();

    for (const user of [roles.owner, roles.creator, roles.editor, roles.viewer]) {
      expect(await call('get-space', { token: user.auth, params: { spaceId } })).toMatchObject(
        notFound(spaceId),
      );
      expect(
        await call('update-space', { token: user.auth, params: { spaceId }, body: { name: 'X' } }),
      ).toMatchObject(notFound(spaceId));
      expect(await call('list-collaborators', { token: user.auth, params: { spaceId } })).toMatchObject(
        notFound(spaceId),
      );
      const list = await call('list-spaces', { token: user.auth });
      expect(list.body).toEqual([]);
    }
    const stranger = await newUser();
    expect(await call('get-space', { token: stranger.auth, params: { spaceId } })).toMatchObject(
      notFound(spaceId),
    );
    expect(
      await call('add-collaborators', {
        token: owner.auth,
        params: { spaceId },
        body: { collaborators: [{ principalId: stranger.id, principalType: 'user' }], role: 'viewer' },
      }),
    ).toMatchObject(notFound(spaceId));
  });

  it('answers 404 to a second DELETE', async () => {
    const user = await newUser();
    const spaceId = await createUnnamedSpace(user);
    expect((await call('delete-space', { token: user.auth, params: { spaceId } })).status).toBe(200);
    const again = await call('delete-space', { token: user.auth, params: { spaceId } });
    expect(again).toMatchObject(notFound(spaceId));
  });

  it('frees the default name: the next unnamed space is Space again', async () => {
    const user = await newUser();
    const spaceId = await createUnnamedSpace(user);
    await call('delete-space', { token: user.auth, params: { spaceId } });
    const res = await call('create-space', { token: user.auth, body: {} });
    expect(res).toMatchObject({ status: 201, body: { name: 'Space' } });
  });
});

describe('DELETE /space/{spaceId}/permanent', () => {
  it('leaves no item of the space in the table', async () => {
    const roles = await staffedSpace();
    const { spaceId, owner } = roles;
    // space + 4 members + 4 mirrors
    expect(await itemsOfSpace(spaceId)).toHaveLength(9);

    const res = await call('delete-space-permanently', { token: owner.auth, params: { spaceId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    expect(await itemsOfSpace(spaceId)).toEqual([]);
    for (const user of [roles.owner, roles.creator, roles.editor, roles.viewer]) {
      expect(await call('get-space', { token: user.auth, params: { spaceId } })).toMatchObject(
        notFound(spaceId),
      );
      expect((await call('list-spaces', { token: user.auth })).body).toEqual([]);
    }
  });

  it('empties a space with more members than one batch write holds', async () => {
    const owner = await newUser();
    const spaceId = await createUnnamedSpace(owner);
    const members = await Promise.all(Array.from({ length: 20 }, () => newUser()));
    const res = await call('add-collaborators', {
      token: owner.auth,
      params: { spaceId },
      body: {
        collaborators: members.map((m) => ({ principalId: m.id, principalType: 'user' })),
        role: 'editor',
      },
    });
    expect(res.status).toBe(201);
    expect(await itemsOfSpace(spaceId)).toHaveLength(43);

    expect((await call('delete-space-permanently', { token: owner.auth, params: { spaceId } })).status).toBe(
      200,
    );
    await drainPurges();
    expect(await itemsOfSpace(spaceId)).toEqual([]);
    expect((await call('list-spaces', { token: members[0]?.auth })).body).toEqual([]);
  });

  it('deletes a space that is already in the trash', async () => {
    const user = await newUser();
    const spaceId = await createUnnamedSpace(user);
    await call('delete-space', { token: user.auth, params: { spaceId } });
    const res = await call('delete-space-permanently', { token: user.auth, params: { spaceId } });
    await drainPurges();
    expect(res.status).toBe(200);
    expect(await itemsOfSpace(spaceId)).toEqual([]);
  });

  it('answers 404 when the space is already gone', async () => {
    const user = await newUser();
    const spaceId = await createUnnamedSpace(user);
    await call('delete-space-permanently', { token: user.auth, params: { spaceId } });
    await drainPurges();
    const again = await call('delete-space-permanently', { token: user.auth, params: { spaceId } });
    await drainPurges();
    expect(again).toMatchObject(notFound(spaceId));
  });

  it.each(['creator', 'editor', 'viewer'] as const)(
    'answers 403 to a %s and deletes nothing',
    async (role) => {
      const roles = await staffedSpace();
      const res = await call('delete-space-permanently', {
        token: roles[role].auth,
        params: { spaceId: roles.spaceId },
      });
      await drainPurges();
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        status: 403,
        code: 'restricted_resource',
        message: `not allowed to operate space|delete on ${roles.spaceId}`,
      });
      expect(await itemsOfSpace(roles.spaceId)).toHaveLength(9);
    },
  );

  it('answers 403 to a user outside the space, also when it is in the trash', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createUnnamedSpace(owner);
    await call('delete-space', { token: owner.auth, params: { spaceId } });
    const res = await call('delete-space-permanently', { token: stranger.auth, params: { spaceId } });
    await drainPurges();
    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
    expect(await itemsOfSpace(spaceId)).toHaveLength(3);
  });
});
