import { describe, expect, it } from 'vitest';
import { SCOPES } from '#shared/auth/scopes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { future } from '#test/support/route-requests.ts';
import { addMember, newWorkspace } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;
type PinType = 'space' | 'base';

const list = (user: User) => call('list-pins', { token: user.auth });
const pin = (user: User, type: PinType, id: string) =>
  call('add-pin', { token: user.auth, body: { type, id } });
const unpin = (user: User, type: PinType, id: string) =>
  call('delete-pin', { token: user.auth, query: `type=${type}&id=${id}` });
const move = (user: User, what: [PinType, string], position: 'before' | 'after', anchor: [PinType, string]) =>
  call('update-pin-order', {
    token: user.auth,
    body: { type: what[0], id: what[1], anchorType: anchor[0], anchorId: anchor[1], position },
  });

/** The ids of the user's pins, in the list's order (the list answered 200). */
const pinnedIds = async (user: User): Promise<string[]> => {
  const res = await list(user);
  expect(res.status).toBe(200);
  return res.body.map((p: { id: string }) => p.id);
};

/** A user with a space `S` and three bases in it, named B1, B2, B3. */
const ownerOfThreeBases = async () => {
  const ws = await newWorkspace();
  await call('update-base', { token: ws.owner.auth, params: { baseId: ws.baseId }, body: { name: 'B1' } });
  const more: string[] = [];
  for (const name of ['B2', 'B3']) {
    const res = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId, name } });
    expect(res.status).toBe(201);
    more.push(res.body.id);
  }
  return { ...ws, baseIds: [ws.baseId, ...more] as [string, string, string] };
};

describe('POST /pin and GET /pin/list', () => {
  it('answers an empty list for a user without pins', async () => {
    const user = await newUser();
    expect(await list(user)).toMatchObject({ status: 200, body: [] });
  });

  it('pins a space and a base last each time, listed in that order with their names and a base icon', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await call('update-base', { token: owner.auth, params: { baseId }, body: { name: 'Plans', icon: '📐' } });

    const first = await pin(owner, 'base', baseId);
    const second = await pin(owner, 'space', spaceId);

    expect(first).toMatchObject({ status: 201, body: { id: baseId, type: 'base', order: 1 } });
    expect(second).toMatchObject({ status: 201, body: { id: spaceId, type: 'space', order: 2 } });
    expect((await list(owner)).body).toEqual([
      { id: baseId, type: 'base', order: 1, name: 'Plans', icon: '📐' },
      { id: spaceId, type: 'space', order: 2, name: 'S' },
    ]);
  });

  it('pinning what is pinned already keeps the one pin where it is', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await pin(owner, 'base', baseId);
    await pin(owner, 'space', spaceId);

    const again = await pin(owner, 'base', baseId);

    expect(again).toMatchObject({ status: 201, body: { id: baseId, type: 'base', order: 1 } });
    expect(await pinnedIds(owner)).toEqual([baseId, spaceId]);
  });

  it('the same pin asked for twice at once is stored once', async () => {
    const { owner, baseId } = await newWorkspace();

    const answers = await Promise.all([pin(owner, 'base', baseId), pin(owner, 'base', baseId)]);

    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(await pinnedIds(owner)).toEqual([baseId]);
  });

  it("shows only the caller's own pins", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await pin(a.owner, 'base', a.baseId);
    await pin(b.owner, 'space', b.spaceId);

    expect(await pinnedIds(a.owner)).toEqual([a.baseId]);
    expect(await pinnedIds(b.owner)).toEqual([b.spaceId]);
  });

  it('a member pins the bases of a space it was added to', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    const viewer = await newUser();
    await addMember(owner, spaceId, viewer, 'viewer');

    expect((await pin(viewer, 'base', baseId)).status).toBe(201);
    expect(await pinnedIds(viewer)).toEqual([baseId]);
    expect(await pinnedIds(owner)).toEqual([]);
  });

  it.each([
    [
      'space',
      (w: Awaited<ReturnType<typeof newWorkspace>>) => w.spaceId,
      /^not a collaborator of space spc\w+$/,
    ],
    [
      'base',
      (w: Awaited<ReturnType<typeof newWorkspace>>) => w.baseId,
      /^not a collaborator of the space that holds bse\w+$/,
    ],
  ] as const)(
    'pinning a %s of a space the caller is not in is 403, nothing pinned',
    async (type, idOf, message) => {
      const w = await newWorkspace();
      const stranger = await newUser();

      const res = await pin(stranger, type, idOf(w));

      expect(res).toMatchObject({ status: 403, body: { status: 403, code: 'restricted_resource' } });
      expect(res.body.message).toMatch(message);
      expect(await pinnedIds(stranger)).toEqual([]);
    },
  );

  it.each([
    ['space', 'spc0000000000000000', 'Space spc0000000000000000 not found'],
    ['base', 'bse0000000000000000', 'Base bse0000000000000000 not found'],
  ] as const)('pinning a %s that does not exist is 404', async (type, id, message) => {
    const user = await newUser();

    const res = await pin(user, type, id);

    expect(res).toMatchObject({ status: 404, body: { message, status: 404, code: 'not_found' } });
  });

  it('pinning a base in the trash is 404', async () => {
    const { owner, baseId } = await newWorkspace();
    await call('delete-base', { token: owner.auth, params: { baseId } });

    const res = await pin(owner, 'base', baseId);

    expect(res).toMatchObject({
      status: 404,
      body: { message: `Base ${baseId} not found`, code: 'not_found' },
    });
  });

  it('a token without base|read cannot pin a base (403)', async () => {
    const { owner, baseId } = await newWorkspace();
    const { token } = await createOperatorToken(owner.id, {
      name: 'no base read',
      scopes: SCOPES.filter((s) => s !== 'base|read'),
      expiredTime: future(),
    });

    const res = await call('add-pin', { token: `Bearer ${token}`, body: { type: 'base', id: baseId } });

    expect(res).toMatchObject({
      status: 403,
      body: { message: `not allowed to operate base|read on ${baseId}` },
    });
  });
});

describe('pins of things the caller can no longer read', () => {
  it('leaves out a base in the trash, and shows it again once restored', async () => {
    const { owner, baseIds } = await ownerOfThreeBases();
    for (const id of baseIds) await pin(owner, 'base', id);
    await call('delete-base', { token: owner.auth, params: { baseId: baseIds[1] } });

    expect(await pinnedIds(owner)).toEqual([baseIds[0], baseIds[2]]);

    const trash = await call('list-trash', { token: owner.auth, query: 'resourceType=base' });
    expect(trash.status).toBe(200);
    const item = trash.body.trashItems.find((t: { resourceId: string }) => t.resourceId === baseIds[1]);
    expect(
      (await call('restore-trash-item', { token: owner.auth, params: { trashId: item.id } })).status,
    ).toBe(201);
    expect(await pinnedIds(owner)).toEqual(baseIds);
  });

  it('leaves out a base deleted for good', async () => {
    const { owner, baseIds } = await ownerOfThreeBases();
    for (const id of baseIds) await pin(owner, 'base', id);

    const gone = await call('delete-base-permanently', { token: owner.auth, params: { baseId: baseIds[0] } });

    expect(gone.status).toBe(200);
    expect(await pinnedIds(owner)).toEqual([baseIds[1], baseIds[2]]);
  });

  it('leaves out a space in the trash and the bases in it', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    const other = await newWorkspace();
    await pin(owner, 'space', spaceId);
    await pin(owner, 'base', baseId);
    await addMember(other.owner, other.spaceId, owner, 'viewer');
    await pin(owner, 'base', other.baseId);

    expect((await call('delete-space', { token: owner.auth, params: { spaceId } })).status).toBe(200);

    expect(await pinnedIds(owner)).toEqual([other.baseId]);
  });

  it('leaves out the pins of a space the caller was removed from', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    const member = await newUser();
    await addMember(owner, spaceId, member, 'editor');
    await pin(member, 'space', spaceId);
    await pin(member, 'base', baseId);

    const removed = await call('remove-collaborator', {
      token: owner.auth,
      params: { spaceId },
      query: `principalId=${member.id}&principalType=user`,
    });

    expect(removed.status).toBe(200);
    expect(await pinnedIds(member)).toEqual([]);
  });

  it('leaves out what the calling token does not reach', async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await addMember(b.owner, b.spaceId, a.owner, 'viewer');
    await pin(a.owner, 'base', a.baseId);
    await pin(a.owner, 'base', b.baseId);
    const { token } = await createOperatorToken(a.owner.id, {
      name: 'one space',
      scopes: [...SCOPES],
      spaceIds: [b.spaceId],
      expiredTime: future(),
    });

    const res = await call('list-pins', { token: `Bearer ${token}` });

    expect(res.body.map((p: { id: string }) => p.id)).toEqual([b.baseId]);
  });
});

describe('DELETE /pin', () => {
  it('unpins, keeping the others in order', async () => {
    const { owner, baseIds } = await ownerOfThreeBases();
    for (const id of baseIds) await pin(owner, 'base', id);

    const res = await unpin(owner, 'base', baseIds[1]);

    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(await pinnedIds(owner)).toEqual([baseIds[0], baseIds[2]]);
  });

  it('unpinning what is not pinned is 200 and changes nothing', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await pin(owner, 'space', spaceId);

    expect((await unpin(owner, 'base', baseId)).status).toBe(200);
    expect((await unpin(owner, 'base', 'bse0000000000000000')).status).toBe(200);
    expect(await pinnedIds(owner)).toEqual([spaceId]);
  });

  it("another user's unpin leaves the pin of the same base alone", async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    const member = await newUser();
    await addMember(owner, spaceId, member, 'viewer');
    await pin(owner, 'base', baseId);
    await pin(member, 'base', baseId);

    await unpin(member, 'base', baseId);

    expect(await pinnedIds(owner)).toEqual([baseId]);
    expect(await pinnedIds(member)).toEqual([]);
  });

  it('a pin removed can be pinned again, last', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await pin(owner, 'base', baseId);
    await pin(owner, 'space', spaceId);
    await unpin(owner, 'base', baseId);

    await pin(owner, 'base', baseId);

    expect(await pinnedIds(owner)).toEqual([spaceId, baseId]);
  });
});

describe('PUT /pin/order', () => {
  it.each([
    ['before the first', 2, 'before', 0, [2, 0, 1]],
    ['after the last', 0, 'after', 2, [1, 2, 0]],
    ['after the first', 2, 'after', 0, [0, 2, 1]],
    ['before the last', 0, 'before', 2, [1, 0, 2]],
    ['where it is', 1, 'after', 0, [0, 1, 2]],
  ] as const)('moves a pin %s', async (_, moved, position, anchor, order) => {
    const { owner, baseIds } = await ownerOfThreeBases();
    for (const id of baseIds) await pin(owner, 'base', id);

    const res = await move(owner, ['base', baseIds[moved]], position, ['base', baseIds[anchor]]);

    expect(res).toMatchObject({ status: 200, body: undefined });
    expect(await pinnedIds(owner)).toEqual(order.map((i) => baseIds[i]));
  });

  it('moves a base next to a space, the orders strictly increasing', async () => {
    const { owner, spaceId, baseIds } = await ownerOfThreeBases();
    await pin(owner, 'space', spaceId);
    for (const id of baseIds) await pin(owner, 'base', id);

    await move(owner, ['base', baseIds[2]], 'before', ['space', spaceId]);
    await move(owner, ['space', spaceId], 'after', ['base', baseIds[0]]);

    const res = await list(owner);
    expect(res.body.map((p: { id: string }) => p.id)).toEqual([baseIds[2], baseIds[0], spaceId, baseIds[1]]);
    const orders = res.body.map((p: { order: number }) => p.order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(new Set(orders).size).toBe(4);
  });

  it('keeps its order through many moves into the same place', async () => {
    const { owner, baseIds } = await ownerOfThreeBases();
    for (const id of baseIds) await pin(owner, 'base', id);
    const expected = [...baseIds];
    // each move puts the last pin right after the first: the room between them halves every time
    for (let i = 0; i < 60; i++) {
      const last = expected.pop() as string;
      expected.splice(1, 0, last);
      const res = await move(owner, ['base', last], 'after', ['base', expected[0] as string]);
      expect(res.status).toBe(200);
    }

    expect(await pinnedIds(owner)).toEqual(expected);
  });

  it('an anchor that is not pinned is 404', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await pin(owner, 'base', baseId);

    const res = await move(owner, ['base', baseId], 'before', ['space', spaceId]);

    expect(res).toMatchObject({
      status: 404,
      body: { message: `Anchor space ${spaceId} is not pinned`, status: 404, code: 'not_found' },
    });
  });

  it('a pin that is not pinned is 404', async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    await pin(owner, 'space', spaceId);

    const res = await move(owner, ['base', baseId], 'before', ['space', spaceId]);

    expect(res).toMatchObject({
      status: 404,
      body: { message: `Base ${baseId} is not pinned`, status: 404, code: 'not_found' },
    });
  });

  it("another user's pin is no anchor (404)", async () => {
    const { owner, spaceId, baseId } = await newWorkspace();
    const member = await newUser();
    await addMember(owner, spaceId, member, 'viewer');
    await pin(owner, 'space', spaceId);
    await pin(member, 'base', baseId);

    const res = await move(member, ['base', baseId], 'after', ['space', spaceId]);

    expect(res.status).toBe(404);
  });

  it('a pin moved relative to itself is 400', async () => {
    const { owner, baseId } = await newWorkspace();
    await pin(owner, 'base', baseId);

    const res = await move(owner, ['base', baseId], 'after', ['base', baseId]);

    expect(res).toMatchObject({
      status: 400,
      body: { message: `Base ${baseId} cannot be moved relative to itself`, code: 'validation_error' },
    });
  });
});

describe('bad input is a 400 with the contract body, naming the field', () => {
  const validationError = (path: string) => ({
    message: expect.stringMatching(new RegExp(`^Invalid ${path.replace('.', '\\.')}: `)),
    status: 400,
    code: 'validation_error',
    details: [{ path, message: expect.any(String) }],
  });

  it.each([
    ['an unknown type', { type: 'table', id: 'tbl0000000000000000' }, 'body.type'],
    ['no id', { type: 'base' }, 'body.id'],
    ['an id that is not a string', { type: 'base', id: 7 }, 'body.id'],
    ["an id of another type than the type's", { type: 'space', id: 'bse0000000000000000' }, 'body.id'],
    ['a malformed id', { type: 'base', id: 'bse123' }, 'body.id'],
  ])('POST /pin with %s', async (_, body, path) => {
    const user = await newUser();

    const res = await call('add-pin', { token: user.auth, body });

    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError(path));
  });

  it('POST /pin with an id of another type says which prefix it needs', async () => {
    const user = await newUser();

    const res = await call('add-pin', {
      token: user.auth,
      body: { type: 'space', id: 'bse0000000000000000' },
    });

    expect(res.body.details).toEqual([{ path: 'body.id', message: 'must be an id starting with spc' }]);
  });

  it.each([
    ['an unknown type', 'type=view&id=viw0000000000000000', 'query.type'],
    ['no id', 'type=base', 'query.id'],
    ['no type', 'id=bse0000000000000000', 'query.type'],
  ])('DELETE /pin with %s', async (_, query, path) => {
    const user = await newUser();

    const res = await call('delete-pin', { token: user.auth, query });

    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError(path));
  });

  const moveBody = {
    id: 'bse0000000000000000',
    type: 'base',
    anchorId: 'spc0000000000000000',
    anchorType: 'space',
    position: 'before',
  };
  it.each([
    ['a bad position', { ...moveBody, position: 'inside' }, 'body.position'],
    ['no position', { ...moveBody, position: undefined }, 'body.position'],
    ['an unknown anchor type', { ...moveBody, anchorType: 'table' }, 'body.anchorType'],
    ['no anchor id', { ...moveBody, anchorId: undefined }, 'body.anchorId'],
    ['an anchor id of another type', { ...moveBody, anchorId: 'bse0000000000000001' }, 'body.anchorId'],
  ])('PUT /pin/order with %s', async (_, body, path) => {
    const user = await newUser();

    const res = await call('update-pin-order', { token: user.auth, body });

    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationError(path));
  });
});
