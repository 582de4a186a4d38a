import { describe, expect, it } from 'vitest';
import { hashSecret } from '#shared/auth/personal-token.ts';
import { scopesFor } from '#shared/auth/scopes.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { deleteItem, updateItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import { ISO, invalid, UNAUTHORIZED } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { bearer, createToken, inDays, me, storedToken } from '#test/support/tokens.ts';

const TOKEN_ID = /^acc[0-9A-Za-z]{16}$/;

type User = Awaited<ReturnType<typeof newUser>>;

/** The secret part of `pat_<token id>_<user id>_<secret>`. */
const secretOf = (token: string) => token.split('_')[3] as string;

const setTokenAttribute = (userId: string, tokenId: string, name: string, value: unknown) =>
  updateItem(
    {
      key: keys.accessToken(userId, tokenId),
      update: 'SET #a = :v',
      condition: 'attribute_exists(pk)',
      names: { '#a': name },
      values: { ':v': value },
    },
    () => new NotFoundError(`token ${tokenId}`),
  );

describe('GET /auth/user/me', () => {
  it('answers 200 with exactly the calling user and the fields the client requires', async () => {
    const user = await newUser({ name: 'Ada Lovelace' });

    const res = await me(user.auth);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      name: 'Ada Lovelace',
      avatar: null,
      email: user.email,
      notifyMeta: { email: false },
      hasPassword: false,
      isAdmin: false,
    });
  });

  it('accepts a token created through POST /access-token', async () => {
    const user = await newUser();
    const created = await createToken(user);

    const res = await me(bearer(created.token));

    expect(res).toMatchObject({ status: 200, body: { id: user.id, name: user.name, email: user.email } });
  });

  it.each<[string, (user: User) => Promise<string | undefined>]>([
    ['no Authorization header', async () => undefined],
    ['an empty Authorization header', async () => ''],
    ['a Basic header', async () => `Basic ${Buffer.from('ada:secret').toString('base64')}`],
    ['a Basic header carrying the valid token', async (u) => `Basic ${u.token}`],
    ['"Bearer" without a token', async () => 'Bearer '],
    ['garbage after Bearer', async () => 'Bearer not-a-token'],
    ['a token with two words', async (u) => `Bearer ${u.token} extra`],
    ['a token over 4096 characters', async () => `Bearer ${'a'.repeat(5000)}`],
    ['three dot-separated garbage parts', async () => 'Bearer aaa.bbb.ccc'],
    [
      'a well-formed token with a wrong secret',
      async (u) => {
        const [prefix, tokenId, userId] = u.token.split('_');
        return `Bearer ${prefix}_${tokenId}_${userId}_${randomBase62(32)}`;
      },
    ],
    [
      'a well-formed token whose id never existed',
      async (u) => bearer(`pat_${newId('accessToken')}_${u.id}_${randomBase62(32)}`),
    ],
    [
      "a valid token id and secret presented with another user's id",
      async (u) => {
        const other = await newUser();
        const [prefix, tokenId, , secret] = u.token.split('_');
        return `Bearer ${prefix}_${tokenId}_${other.id}_${secret}`;
      },
    ],
    [
      'a deleted token',
      async (u) => {
        const created = await createToken(u);
        const del = await call('delete-access-token', {
          token: u.auth,
          params: { accessTokenId: created.id },
        });
        expect(del.status).toBe(200);
        return bearer(created.token);
      },
    ],
    [
      'an expired token',
      async (u) => {
        const created = await createToken(u);
        expect((await me(bearer(created.token))).status).toBe(200);
        await setTokenAttribute(u.id, created.id, 'expiredTime', new Date(Date.now() - 1000).toISOString());
        return bearer(created.token);
      },
    ],
    [
      'a token whose user item was removed',
      async (u) => {
        await deleteItem(keys.user(u.id));
        return u.auth;
      },
    ],
  ])('answers 401 with the one contract body for %s', async (_, prepare) => {
    const user = await newUser();
    const authorization = await prepare(user);

    const res = await call('get-current-user', authorization === undefined ? {} : { token: authorization });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });
});

describe('POST /access-token', () => {
  it('answers 201 with the token info and the token text, shown only here', async () => {
    const user = await newUser();
    // Within the 30 days of the calling token (a token never outlives the one that made it).
    const expiredTime = inDays(29);
    const before = Date.now();

    const res = await call('create-access-token', {
      token: user.auth,
      body: {
        name: '  CI script  ',
        description: 'nightly export',
        scopes: ['record|read', 'space|read', 'record|read'],
        expiredTime,
      },
    });

    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'name',
        'description',
        'scopes',
        'spaceIds',
        'baseIds',
        'expiredTime',
        'createdTime',
        'lastUsedTime',
        'hasFullAccess',
        'token',
      ].sort(),
    );
    expect(res.body).toEqual({
      id: expect.stringMatching(TOKEN_ID),
      name: 'CI script',
      description: 'nightly export',
      scopes: ['record|read', 'space|read'],
      spaceIds: null,
      baseIds: null,
      expiredTime,
      createdTime: expect.stringMatching(ISO),
      lastUsedTime: null,
      hasFullAccess: true,
      token: expect.stringMatching(/^pat_acc[0-9A-Za-z]{16}_usr[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/),
    });
    expect(res.body.token).toBe(`pat_${res.body.id}_${user.id}_${secretOf(res.body.token)}`);
    expect(Date.parse(res.body.createdTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(res.body.createdTime)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('keeps the space and base limits it was given', async () => {
    const user = await newUser();
    const spaceIds = [newId('space'), newId('space')];
    const baseIds = [newId('base')];

    const created = await createToken(user, { spaceIds, baseIds });

    expect(created).toMatchObject({ spaceIds, baseIds });
  });

  it('returns a token that authenticates as the same user at once', async () => {
    const user = await newUser();
    const created = await createToken(user);

    const res = await me(bearer(created.token));

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: user.name, email: user.email });
  });

  it('stores only a hash of the secret, never the token text or the secret', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const secret = secretOf(created.token);

    const item = await storedToken(user.id, created.id);

    expect(item).toBeDefined();
    expect(item?.secretHash).toBe(hashSecret(secret));
    for (const [name, value] of Object.entries(item ?? {})) {
      const text = JSON.stringify(value);
      expect(text, `attribute ${name}`).not.toContain(secret);
      expect(text, `attribute ${name}`).not.toContain(created.token);
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown scope', { scopes: ['space|read', 'space|fly'] }, 'body.scopes.1'],
    ['a scope of the wrong form', { scopes: ['SPACE|READ'] }, 'body.scopes.0'],
    ['empty scopes', { scopes: [] }, 'body.scopes'],
    ['missing scopes', { scopes: undefined }, 'body.scopes'],
    [
      'an expiredTime in the past',
      { expiredTime: new Date(Date.now() - 60_000).toISOString() },
      'body.expiredTime',
    ],
    ['an expiredTime that is not a time', { expiredTime: 'next week' }, 'body.expiredTime'],
    ['a missing expiredTime', { expiredTime: undefined }, 'body.expiredTime'],
    ['a missing name', { name: undefined }, 'body.name'],
    ['a blank name', { name: '   ' }, 'body.name'],
    ['a spaceIds element that is not a space id', { spaceIds: ['bse0123456789abcdef'] }, 'body.spaceIds.0'],
    ['a baseIds element that is not a base id', { baseIds: [42] }, 'body.baseIds.0'],
  ])('answers 400 naming the field for %s, and creates nothing', async (_, patch, path) => {
    const user = await newUser();
    const body = { name: 'Script', scopes: ['space|read'], expiredTime: inDays(7), ...patch };

    const res = await call('create-access-token', { token: user.auth, body });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.message).toContain(path);
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['Default token']);
  });

  it('names the unknown scope in the 400', async () => {
    const user = await newUser();

    const res = await call('create-access-token', {
      token: user.auth,
      body: { name: 'Script', scopes: ['space|fly'], expiredTime: inDays(7) },
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'Invalid body.scopes.0: unknown scope "space|fly" (scopes read resource|action)',
    });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const user = await newUser();

    const res = await call('create-access-token', { token: user.auth, rawBody: '{"name":' });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'The body is not valid JSON',
      status: 400,
      code: 'validation_error',
    });
  });

  it('answers 401 without a token', async () => {
    const res = await call('create-access-token', {
      body: { name: 'Script', scopes: ['space|read'], expiredTime: inDays(7) },
    });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('gives a token with only space|read no right to create a space (403)', async () => {
    const user = await newUser();
    const readOnly = await createToken(user, { scopes: ['space|read'] });

    const res = await call('create-space', { token: bearer(readOnly.token), body: { name: 'Nope' } });

    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: 'not allowed to operate space|create',
      status: 403,
      code: 'restricted_resource',
    });
    const spaces = await call('list-spaces', { token: user.auth });
    expect(spaces.body).toEqual([]);
  });

  it('lets a token with space|create create a space', async () => {
    const user = await newUser();
    const creator = await createToken(user, { scopes: ['space|create'] });

    const res = await call('create-space', { token: bearer(creator.token), body: { name: 'Mine' } });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^spc/), name: 'Mine' });
  });
});

describe('GET /access-token', () => {
  it("lists the caller's tokens, oldest first, without the token text or its hash", async () => {
    const user = await newUser();
    const first = await createToken(user, { name: 'First', scopes: ['space|read'] });
    const second = await createToken(user, { name: 'Second', description: 'two', scopes: ['record|read'] });
    const { token: _t1, ...firstInfo } = first;
    const { token: _t2, ...secondInfo } = second;

    const res = await call('list-access-tokens', { token: user.auth });

    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    expect(res.body[0]).toEqual({
      id: user.tokenId,
      name: 'Default token',
      description: null,
      scopes: scopesFor(false),
      spaceIds: null,
      baseIds: null,
      expiredTime: expect.stringMatching(ISO),
      createdTime: expect.stringMatching(ISO),
      lastUsedTime: expect.stringMatching(ISO),
      hasFullAccess: true,
    });
    expect(res.body.slice(1)).toEqual([firstInfo, secondInfo]);
    for (const info of res.body) {
      expect(info).not.toHaveProperty('token');
      expect(info).not.toHaveProperty('secretHash');
    }
    expect(JSON.stringify(res.body)).not.toContain(secretOf(first.token));
  });

  it("does not list another user's tokens", async () => {
    const alice = await newUser();
    const bob = await newUser();
    const bobs = await createToken(bob, { name: 'Bob only' });

    const res = await call('list-access-tokens', { token: alice.auth });

    expect(res.status).toBe(200);
    expect(res.body.map((t: { id: string }) => t.id)).toEqual([alice.tokenId]);
    expect(JSON.stringify(res.body)).not.toContain(bobs.id);
  });
});

describe('PATCH /access-token/{id}', () => {
  it('renames, describes and rescopes a token, and answers the token info', async () => {
    const user = await newUser();
    const created = await createToken(user, { name: 'Old', scopes: ['space|read'] });
    const { token: _t, ...info } = created;

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { name: 'New', description: 'renamed', scopes: ['record|read', 'record|update', 'record|read'] },
    });

    expect(res.status).toBe(200);
    const expected = {
      ...info,
      name: 'New',
      description: 'renamed',
      scopes: ['record|read', 'record|update'],
    };
    expect(res.body).toEqual(expected);
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.find((t: { id: string }) => t.id === created.id)).toEqual(expected);
  });

  it('answers the token unchanged for an empty patch', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const { token: _t, ...info } = created;

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: {},
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual(info);
  });

  it('an expiredTime in the patch is a 400 naming the refresh route, and the token is unchanged', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const { token: _t, ...info } = created;
    const later = new Date(Date.parse(created.expiredTime) - 86_400_000).toISOString();

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { name: 'Renamed', expiredTime: later },
    });

    expect(res).toMatchObject(
      invalid(
        'Invalid body.expiredTime: cannot be changed here: refresh the token (POST /access-token/{accessTokenId}/refresh) with a new expiredTime',
      ),
    );
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.find((t: { id: string }) => t.id === created.id)).toEqual(info);
  });

  it('sets and clears the space limits', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const spaceId = newId('space');
    const params = { accessTokenId: created.id };

    const limited = await call('update-access-token', {
      token: user.auth,
      params,
      body: { spaceIds: [spaceId] },
    });
    const cleared = await call('update-access-token', { token: user.auth, params, body: { spaceIds: null } });
    const emptied = await call('update-access-token', { token: user.auth, params, body: { spaceIds: [] } });

    expect(limited).toMatchObject({ status: 200, body: { spaceIds: [spaceId], name: 'Script' } });
    expect(cleared).toMatchObject({ status: 200, body: { spaceIds: null, name: 'Script' } });
    // An empty list would read as "no space at all" or "no limit": neither is what a caller means.
    expect(emptied).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('narrowing the scopes takes effect on the very next request', async () => {
    const user = await newUser();
    const created = await createToken(user, { scopes: ['space|create', 'space|read'] });
    const auth = bearer(created.token);
    expect((await call('create-space', { token: auth, body: { name: 'Before' } })).status).toBe(201);

    const patch = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { scopes: ['space|read'] },
    });
    const res = await call('create-space', { token: auth, body: { name: 'After' } });

    expect(patch.status).toBe(200);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: 'not allowed to operate space|create',
      status: 403,
      code: 'restricted_resource',
    });
  });

  it('widening the scopes takes effect on the very next request', async () => {
    const user = await newUser();
    const created = await createToken(user, { scopes: ['space|read'] });
    const auth = bearer(created.token);
    expect((await call('create-space', { token: auth, body: {} })).status).toBe(403);

    await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { scopes: ['space|read', 'space|create'] },
    });
    const res = await call('create-space', { token: auth, body: {} });

    expect(res.status).toBe(201);
  });

  it('answers 404 for an unknown token id', async () => {
    const user = await newUser();
    const id = newId('accessToken');

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: id },
      body: { name: 'X' },
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: `Access token ${id} not found`, status: 404, code: 'not_found' });
  });

  it("answers 404 for another user's token id and leaves that token unchanged", async () => {
    const alice = await newUser();
    const bob = await newUser();
    const bobs = await createToken(bob, { name: 'Bob', scopes: ['space|create'] });

    const res = await call('update-access-token', {
      token: alice.auth,
      params: { accessTokenId: bobs.id },
      body: { name: 'Hijacked', scopes: ['space|read'] },
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: `Access token ${bobs.id} not found`,
      status: 404,
      code: 'not_found',
    });
    const item = await storedToken(bob.id, bobs.id);
    expect(item).toMatchObject({ name: 'Bob', scopes: ['space|create'] });
    expect(await storedToken(alice.id, bobs.id)).toBeUndefined();
  });

  it.each<[string, string]>([
    ['not an id at all', 'nope'],
    ['an id of another kind', newId('space')],
    ['an id too short', 'acc123'],
  ])('answers 400 for a token id that is %s', async (_, id) => {
    const user = await newUser();

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: id },
      body: {},
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.message).toContain('path.accessTokenId');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown scope', { scopes: ['space|fly'] }, 'body.scopes.0'],
    ['empty scopes', { scopes: [] }, 'body.scopes'],
    ['a blank name', { name: ' ' }, 'body.name'],
    ['a bad spaceIds element', { spaceIds: ['x'] }, 'body.spaceIds.0'],
  ])('answers 400 for %s and changes nothing', async (_, body, path) => {
    const user = await newUser();
    const created = await createToken(user);
    const { token: _t, ...info } = created;

    const res = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body,
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toContain(path);
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.find((t: { id: string }) => t.id === created.id)).toEqual(info);
  });
});

describe('POST /access-token/{id}/refresh', () => {
  it('answers a new token text; the old text is 401 at once and the new one works', async () => {
    const user = await newUser();
    const created = await createToken(user, { name: 'Rotating', scopes: ['space|read'] });
    expect((await me(bearer(created.token))).status).toBe(200);
    // Later than the token's 7 days, within the calling token's 30.
    const expiredTime = inDays(20);

    const res = await call('refresh-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { expiredTime },
    });

    expect(res.status).toBe(200);
    const { token: _old, ...info } = created;
    expect(res.body).toEqual({
      ...info,
      expiredTime,
      lastUsedTime: expect.stringMatching(ISO),
      token: expect.stringMatching(new RegExp(`^pat_${created.id}_${user.id}_[0-9A-Za-z]{32}$`)),
    });
    expect(res.body.token).not.toBe(created.token);
    const old = await me(bearer(created.token));
    expect(old.status).toBe(401);
    expect(old.body).toEqual(UNAUTHORIZED);
    expect(await me(bearer(res.body.token))).toMatchObject({ status: 200, body: { id: user.id } });
    expect((await storedToken(user.id, created.id))?.secretHash).toBe(hashSecret(secretOf(res.body.token)));
  });

  it('can refresh the very token making the call', async () => {
    const user = await newUser();
    const created = await createToken(user);

    const res = await call('refresh-access-token', {
      token: bearer(created.token),
      params: { accessTokenId: created.id },
      body: { expiredTime: inDays(3) },
    });

    expect(res.status).toBe(200);
    expect((await me(bearer(created.token))).status).toBe(401);
    expect((await me(bearer(res.body.token))).status).toBe(200);
  });

  it('revives an expired token with a new expiry', async () => {
    const user = await newUser();
    const created = await createToken(user);
    await setTokenAttribute(user.id, created.id, 'expiredTime', new Date(Date.now() - 1000).toISOString());
    expect((await me(bearer(created.token))).status).toBe(401);

    const res = await call('refresh-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body: { expiredTime: inDays(1) },
    });

    expect(res.status).toBe(200);
    expect((await me(bearer(res.body.token))).status).toBe(200);
  });

  it.each<[string, Record<string, unknown>]>([
    ['in the past', { expiredTime: new Date(Date.now() - 60_000).toISOString() }],
    ['missing', {}],
    ['not a time', { expiredTime: 'tomorrow' }],
  ])('answers 400 for an expiredTime %s, and the old token keeps working', async (_, body) => {
    const user = await newUser();
    const created = await createToken(user);

    const res = await call('refresh-access-token', {
      token: user.auth,
      params: { accessTokenId: created.id },
      body,
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.message).toContain('body.expiredTime');
    expect((await me(bearer(created.token))).status).toBe(200);
  });

  it("answers 404 for an unknown id and for another user's token, which keeps working", async () => {
    const alice = await newUser();
    const bob = await newUser();
    const bobs = await createToken(bob);
    const unknown = newId('accessToken');

    const missing = await call('refresh-access-token', {
      token: alice.auth,
      params: { accessTokenId: unknown },
      body: { expiredTime: inDays(1) },
    });
    const foreign = await call('refresh-access-token', {
      token: alice.auth,
      params: { accessTokenId: bobs.id },
      body: { expiredTime: inDays(1) },
    });

    expect(missing.body).toEqual({
      message: `Access token ${unknown} not found`,
      status: 404,
      code: 'not_found',
    });
    expect(foreign.body).toEqual({
      message: `Access token ${bobs.id} not found`,
      status: 404,
      code: 'not_found',
    });
    expect((await me(bearer(bobs.token))).status).toBe(200);
    expect(await storedToken(alice.id, bobs.id)).toBeUndefined();
  });
});

describe('DELETE /access-token/{id}', () => {
  it('answers 200, the token is 401 at once, and a second delete is a 404', async () => {
    const user = await newUser();
    const created = await createToken(user);
    expect((await me(bearer(created.token))).status).toBe(200);
    const params = { accessTokenId: created.id };

    const res = await call('delete-access-token', { token: user.auth, params });

    expect(res.status).toBe(200);
    const after = await me(bearer(created.token));
    expect(after.status).toBe(401);
    expect(after.body).toEqual(UNAUTHORIZED);
    expect(await storedToken(user.id, created.id)).toBeUndefined();
    const again = await call('delete-access-token', { token: user.auth, params });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      message: `Access token ${created.id} not found`,
      status: 404,
      code: 'not_found',
    });
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.map((t: { id: string }) => t.id)).toEqual([user.tokenId]);
  });

  it('can delete the very token making the call', async () => {
    const user = await newUser();
    const created = await createToken(user);

    const res = await call('delete-access-token', {
      token: bearer(created.token),
      params: { accessTokenId: created.id },
    });

    expect(res.status).toBe(200);
    expect((await me(bearer(created.token))).status).toBe(401);
    expect(await storedToken(user.id, created.id)).toBeUndefined();
  });

  it("answers 404 for another user's token, which keeps working", async () => {
    const alice = await newUser();
    const bob = await newUser();

    const res = await call('delete-access-token', {
      token: alice.auth,
      params: { accessTokenId: bob.tokenId },
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: `Access token ${bob.tokenId} not found`,
      status: 404,
      code: 'not_found',
    });
    expect((await me(bob.auth)).status).toBe(200);
  });

  it('answers 400 for a malformed id', async () => {
    const user = await newUser();

    const res = await call('delete-access-token', { token: user.auth, params: { accessTokenId: 'acc!' } });

    expect(res.status).toBe(400);
    expect(res.body.message).toContain('path.accessTokenId');
  });
});

describe('lastUsedTime', () => {
  it('is null at creation and set by the first use of the token', async () => {
    const user = await newUser();
    const created = await createToken(user);
    expect(created.lastUsedTime).toBeNull();
    expect((await storedToken(user.id, created.id))?.lastUsedTime).toBeNull();
    const before = Date.now();

    expect((await me(bearer(created.token))).status).toBe(200);

    const used = (await storedToken(user.id, created.id))?.lastUsedTime;
    expect(used).toEqual(expect.stringMatching(ISO));
    expect(Date.parse(String(used))).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(String(used))).toBeLessThanOrEqual(Date.now() + 1000);
    const list = await call('list-access-tokens', { token: user.auth });
    expect(list.body.find((t: { id: string }) => t.id === created.id)?.lastUsedTime).toBe(used);
  });

  it('is not rewritten by a use less than an hour after the last one', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const recent = new Date(Date.now() - 30 * 60_000).toISOString();
    await setTokenAttribute(user.id, created.id, 'lastUsedTime', recent);

    expect((await me(bearer(created.token))).status).toBe(200);

    expect((await storedToken(user.id, created.id))?.lastUsedTime).toBe(recent);
  });

  it('is refreshed by a use more than an hour after the last one', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const stale = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await setTokenAttribute(user.id, created.id, 'lastUsedTime', stale);
    const before = Date.now();

    expect((await me(bearer(created.token))).status).toBe(200);

    const used = String((await storedToken(user.id, created.id))?.lastUsedTime);
    expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('is not set by a request that fails authentication', async () => {
    const user = await newUser();
    const created = await createToken(user);
    const [prefix, tokenId, userId] = created.token.split('_');

    const res = await me(`Bearer ${prefix}_${tokenId}_${userId}_${randomBase62(32)}`);

    expect(res.status).toBe(401);
    expect((await storedToken(user.id, created.id))?.lastUsedTime).toBeNull();
  });
});
