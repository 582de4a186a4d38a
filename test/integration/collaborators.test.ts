import { describe, expect, it } from 'vitest';
import type { Role } from '#shared/auth/scopes.ts';
import { newId } from '#shared/ids.ts';
import { forbidden, invalid } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { addMember, createSpace, spaceWithRoles } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;

const invite = (caller: User, spaceId: string, users: { id: string }[], role: Role) =>
  call('add-collaborators', {
    token: caller.auth,
    params: { spaceId },
    body: { collaborators: users.map((u) => ({ principalId: u.id, principalType: 'user' })), role },
  });

const setRole = (caller: User, spaceId: string, userId: string, role: Role) =>
  call('update-collaborator', {
    token: caller.auth,
    params: { spaceId },
    body: { principalId: userId, principalType: 'user', role },
  });

const remove = (caller: User, spaceId: string, userId: string) =>
  call('remove-collaborator', {
    token: caller.auth,
    params: { spaceId },
    query: `principalId=${userId}&principalType=user`,
  });

const collaborators = async (caller: User, spaceId: string) => {
  const res = await call('list-collaborators', { token: caller.auth, params: { spaceId } });
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(res.body.collaborators.length);
  expect(res.body.uniqTotal).toBe(res.body.total);
  return res.body.collaborators as { userId: string; userName: string; email: string; role: Role }[];
};

const roleOf = async (owner: User, spaceId: string, userId: string) =>
  (await collaborators(owner, spaceId)).find((c) => c.userId === userId)?.role;

const entry = (user: User, role: Role) => ({
  userId: user.id,
  userName: user.name,
  email: user.email,
  role,
  avatar: null,
  createdTime: expect.any(String),
  type: 'user',
  resourceType: 'space',
});

const unreadCount = async (user: User): Promise<number> => {
  const res = await call('count-unread-notifications', { token: user.auth });
  expect(res.status).toBe(200);
  return res.body.unreadCount as number;
};

const notificationsOf = async (user: User) => {
  const res = await call('list-notifications', { token: user.auth });
  expect(res.status).toBe(200);
  return res.body.notifications as Record<string, unknown>[];
};

const lastOwner = (spaceId: string) => invalid(`Space ${spaceId} must keep at least one owner`);

/** A space owned by Olga, with Carl a creator, Edda an editor and Vera a viewer. */
const staffedSpace = () =>
  spaceWithRoles(['creator', 'editor', 'viewer'], {
    owner: 'Olga Owner',
    creator: 'Carl Creator',
    editor: 'Edda Editor',
    viewer: 'Vera Viewer',
  });

describe('GET /space/{spaceId}/collaborators', () => {
  it('lists every collaborator with name, email and role, owners first then by name', async () => {
    const [owner, zed, amy, bob] = await Promise.all([
      newUser({ name: 'Olga' }),
      newUser({ name: 'Zed' }),
      newUser({ name: 'Amy' }),
      newUser({ name: 'Bob' }),
    ]);
    const spaceId = await createSpace(owner);
    await addMember(owner, spaceId, zed, 'editor');
    await addMember(owner, spaceId, bob, 'viewer');
    await addMember(owner, spaceId, amy, 'editor');

    expect(await collaborators(owner, spaceId)).toEqual([
      entry(owner, 'owner'),
      entry(amy, 'editor'),
      entry(zed, 'editor'),
      entry(bob, 'viewer'),
    ]);
  });

  it('is readable by a viewer and answers 403 to a stranger', async () => {
    const roles = await staffedSpace();
    const stranger = await newUser();
    const asViewer = await call('list-collaborators', {
      token: roles.viewer.auth,
      params: { spaceId: roles.spaceId },
    });
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.collaborators).toHaveLength(4);
    expect(asViewer.body.total).toBe(4);
    const asStranger = await call('list-collaborators', {
      token: stranger.auth,
      params: { spaceId: roles.spaceId },
    });
    expect(asStranger).toMatchObject(forbidden(`not a collaborator of space ${roles.spaceId}`));
  });
});

describe('POST /space/{spaceId}/collaborators', () => {
  it('adds users with the role, notifies each once and shows them the space', async () => {
    const [owner, ann, ben] = await Promise.all([newUser({ name: 'Olga' }), newUser(), newUser()]);
    const spaceId = await createSpace(owner, 'Launch');

    const res = await invite(owner, spaceId, [ann, ben], 'editor');
    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();

    expect(await collaborators(owner, spaceId)).toEqual(
      expect.arrayContaining([entry(ann, 'editor'), entry(ben, 'editor')]),
    );
    expect(await collaborators(owner, spaceId)).toHaveLength(3);
    for (const user of [ann, ben]) {
      expect(await unreadCount(user)).toBe(1);
      expect(await notificationsOf(user)).toEqual([
        {
          id: expect.stringMatching(/^not[0-9A-Za-z]{16}$/),
          notifyType: 'system',
          notifyIcon: { userId: owner.id, userName: 'Olga' },
          message: 'Olga added you to the space Launch as editor',
          url: `/space/${spaceId}`,
          isRead: false,
          createdTime: expect.any(String),
        },
      ]);
      const spaces = await call('list-spaces', { token: user.auth });
      expect(spaces.body).toEqual([{ id: spaceId, name: 'Launch', role: 'editor' }]);
      const got = await call('get-space', { token: user.auth, params: { spaceId } });
      expect(got).toMatchObject({ status: 200, body: { id: spaceId, role: 'editor' } });
    }
  });

  it('does not duplicate or renotify an existing collaborator, nor change its role', async () => {
    const [owner, ann, ben] = await Promise.all([newUser(), newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    await addMember(owner, spaceId, ann, 'viewer');

    const again = await invite(owner, spaceId, [ann], 'editor');
    expect(again.status).toBe(201);
    const mixed = await invite(owner, spaceId, [ann, ben, ben], 'editor');
    expect(mixed.status).toBe(201);

    const list = await collaborators(owner, spaceId);
    expect(list).toHaveLength(3);
    expect(list.filter((c) => c.userId === ann.id)).toEqual([entry(ann, 'viewer')]);
    expect(list.filter((c) => c.userId === ben.id)).toEqual([entry(ben, 'editor')]);
    expect(await unreadCount(ann)).toBe(1);
    expect(await notificationsOf(ann)).toHaveLength(1);
    expect(await unreadCount(ben)).toBe(1);
    expect(await notificationsOf(ben)).toHaveLength(1);
  });

  it('does not add or notify anyone when the caller invites itself', async () => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const res = await invite(owner, spaceId, [owner], 'viewer');
    expect(res.status).toBe(201);
    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
    expect(await unreadCount(owner)).toBe(0);
  });

  it('answers 404 for an unknown user and adds none of the listed users', async () => {
    const [owner, ann] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const ghost = newId('user');

    const res = await invite(owner, spaceId, [ann, { id: ghost }], 'editor');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, code: 'not_found', message: `User ${ghost} not found` });

    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
    expect(await unreadCount(ann)).toBe(0);
    expect(await notificationsOf(ann)).toEqual([]);
    expect((await call('list-spaces', { token: ann.auth })).body).toEqual([]);
    expect((await call('get-space', { token: ann.auth, params: { spaceId } })).status).toBe(403);
  });

  it('answers 400 for more than 20 users and adds nobody', async () => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const users = await Promise.all(Array.from({ length: 21 }, () => newUser()));
    const res = await invite(owner, spaceId, users, 'viewer');
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(res.body.message).toContain('collaborators');
    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
  });

  it('adds 20 users in one call, each notified once', async () => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const users = await Promise.all(Array.from({ length: 20 }, () => newUser()));
    const res = await invite(owner, spaceId, users, 'viewer');
    expect(res.status).toBe(201);
    expect(await collaborators(owner, spaceId)).toHaveLength(21);
    const counts = await Promise.all(users.map(unreadCount));
    expect(counts).toEqual(users.map(() => 1));
  });

  it.each([
    ['no collaborators', { collaborators: [], role: 'viewer' }],
    ['no role', { collaborators: [{ principalId: 'usr0000000000000000', principalType: 'user' }] }],
    [
      'an unknown role',
      { collaborators: [{ principalId: 'usr0000000000000000', principalType: 'user' }], role: 'admin' },
    ],
    [
      'a principalType other than user',
      {
        collaborators: [{ principalId: 'usr0000000000000000', principalType: 'department' }],
        role: 'viewer',
      },
    ],
    [
      'a malformed user id',
      { collaborators: [{ principalId: 'bob', principalType: 'user' }], role: 'viewer' },
    ],
  ])('answers 400 for %s', async (_, body) => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const res = await call('add-collaborators', { token: owner.auth, params: { spaceId }, body });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('lets a creator invite editors and creators', async () => {
    const roles = await staffedSpace();
    const [ann, ben] = await Promise.all([newUser(), newUser()]);
    expect((await invite(roles.creator, roles.spaceId, [ann], 'editor')).status).toBe(201);
    expect((await invite(roles.creator, roles.spaceId, [ben], 'creator')).status).toBe(201);
    expect(await roleOf(roles.owner, roles.spaceId, ann.id)).toBe('editor');
    expect(await roleOf(roles.owner, roles.spaceId, ben.id)).toBe('creator');
  });

  it('answers 403 to a creator inviting an owner, and adds nobody', async () => {
    const roles = await staffedSpace();
    const ann = await newUser();
    const res = await invite(roles.creator, roles.spaceId, [ann], 'owner');
    expect(res).toMatchObject(forbidden('a creator cannot grant the role owner'));
    expect(await roleOf(roles.owner, roles.spaceId, ann.id)).toBeUndefined();
    expect(await unreadCount(ann)).toBe(0);
  });

  it.each(['editor', 'viewer'] as const)('answers 403 naming space|invite to the %s', async (role) => {
    const roles = await staffedSpace();
    const ann = await newUser();
    const res = await invite(roles[role], roles.spaceId, [ann], 'viewer');
    expect(res).toMatchObject(forbidden(`not allowed to operate space|invite on ${roles.spaceId}`));
    expect(await roleOf(roles.owner, roles.spaceId, ann.id)).toBeUndefined();
  });

  it('answers 403 to a stranger', async () => {
    const [owner, stranger, ann] = await Promise.all([newUser(), newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const res = await invite(stranger, spaceId, [ann], 'viewer');
    expect(res).toMatchObject(forbidden(`not a collaborator of space ${spaceId}`));
  });

  it('lets an owner add another owner', async () => {
    const [owner, ann] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    expect((await invite(owner, spaceId, [ann], 'owner')).status).toBe(201);
    expect(await roleOf(owner, spaceId, ann.id)).toBe('owner');
    // Two owners now: the first may step down.
    expect((await setRole(owner, spaceId, owner.id, 'viewer')).status).toBe(200);
  });
});

describe('PATCH /space/{spaceId}/collaborators', () => {
  it("lets the owner change a collaborator's role everywhere it shows", async () => {
    const roles = await staffedSpace();
    const res = await setRole(roles.owner, roles.spaceId, roles.editor.id, 'viewer');
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    expect(await roleOf(roles.owner, roles.spaceId, roles.editor.id)).toBe('viewer');
    const got = await call('get-space', { token: roles.editor.auth, params: { spaceId: roles.spaceId } });
    expect(got.body.role).toBe('viewer');
    const list = await call('list-spaces', { token: roles.editor.auth });
    expect(list.body).toEqual([{ id: roles.spaceId, name: 'Team', role: 'viewer' }]);
    // The new role applies at once: a viewer cannot invite.
    const ann = await newUser();
    expect((await invite(roles.editor, roles.spaceId, [ann], 'viewer')).status).toBe(403);
  });

  it.each(['creator', 'editor', 'viewer'] as const)('answers 403 to a %s', async (role) => {
    const roles = await staffedSpace();
    const res = await setRole(roles[role], roles.spaceId, roles.viewer.id, 'editor');
    expect(res).toMatchObject(forbidden(`not allowed to operate space|grant_role on ${roles.spaceId}`));
    expect(await roleOf(roles.owner, roles.spaceId, roles.viewer.id)).toBe('viewer');
  });

  it('answers 400 for demoting the last owner, who stays owner', async () => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const res = await setRole(owner, spaceId, owner.id, 'editor');
    expect(res).toMatchObject(lastOwner(spaceId));
    expect(await roleOf(owner, spaceId, owner.id)).toBe('owner');
    const got = await call('get-space', { token: owner.auth, params: { spaceId } });
    expect(got.body.role).toBe('owner');
  });

  it('lets one of two owners be demoted, and then not the other', async () => {
    const [owner, second] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    await addMember(owner, spaceId, second, 'viewer');
    expect((await setRole(owner, spaceId, second.id, 'owner')).status).toBe(200);

    expect((await setRole(second, spaceId, owner.id, 'creator')).status).toBe(200);
    expect(await roleOf(second, spaceId, owner.id)).toBe('creator');
    expect(await setRole(second, spaceId, second.id, 'editor')).toMatchObject(lastOwner(spaceId));
    expect(await roleOf(second, spaceId, second.id)).toBe('owner');
  });

  it('answers 200 and changes nothing when the role is the same', async () => {
    const roles = await staffedSpace();
    const res = await setRole(roles.owner, roles.spaceId, roles.owner.id, 'owner');
    expect(res.status).toBe(200);
    expect(await setRole(roles.owner, roles.spaceId, roles.owner.id, 'viewer')).toMatchObject(
      lastOwner(roles.spaceId),
    );
  });

  it('answers 404 for a user who is not a collaborator', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const res = await setRole(owner, spaceId, stranger.id, 'viewer');
    expect(res).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: `Collaborator ${stranger.id} not found in space ${spaceId}` },
    });
    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
  });

  it.each([
    ['an unknown role', { principalId: 'usr0000000000000000', principalType: 'user', role: 'admin' }],
    ['no principalId', { principalType: 'user', role: 'viewer' }],
    ['a malformed principalId', { principalId: 'x', principalType: 'user', role: 'viewer' }],
  ])('answers 400 for %s', async (_, body) => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const res = await call('update-collaborator', { token: owner.auth, params: { spaceId }, body });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });
});

describe('DELETE /space/{spaceId}/collaborators', () => {
  it('lets the owner remove a member, who loses access at once', async () => {
    const roles = await staffedSpace();
    const res = await remove(roles.owner, roles.spaceId, roles.editor.id);
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();

    expect(await roleOf(roles.owner, roles.spaceId, roles.editor.id)).toBeUndefined();
    expect(await collaborators(roles.owner, roles.spaceId)).toHaveLength(3);
    const got = await call('get-space', { token: roles.editor.auth, params: { spaceId: roles.spaceId } });
    expect(got).toMatchObject(forbidden(`not a collaborator of space ${roles.spaceId}`));
    expect((await call('list-spaces', { token: roles.editor.auth })).body).toEqual([]);
  });

  it.each(['creator', 'editor', 'viewer'] as const)('lets a %s remove itself', async (role) => {
    const roles = await staffedSpace();
    const res = await remove(roles[role], roles.spaceId, roles[role].id);
    expect(res.status).toBe(200);
    expect(await roleOf(roles.owner, roles.spaceId, roles[role].id)).toBeUndefined();
    const got = await call('get-space', { token: roles[role].auth, params: { spaceId: roles.spaceId } });
    expect(got.status).toBe(403);
  });

  it.each(['creator', 'editor', 'viewer'] as const)(
    'answers 403 to a %s removing someone else',
    async (role) => {
      const roles = await staffedSpace();
      const target = role === 'viewer' ? roles.editor : roles.viewer;
      const res = await remove(roles[role], roles.spaceId, target.id);
      expect(res).toMatchObject(forbidden(`not allowed to operate space|grant_role on ${roles.spaceId}`));
      expect(await roleOf(roles.owner, roles.spaceId, target.id)).toBeDefined();
    },
  );

  it('answers 400 for removing the last owner, who stays', async () => {
    const roles = await staffedSpace();
    const res = await remove(roles.owner, roles.spaceId, roles.owner.id);
    expect(res).toMatchObject(lastOwner(roles.spaceId));
    expect(await roleOf(roles.owner, roles.spaceId, roles.owner.id)).toBe('owner');
  });

  it('lets one of two owners leave, and then not the other', async () => {
    const [owner, second] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    await addMember(owner, spaceId, second, 'owner');
    expect((await remove(owner, spaceId, owner.id)).status).toBe(200);
    expect(await collaborators(second, spaceId)).toEqual([entry(second, 'owner')]);
    expect(await remove(second, spaceId, second.id)).toMatchObject(lastOwner(spaceId));
  });

  it('lets an owner remove another owner', async () => {
    const [owner, second] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    await addMember(owner, spaceId, second, 'owner');
    expect((await remove(owner, spaceId, second.id)).status).toBe(200);
    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
    expect(await setRole(owner, spaceId, owner.id, 'editor')).toMatchObject(lastOwner(spaceId));
  });

  it('answers 404 for a user who is not a collaborator', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const res = await remove(owner, spaceId, stranger.id);
    expect(res).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: `Collaborator ${stranger.id} not found in space ${spaceId}` },
    });
  });

  it.each([
    ['no principalId', 'principalType=user'],
    ['no principalType', 'principalId=usr0000000000000000'],
    ['a malformed principalId', 'principalId=nobody&principalType=user'],
    ['a principalType other than user', 'principalId=usr0000000000000000&principalType=department'],
    ['no query', ''],
  ])('answers 400 for %s', async (_, query) => {
    const owner = await newUser();
    const spaceId = await createSpace(owner);
    const res = await call('remove-collaborator', { token: owner.auth, params: { spaceId }, query });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(await collaborators(owner, spaceId)).toEqual([entry(owner, 'owner')]);
  });

  it('answers 403 to a stranger removing itself', async () => {
    const [owner, stranger] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(owner);
    const res = await remove(stranger, spaceId, stranger.id);
    expect(res).toMatchObject(forbidden(`not a collaborator of space ${spaceId}`));
  });
});

describe('concurrent role changes', () => {
  const owners = async (caller: User, spaceId: string) =>
    (await collaborators(caller, spaceId)).filter((c) => c.role === 'owner').map((c) => c.userId);

  /** Two owners of a fresh space. */
  const twoOwners = async () => {
    const [a, b] = await Promise.all([newUser(), newUser()]);
    const spaceId = await createSpace(a);
    await addMember(a, spaceId, b, 'owner');
    return { a, b, spaceId };
  };

  it.each([1, 2, 3, 4, 5])('two owners demoting each other at once leave an owner (round %i)', async () => {
    const { a, b, spaceId } = await twoOwners();
    const results = await Promise.all([
      setRole(a, spaceId, b.id, 'editor'),
      setRole(b, spaceId, a.id, 'editor'),
    ]);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
    // 403 when one demotion lands before the other request is authenticated: its caller is no
    // longer an owner by then
    for (const s of statuses) expect([200, 400, 403, 409]).toContain(s);

    const [remaining, ...others] = await owners(a, spaceId);
    expect(remaining).toBeDefined();
    expect(others).toEqual([]);
    const survivor = remaining === a.id ? a : b;
    // The owner counter agrees with the members: the survivor is the last owner.
    expect(await setRole(survivor, spaceId, survivor.id, 'viewer')).toMatchObject(lastOwner(spaceId));
  });

  it.each([1, 2, 3])('two owners removing each other at once leave an owner (round %i)', async () => {
    const { a, b, spaceId } = await twoOwners();
    const results = await Promise.all([remove(a, spaceId, b.id), remove(b, spaceId, a.id)]);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
    // 403 when one removal lands before the other request is authenticated: its caller is no
    // longer a member by then (as with demotions above)
    for (const s of statuses) expect([200, 400, 403, 409]).toContain(s);
    if (statuses.includes(403)) expect(statuses).toContain(200);

    // Whoever removed the other (or either, when both lost) is still in the space.
    const caller = statuses[1] === 200 ? b : a;
    const remaining = await owners(caller, spaceId);
    expect(remaining).toContain(caller.id);
    expect(remaining).toHaveLength(statuses.includes(200) ? 1 : 2);
    if (remaining.length === 1)
      expect(await remove(caller, spaceId, caller.id)).toMatchObject(lastOwner(spaceId));
  });
});
