import { describe, expect, it, vi } from 'vitest';
import {
  type Credential,
  credentialKeys,
  keepCredential,
  LAST_USED_RESOLUTION_MS,
  principalFrom,
  readCredential,
  shouldTouch,
} from '#shared/auth/authenticate.ts';
import { hashSecret, mintPersonalToken } from '#shared/auth/personal-token.ts';
import { SCOPES, type Scope } from '#shared/auth/scopes.ts';
import { parseSigningKeys } from '#shared/auth/signing-keys.ts';
import { signTempToken, TEMP_TOKEN_SECONDS, type TempTokenClaims } from '#shared/auth/temp-token.ts';
import { UnauthorizedError } from '#shared/core/errors.ts';
import type { Item } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { accessTokenOf } from '#shared/entities/access-tokens.ts';
import { asLoaded, type Loaded } from '#shared/entities/batch-read.ts';

// `config` reads SIGNING_KEYS_FILE when first imported: write the file and set it before any import.
const { KEYS_TEXT } = await vi.hoisted(async () => {
  const { writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const text = JSON.stringify({ current: 'k1', k1: 'unit-test-key-of-at-least-32-bytes' });
  const file = join(tmpdir(), `unit-auth-keys-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, text);
  process.env.SIGNING_KEYS_FILE = file;
  return { KEYS_TEXT: text };
});
const KEYS = parseSigningKeys(KEYS_TEXT);

const USER = 'usrAAAAAAAAAAAAAAAA';
const TOKEN = 'accAAAAAAAAAAAAAAAA';
const SPACE_1 = 'spc1111111111111111';
const SPACE_2 = 'spc2222222222222222';
const BASE_1 = 'bse1111111111111111';
const BASE_2 = 'bse2222222222222222';
const NOW = Date.UTC(2026, 10, 22, 8, 15);
const FUTURE = '2026-12-31T00:00:00.000Z';

/** Items read as `getItems` answers them, as a batch read's `Loaded`. */
const lookup = (...items: Item[]): Loaded => {
  const byKey = new Map(items.map((i) => [`${String(i.pk)}|${String(i.sk)}`, i]));
  return asLoaded({ get: (k: Key) => byKey.get(`${k.pk}|${k.sk}`), requested: () => true, size: byKey.size });
};

const minted = mintPersonalToken(TOKEN, USER);
const personal: Credential = {
  kind: 'personal',
  tokenId: TOKEN,
  userId: USER,
  secret: minted.token.slice(-32),
};
const userItem = (extra: Item = {}): Item => ({
  ...keys.user(USER),
  id: USER,
  name: 'Ada',
  email: 'ada@example.test',
  ...extra,
});
const tokenItem = (extra: Item = {}): Item => ({
  ...keys.accessToken(USER, TOKEN),
  id: TOKEN,
  userId: USER,
  scopes: [...SCOPES],
  spaceIds: null,
  baseIds: null,
  expiredTime: FUTURE,
  secretHash: minted.secretHash,
  ...extra,
});
const temporary = (claims: Partial<TempTokenClaims> = {}): Credential => ({
  kind: 'temporary',
  tokenId: TOKEN,
  userId: USER,
  claims: { userId: USER, parentTokenId: TOKEN, scopes: [...SCOPES], ...claims },
});

const unauthorized = async (promise: Promise<unknown>): Promise<UnauthorizedError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  const e = error as UnauthorizedError;
  expect(e.toBody()).toStrictEqual({
    message: 'Sign in, or send a valid bearer token',
    status: 401,
    code: 'unauthorized',
  });
  return e;
};

describe('readCredential', () => {
  it.each([
    ['a missing header', undefined, 'no bearer token and no session cookie'],
    ['an empty header', '', 'no bearer token and no session cookie'],
    ['Basic credentials', `Basic ${Buffer.from('a:b').toString('base64')}`, 'no bearer token'],
    ['the token without Bearer', minted.token, 'no bearer token'],
    ['Bearer without a token', 'Bearer ', 'no bearer token'],
    ['two tokens', `Bearer ${minted.token} ${minted.token}`, 'no bearer token'],
    ['garbage', 'Bearer garbage', 'token of unknown form'],
    ['a personal token with a bad secret', `Bearer pat_${TOKEN}_${USER}_short`, 'token of unknown form'],
    ['an over-long token', `Bearer ${'a'.repeat(4097)}`, 'token too long'],
  ])('%s is a 401 (%s)', async (_what, header, reason) => {
    const error = await unauthorized(readCredential(header));

    expect(error.reason).toBe(reason);
  });

  it('a JWT-shaped token that does not verify is a 401 with the verifier reason', async () => {
    const error = await unauthorized(readCredential('Bearer aaa.bbb.ccc'));

    expect(error.reason).toMatch(/^temporary token rejected: /);
  });

  it('a personal token of 4096 characters is not refused for its length', async () => {
    const error = await unauthorized(readCredential(`Bearer ${'a'.repeat(4096)}`));

    expect(error.reason).toBe('token of unknown form');
  });

  it.each([
    ['Bearer', (t: string) => `Bearer ${t}`],
    ['lower-case bearer', (t: string) => `bearer ${t}`],
    ['extra spaces', (t: string) => `Bearer   ${t}  `],
  ])('a valid personal token parses (%s)', async (_what, header) => {
    expect(await readCredential(header(minted.token))).toStrictEqual(personal);
  });

  it('a valid temporary token parses to its parent token and claims', async () => {
    const claims: TempTokenClaims = {
      userId: USER,
      parentTokenId: TOKEN,
      scopes: ['record|read'],
      spaceIds: [SPACE_1],
      baseIds: undefined,
    };
    const now = Date.now();
    const { accessToken } = await signTempToken(claims, KEYS, now);

    expect(await readCredential(`Bearer ${accessToken}`)).toStrictEqual({
      kind: 'temporary',
      tokenId: TOKEN,
      userId: USER,
      claims: {
        ...claims,
        issuedAt: Math.floor(now / 1000),
        expiresAt: Math.floor(now / 1000) + TEMP_TOKEN_SECONDS,
      },
    });
  });

  it('an expired temporary token is a 401', async () => {
    const { accessToken } = await signTempToken(
      { userId: USER, parentTokenId: TOKEN, scopes: [] },
      KEYS,
      Date.now() - 601_000,
    );

    const error = await unauthorized(readCredential(`Bearer ${accessToken}`));

    expect(error.reason).toMatch(/"exp" claim/);
  });
});

describe('credentialKeys', () => {
  it('reads the (parent) token and the user', () => {
    expect(credentialKeys(personal)).toStrictEqual([keys.accessToken(USER, TOKEN), keys.user(USER)]);
  });
});

describe('kept credentials (the cloud socket checks its connection again at every step)', () => {
  it('keeps a personal token without its secret, by its refresh count: a refresh since is a 401', () => {
    const kept = keepCredential(personal, principalFrom(personal, lookup(tokenItem(), userItem()), NOW));
    expect(kept).toEqual({ kind: 'kept-personal', tokenId: TOKEN, userId: USER, refreshCount: 0 });
    expect(JSON.stringify(kept)).not.toContain(personal.kind === 'personal' ? personal.secret : '?');
    expect(principalFrom(kept, lookup(tokenItem(), userItem()), NOW)).toMatchObject({
      kind: 'personal',
      userId: USER,
    });
    expect(() => principalFrom(kept, lookup(tokenItem({ refreshCount: 1 }), userItem()), NOW)).toThrow(
      expect.objectContaining({ reason: expect.stringMatching(/refreshed since/) }),
    );
    expect(() => principalFrom(kept, lookup(userItem()), NOW)).toThrow(UnauthorizedError);
  });

  it('keeps a temporary token by its claims: past its exp it is a 401', () => {
    const exp = Math.floor(NOW / 1000) + 60;
    const credential = temporary({ expiresAt: exp, scopes: ['record|read'] });
    const kept = keepCredential(credential, principalFrom(credential, lookup(tokenItem(), userItem()), NOW));
    expect(kept.kind).toBe('kept-temporary');
    expect(principalFrom(kept, lookup(tokenItem(), userItem()), NOW)).toMatchObject({
      kind: 'temporary',
      scopes: new Set(['record|read']),
    });
    expect(() => principalFrom(kept, lookup(tokenItem(), userItem()), (exp + 1) * 1000)).toThrow(
      expect.objectContaining({ reason: expect.stringMatching(/expired/) }),
    );
  });
});

describe('principalFrom', () => {
  it('builds the principal of a valid personal token', () => {
    const principal = principalFrom(personal, lookup(tokenItem(), userItem()), NOW);

    expect(principal).toStrictEqual({
      userId: USER,
      name: 'Ada',
      email: 'ada@example.test',
      isAdmin: false,
      tokenId: TOKEN,
      kind: 'personal',
      scopes: new Set(SCOPES),
      spaceIds: undefined,
      baseIds: undefined,
      expiredTime: FUTURE,
      refreshCount: 0,
    });
  });

  it("bounds a temporary token's principal by its parent's expiry (it acts for its parent)", () => {
    const parent = tokenItem({ expiredTime: '2026-11-30T00:00:00.000Z' });

    expect(principalFrom(temporary(), lookup(parent, userItem()), NOW).expiredTime).toBe(
      '2026-11-30T00:00:00.000Z',
    );
  });

  it.each([
    ['true', true, true],
    ['the string "true"', 'true', false],
    ['absent', undefined, false],
  ])('isAdmin is true only for a stored true (%s)', (_what, value, expected) => {
    expect(principalFrom(personal, lookup(tokenItem(), userItem({ isAdmin: value })), NOW).isAdmin).toBe(
      expected,
    );
  });

  it('drops stored scopes that are not scopes of the contract', () => {
    const token = tokenItem({ scopes: ['record|read', 'record|all', 42] });

    expect(principalFrom(personal, lookup(token, userItem()), NOW).scopes).toStrictEqual(
      new Set(['record|read']),
    );
  });

  it('reads stored limits', () => {
    const token = tokenItem({ spaceIds: [SPACE_1], baseIds: [BASE_1] });

    expect(principalFrom(personal, lookup(token, userItem()), NOW)).toMatchObject({
      spaceIds: [SPACE_1],
      baseIds: [BASE_1],
    });
  });

  it.each([
    ['a missing token', () => lookup(userItem()), `token ${TOKEN} not found (deleted or never existed)`],
    [
      'a wrong secret',
      () => lookup(tokenItem({ secretHash: hashSecret('x'.repeat(32)) }), userItem()),
      `token ${TOKEN}: wrong secret (refreshed or tampered)`,
    ],
    [
      'a token without a stored hash',
      () => lookup(tokenItem({ secretHash: undefined }), userItem()),
      `token ${TOKEN}: wrong secret (refreshed or tampered)`,
    ],
    [
      'an expired token',
      () => lookup(tokenItem({ expiredTime: new Date(NOW - 1).toISOString() }), userItem()),
      `token ${TOKEN} expired`,
    ],
    [
      'a token expiring this very millisecond',
      () => lookup(tokenItem({ expiredTime: new Date(NOW).toISOString() }), userItem()),
      `token ${TOKEN} expired`,
    ],
    [
      'a token with an unreadable expiry',
      () => lookup(tokenItem({ expiredTime: 'soon' }), userItem()),
      `token ${TOKEN} expired`,
    ],
    [
      'a token without an expiry',
      () => lookup(tokenItem({ expiredTime: undefined }), userItem()),
      `token ${TOKEN} expired`,
    ],
    ['a missing user', () => lookup(tokenItem()), `user ${USER} of token ${TOKEN} not found`],
  ])('%s is a 401', async (_what, items, reason) => {
    const error = await unauthorized(Promise.resolve().then(() => principalFrom(personal, items(), NOW)));

    expect(error.reason).toBe(reason);
  });

  it('a temporary token whose parent token was deleted is a 401', async () => {
    const error = await unauthorized(
      Promise.resolve().then(() => principalFrom(temporary(), lookup(userItem()), NOW)),
    );

    expect(error.reason).toBe(`token ${TOKEN} not found (deleted or never existed)`);
  });

  it('a temporary token whose parent expired is a 401', async () => {
    const parent = tokenItem({ expiredTime: new Date(NOW - 1000).toISOString() });

    await unauthorized(
      Promise.resolve().then(() => principalFrom(temporary(), lookup(parent, userItem()), NOW)),
    );
  });

  it('a temporary token needs no secret: a refreshed parent keeps it valid', () => {
    const parent = tokenItem({ secretHash: hashSecret('y'.repeat(32)) });

    expect(principalFrom(temporary(), lookup(parent, userItem()), NOW).kind).toBe('temporary');
  });

  it.each([
    ['never refreshed', undefined, Math.floor(NOW / 1000) - 300, true],
    [
      'refreshed before it was signed',
      new Date(NOW - 400_000).toISOString(),
      Math.floor(NOW / 1000) - 300,
      true,
    ],
    [
      'refreshed in the second it was signed',
      new Date(NOW - 299_500).toISOString(),
      Math.floor(NOW / 1000) - 300,
      true,
    ],
    [
      'refreshed after it was signed',
      new Date(NOW - 200_000).toISOString(),
      Math.floor(NOW / 1000) - 300,
      false,
    ],
    ['refreshed, token without iat', new Date(NOW - 200_000).toISOString(), undefined, false],
  ])(
    'a temporary token without a refresh count (signed before counting) whose parent was %s is accepted: %s',
    async (_what, refreshedTime, issuedAt, accepted) => {
      const parent = tokenItem({ refreshedTime });
      const act = () => principalFrom(temporary({ issuedAt }), lookup(parent, userItem()), NOW);

      if (accepted) expect(act().kind).toBe('temporary');
      else {
        const error = await unauthorized(Promise.resolve().then(act));
        expect(error.reason).toBe(`temporary token of ${TOKEN} signed before the token was refreshed`);
      }
    },
  );

  it.each([
    ['never refreshed, signed with count 0', {}, 0, true],
    ['refreshed once before it was signed with that count', { refreshCount: 1 }, 1, true],
    ['refreshed since it was signed, in the same millisecond', { refreshCount: 1 }, 0, false],
    ['refreshed twice since', { refreshCount: 2 }, 0, false],
    // A count needs no clock: a signing Lambda whose clock runs behind still agrees.
    [
      'refreshed before it was signed, by a clock a second ahead of the signer',
      { refreshCount: 1, refreshedTime: new Date(NOW - 299_000).toISOString() },
      1,
      true,
    ],
  ])(
    'a temporary token carrying its parent’s refresh count (%s) is accepted: %s',
    async (_what, parentFields, parentRefreshCount, accepted) => {
      const parent = tokenItem({ refreshedTime: new Date(NOW - 299_500).toISOString(), ...parentFields });
      const credential = temporary({ issuedAt: Math.floor(NOW / 1000) - 300, parentRefreshCount });
      const act = () => principalFrom(credential, lookup(parent, userItem()), NOW);

      if (accepted) expect(act().kind).toBe('temporary');
      else {
        const error = await unauthorized(Promise.resolve().then(act));
        expect(error.reason).toBe(`temporary token of ${TOKEN} signed before the token was refreshed`);
      }
    },
  );

  it('a personal token is not affected by its own refreshedTime', () => {
    const parent = tokenItem({ refreshedTime: new Date(NOW - 1000).toISOString() });

    expect(principalFrom(personal, lookup(parent, userItem()), NOW).kind).toBe('personal');
  });

  it("narrows a temporary token's scopes to the parent's current scopes", () => {
    const parent = tokenItem({ scopes: ['space|read', 'record|read', 'record|update'] });
    const credential = temporary({ scopes: ['record|read', 'record|update', 'record|delete'] });

    const principal = principalFrom(credential, lookup(parent, userItem()), NOW);

    expect(principal.scopes).toStrictEqual(new Set<Scope>(['record|read', 'record|update']));
  });

  it.each([
    ['both unlimited', {}, {}, { spaceIds: undefined, baseIds: undefined }],
    ['parent unlimited', {}, { spaceIds: [SPACE_1] }, { spaceIds: [SPACE_1], baseIds: undefined }],
    ['temporary unlimited', { spaceIds: [SPACE_1] }, {}, { spaceIds: [SPACE_1], baseIds: undefined }],
    [
      'space lists intersect',
      { spaceIds: [SPACE_1, SPACE_2] },
      { spaceIds: [SPACE_2] },
      { spaceIds: [SPACE_2], baseIds: undefined },
    ],
    [
      'base lists intersect',
      { baseIds: [BASE_1] },
      { baseIds: [BASE_1, BASE_2] },
      { spaceIds: undefined, baseIds: [BASE_1] },
    ],
    [
      'disjoint space lists cover nothing',
      { spaceIds: [SPACE_1] },
      { spaceIds: [SPACE_2] },
      { spaceIds: [], baseIds: undefined },
    ],
    [
      'parent now limited to a space, temporary to a base: no wider than either',
      { spaceIds: [SPACE_1] },
      { baseIds: [BASE_2] },
      { spaceIds: [], baseIds: [] },
    ],
    [
      'both lists set on both sides',
      { spaceIds: [SPACE_1, SPACE_2], baseIds: [BASE_1] },
      { spaceIds: [SPACE_1], baseIds: [BASE_1, BASE_2] },
      { spaceIds: [SPACE_1], baseIds: [BASE_1] },
    ],
  ])("narrows a temporary token's limits: %s", (_what, parentLimits, claimLimits, expected) => {
    const parent = tokenItem(parentLimits);

    const principal = principalFrom(temporary(claimLimits), lookup(parent, userItem()), NOW);

    expect({ spaceIds: principal.spaceIds, baseIds: principal.baseIds }).toStrictEqual(expected);
  });
});

describe('shouldTouch', () => {
  it.each([
    ['no token', undefined, false],
    ['never used', { lastUsedTime: null }, true],
    ['no lastUsedTime attribute', {}, true],
    ['used a minute ago', { lastUsedTime: new Date(NOW - 60_000).toISOString() }, false],
    [
      'used exactly an hour ago',
      { lastUsedTime: new Date(NOW - LAST_USED_RESOLUTION_MS).toISOString() },
      false,
    ],
    [
      'used an hour and a millisecond ago',
      { lastUsedTime: new Date(NOW - LAST_USED_RESOLUTION_MS - 1).toISOString() },
      true,
    ],
    ['used a day ago', { lastUsedTime: new Date(NOW - 86_400_000).toISOString() }, true],
  ])('%s → %s', (_what, token, expected) => {
    // the token as its entity reads the stored item (an attribute never written reads as null)
    expect(shouldTouch(token && accessTokenOf(token), NOW)).toBe(expected);
  });

  it('touches at most once an hour', () => {
    expect(LAST_USED_RESOLUTION_MS).toBe(3_600_000);
  });
});
