import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { SCOPES } from '#shared/auth/scopes.ts';
import { signingKeys } from '#shared/auth/signing-keys.ts';
import { signTempToken, TEMP_TOKEN_SECONDS } from '#shared/auth/temp-token.ts';
import { config } from '#shared/config.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { updateItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';
import type { HandlerName } from '#shared/routes.ts';
import { UNAUTHORIZED } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';
import { bearer, createToken, inDays, me, storedToken } from '#test/support/tokens.ts';

const NO_TEMP = {
  message: 'a temporary token cannot be used for this route; use a personal access token',
  status: 403,
  code: 'restricted_resource',
};
const NO_SPACE_CREATE = {
  message: 'not allowed to operate space|create',
  status: 403,
  code: 'restricted_resource',
};

type User = Awaited<ReturnType<typeof newUser>>;

/** A personal token of the user with the given scopes and limits (201 asserted). */
const personalToken = (user: User, body: Record<string, unknown> = {}) =>
  createToken(user, { name: 'Parent', ...body });

/** Mints a temporary token with a personal token (200 asserted). */
const mint = async (personal: string) => {
  const res = await call('create-temp-token', { token: bearer(personal) });
  expect(res.status).toBe(200);
  return res.body as { accessToken: string; expiresTime: string };
};

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('GET /auth/temp-token', () => {
  it('answers 200 with exactly {accessToken, expiresTime}, expiring ten minutes ahead', async () => {
    const user = await newUser();
    const before = Date.now();

    const res = await call('create-temp-token', { token: user.auth });

    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'expiresTime']);
    expect(res.body.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body.expiresTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    const expires = Date.parse(res.body.expiresTime);
    expect(expires).toBeGreaterThanOrEqual(before + TEMP_TOKEN_SECONDS * 1000 - 2000);
    expect(expires).toBeLessThanOrEqual(Date.now() + TEMP_TOKEN_SECONDS * 1000 + 1000);
  });

  it("signs a JWT naming the user, the parent token and the parent's scopes and limits", async () => {
    const user = await newUser();
    const spaceIds = [newId('space')];
    const parent = await personalToken(user, { scopes: ['space|read', 'record|read'], spaceIds });
    const { current } = await signingKeys();

    const { accessToken, expiresTime } = await mint(parent.token);

    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'HS256', kid: current, typ: 'JWT' });
    const claims = decodeJwt(accessToken);
    expect(claims).toEqual({
      sub: user.id,
      tid: parent.id,
      scp: ['space|read', 'record|read'],
      spc: spaceIds,
      // the parent's refresh count: never refreshed
      rfc: 0,
      iss: config.jwtIssuer,
      aud: config.jwtAudience,
      iat: expect.any(Number),
      exp: Date.parse(expiresTime) / 1000,
    });
    expect(claims.exp).toBe((claims.iat as number) + TEMP_TOKEN_SECONDS);
    expect(accessToken).not.toContain(parent.token.split('_')[3]);
  });

  it('is accepted as a bearer token for the same user', async () => {
    const user = await newUser({ name: 'Temp Tess' });
    const { accessToken } = await mint(user.token);

    const res = await me(bearer(accessToken));

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: 'Temp Tess', email: user.email });
  });

  it('carries every right of an all-scopes parent: it can create a space', async () => {
    const user = await newUser();
    const { accessToken } = await mint(user.token);

    const res = await call('create-space', { token: bearer(accessToken), body: { name: 'By temp' } });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'By temp' });
  });

  it("carries the parent's scopes: a space|read parent gives no right to create a space (403)", async () => {
    const user = await newUser();
    const parent = await personalToken(user, { scopes: ['space|read'] });
    const { accessToken } = await mint(parent.token);

    const res = await call('create-space', { token: bearer(accessToken), body: { name: 'Nope' } });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_SPACE_CREATE);
    expect((await call('list-spaces', { token: bearer(accessToken) })).body).toEqual([]);
  });

  it("carries the parent's space limits: a space outside them is a 403", async () => {
    const user = await newUser();
    const inside = (await call('create-space', { token: user.auth, body: { name: 'Inside' } })).body
      .id as string;
    const outside = (await call('create-space', { token: user.auth, body: { name: 'Outside' } })).body
      .id as string;
    const parent = await personalToken(user, { scopes: ['space|read'], spaceIds: [inside] });
    const { accessToken } = await mint(parent.token);

    const ok = await call('get-space', { token: bearer(accessToken), params: { spaceId: inside } });
    const denied = await call('get-space', { token: bearer(accessToken), params: { spaceId: outside } });

    expect(ok).toMatchObject({ status: 200, body: { id: inside, name: 'Inside', role: 'owner' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      message: `this token is limited to other spaces or bases than ${outside}`,
      status: 403,
      code: 'restricted_resource',
    });
  });

  it('is narrowed at once when the parent is narrowed after minting', async () => {
    const user = await newUser();
    const parent = await personalToken(user, { scopes: ['space|create', 'space|read'] });
    const { accessToken } = await mint(parent.token);
    expect((await call('create-space', { token: bearer(accessToken), body: {} })).status).toBe(201);

    const patch = await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: parent.id },
      body: { scopes: ['space|read'] },
    });
    const res = await call('create-space', { token: bearer(accessToken), body: {} });

    expect(patch.status).toBe(200);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_SPACE_CREATE);
    expect((await me(bearer(accessToken))).status).toBe(200);
  });

  it('is limited at once when the parent gains space limits after minting', async () => {
    const user = await newUser();
    const space = (await call('create-space', { token: user.auth, body: {} })).body.id as string;
    const parent = await personalToken(user, { scopes: ['space|read'] });
    const { accessToken } = await mint(parent.token);
    expect((await call('get-space', { token: bearer(accessToken), params: { spaceId: space } })).status).toBe(
      200,
    );

    await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: parent.id },
      body: { spaceIds: [newId('space')] },
    });
    const res = await call('get-space', { token: bearer(accessToken), params: { spaceId: space } });

    expect(res.status).toBe(403);
    expect(res.body.code).toBe('restricted_resource');
  });

  it('never gains the scopes the parent gains after minting', async () => {
    const user = await newUser();
    const parent = await personalToken(user, { scopes: ['space|read'] });
    const { accessToken } = await mint(parent.token);

    await call('update-access-token', {
      token: user.auth,
      params: { accessTokenId: parent.id },
      body: { scopes: ['space|read', 'space|create'] },
    });
    const res = await call('create-space', { token: bearer(accessToken), body: {} });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_SPACE_CREATE);
  });

  it('is 401 at once when the parent token is deleted', async () => {
    const user = await newUser();
    const parent = await personalToken(user);
    const { accessToken } = await mint(parent.token);
    expect((await me(bearer(accessToken))).status).toBe(200);

    const del = await call('delete-access-token', { token: user.auth, params: { accessTokenId: parent.id } });
    const res = await me(bearer(accessToken));

    expect(del.status).toBe(200);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('is 401 (not 403) on a personal-token-only route once the parent is deleted', async () => {
    const user = await newUser();
    const parent = await personalToken(user);
    const { accessToken } = await mint(parent.token);
    await call('delete-access-token', { token: user.auth, params: { accessTokenId: parent.id } });

    const res = await call('create-temp-token', { token: bearer(accessToken) });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('is 401 once the parent token has expired', async () => {
    const user = await newUser();
    const parent = await personalToken(user);
    const { accessToken } = await mint(parent.token);
    await updateItem(
      {
        key: keys.accessToken(user.id, parent.id),
        update: 'SET expiredTime = :e',
        values: { ':e': new Date(Date.now() - 1000).toISOString() },
      },
      () => new NotFoundError('token'),
    );

    const res = await me(bearer(accessToken));

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it.each<[string, HandlerName, CallOptions]>([
    ['mint another temporary token', 'create-temp-token', {}],
    [
      'create an access token',
      'create-access-token',
      { body: { name: 'X', scopes: ['space|read'], expiredTime: inDays(1) } },
    ],
    [
      'update an access token',
      'update-access-token',
      { params: { accessTokenId: 'PARENT' }, body: { name: 'X' } },
    ],
    [
      'refresh an access token',
      'refresh-access-token',
      { params: { accessTokenId: 'PARENT' }, body: { expiredTime: inDays(1) } },
    ],
    ['delete an access token', 'delete-access-token', { params: { accessTokenId: 'PARENT' } }],
  ])('cannot %s (403), and nothing changes', async (_, handler, options) => {
    const user = await newUser();
    const parent = await personalToken(user);
    const { accessToken } = await mint(parent.token);
    const params = options.params ? { accessTokenId: parent.id } : undefined;
    const before = await call('list-access-tokens', { token: user.auth });

    const res = await call(handler, { ...options, params, token: bearer(accessToken) });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_TEMP);
    const after = await call('list-access-tokens', { token: user.auth });
    expect(after.body.map((t: { id: string; name: string }) => [t.id, t.name])).toEqual(
      before.body.map((t: { id: string; name: string }) => [t.id, t.name]),
    );
    expect((await me(bearer(parent.token))).status).toBe(200);
  });

  it('may list the access tokens of its user', async () => {
    const user = await newUser();
    const { accessToken } = await mint(user.token);

    const res = await call('list-access-tokens', { token: bearer(accessToken) });

    expect(res.status).toBe(200);
    expect(res.body.map((t: { id: string }) => t.id)).toEqual([user.tokenId]);
  });
});

describe('a forged or altered temporary token', () => {
  /** Signs claims like the service does, with a chosen key, kid, issuer or audience. */
  const sign = async (
    claims: Record<string, unknown>,
    options: {
      key?: Uint8Array;
      kid?: string;
      issuer?: string;
      audience?: string;
      subject: string;
      expiresIn?: number;
    },
  ) => {
    const keysDoc = await signingKeys();
    const key = options.key ?? new TextEncoder().encode(keysDoc.keys[keysDoc.current]);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: options.kid ?? keysDoc.current, typ: 'JWT' })
      .setSubject(options.subject)
      .setIssuer(options.issuer ?? config.jwtIssuer)
      .setAudience(options.audience ?? config.jwtAudience)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresIn ?? 600))
      .sign(key);
  };

  it('is 401 with one payload character flipped', async () => {
    const user = await newUser();
    const { accessToken } = await mint(user.token);
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const i = Math.floor(payload.length / 2);
    const flipped = payload[i] === 'A' ? 'B' : 'A';
    const tampered = `${header}.${payload.slice(0, i)}${flipped}${payload.slice(i + 1)}.${signature}`;

    const res = await me(bearer(tampered));

    expect(tampered).not.toBe(accessToken);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('is 401 when the payload is re-encoded with more scopes and the old signature', async () => {
    const user = await newUser();
    const parent = await personalToken(user, { scopes: ['space|read'] });
    const { accessToken } = await mint(parent.token);
    const [header, , signature] = accessToken.split('.') as [string, string, string];
    const claims = { ...decodeJwt(accessToken), scp: [...SCOPES] };

    const res = await call('create-space', {
      token: bearer(`${header}.${base64url(claims)}.${signature}`),
      body: {},
    });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('is 401 when the signature is removed or the algorithm is none', async () => {
    const user = await newUser();
    const { accessToken } = await mint(user.token);
    const [, payload] = accessToken.split('.') as [string, string];
    const { current } = await signingKeys();
    const none = `${base64url({ alg: 'none', kid: current, typ: 'JWT' })}.${payload}.`;
    const unsigned = `${accessToken.split('.').slice(0, 2).join('.')}.`;

    expect((await me(bearer(none))).body).toEqual(UNAUTHORIZED);
    expect((await me(bearer(unsigned))).body).toEqual(UNAUTHORIZED);
  });

  it.each<[string, (user: User, parentId: string) => Promise<string>]>([
    [
      'signed with a different key under the current kid',
      (u, tid) => sign({ tid, scp: ['space|read'] }, { subject: u.id, key: randomBytes(48) }),
    ],
    [
      'signed under an unknown kid',
      (u, tid) => sign({ tid, scp: ['space|read'] }, { subject: u.id, kid: 'rotated-away' }),
    ],
    [
      'with another issuer',
      (u, tid) => sign({ tid, scp: ['space|read'] }, { subject: u.id, issuer: 'someone-else' }),
    ],
    [
      'with another audience',
      (u, tid) => sign({ tid, scp: ['space|read'] }, { subject: u.id, audience: 'another-api' }),
    ],
    ['already expired', (u, tid) => sign({ tid, scp: ['space|read'] }, { subject: u.id, expiresIn: -5 })],
    [
      'minted eleven minutes ago by the service',
      async (u, tid) =>
        (
          await signTempToken(
            { userId: u.id, parentTokenId: tid, scopes: ['space|read'] },
            await signingKeys(),
            Date.now() - 11 * 60_000,
          )
        ).accessToken,
    ],
    ['without a parent token id', (u) => sign({ scp: ['space|read'] }, { subject: u.id })],
    ['without scopes', (u, tid) => sign({ tid }, { subject: u.id })],
    [
      'naming a parent token that never existed',
      (u) => sign({ tid: newId('accessToken'), scp: ['space|read'] }, { subject: u.id }),
    ],
    [
      "naming another user's token as its parent",
      async (u) => {
        const other = await newUser();
        return sign({ tid: other.tokenId, scp: ['space|read'] }, { subject: u.id });
      },
    ],
  ])('is 401 when %s', async (_, forge) => {
    const user = await newUser();
    const parent = await personalToken(user);
    const jwt = await forge(user, parent.id);

    const res = await me(bearer(jwt));

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('never exceeds the parent: a validly signed token claiming more scopes is narrowed', async () => {
    const user = await newUser();
    const parent = await personalToken(user, { scopes: ['space|read'] });
    const jwt = await sign({ tid: parent.id, scp: [...SCOPES] }, { subject: user.id });

    const res = await call('create-space', { token: bearer(jwt), body: {} });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_SPACE_CREATE);
  });
});

describe('a refreshed parent token', () => {
  it('voids the temporary tokens minted before the refresh and not those minted after', async () => {
    const user = await newUser();
    const before = await call('create-temp-token', { token: user.auth });
    // Temporary tokens carry whole seconds: let the clock pass a second boundary.
    await new Promise((r) => setTimeout(r, 1100));
    const refreshed = await call('refresh-access-token', {
      token: user.auth,
      params: { accessTokenId: user.tokenId },
      body: { expiredTime: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(refreshed.status).toBe(200);
    const oldTemp = await call('get-current-user', { token: `Bearer ${before.body.accessToken}` });
    expect(oldTemp.status).toBe(401);
    const after = await call('create-temp-token', { token: `Bearer ${refreshed.body.token}` });
    const newTemp = await call('get-current-user', { token: `Bearer ${after.body.accessToken}` });
    expect(newTemp).toMatchObject({ status: 200, body: { id: user.id } });
  });

  it('voids a temporary token minted earlier in the same second as the refresh', async () => {
    const user = await newUser();
    // The clock stands still inside one second: minted at .100, refreshed at .600, minted again at
    // .900 with the new text (whole-second stamps cannot tell these apart).
    const second = (Math.floor(Date.now() / 1000) + 1) * 1000;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(second + 100);
      const before = await mint(user.token);
      vi.setSystemTime(second + 600);
      const refreshed = await call('refresh-access-token', {
        token: user.auth,
        params: { accessTokenId: user.tokenId },
        body: { expiredTime: inDays(1) },
      });
      expect(refreshed.status).toBe(200);
      vi.setSystemTime(second + 900);
      const after = await mint(refreshed.body.token as string);

      // The stamps are those of one second: the test does not pass by the clock's luck.
      expect(decodeJwt(before.accessToken).iat).toBe(second / 1000);
      expect(decodeJwt(after.accessToken).iat).toBe(second / 1000);
      expect((await storedToken(user.id, user.tokenId))?.refreshedTime).toBe(
        new Date(second + 600).toISOString(),
      );
      expect((await me(bearer(before.accessToken))).body).toEqual(UNAUTHORIZED);
      expect(await me(bearer(after.accessToken))).toMatchObject({ status: 200, body: { id: user.id } });
    } finally {
      vi.useRealTimers();
    }
  });
});
