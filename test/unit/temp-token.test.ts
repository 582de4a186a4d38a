import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SigningKeys } from '#shared/auth/signing-keys.ts';
import {
  signTempToken,
  TEMP_TOKEN_SECONDS,
  type TempTokenClaims,
  verifyTempToken,
} from '#shared/auth/temp-token.ts';

const KEYS: SigningKeys = { current: 'k1', keys: { k1: 'k1-secret-of-at-least-32-bytes!!' } };
const ROTATED: SigningKeys = {
  current: 'k2',
  keys: { ...KEYS.keys, k2: 'k2-secret-of-at-least-32-bytes!!' },
};
const CLAIMS: TempTokenClaims = {
  userId: 'usrAAAAAAAAAAAAAAAA',
  parentTokenId: 'accAAAAAAAAAAAAAAAA',
  scopes: ['space|read', 'record|read'],
  spaceIds: ['spcAAAAAAAAAAAAAAAA'],
  baseIds: ['bseAAAAAAAAAAAAAAAA'],
};
const ISSUER = 'workspace-api';
const AUDIENCE = 'workspace-api';
const key = (text: string) => new TextEncoder().encode(text);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Verifies and returns the claims or the reason given for refusing. */
const verify = async (token: string, keys: SigningKeys = KEYS) => {
  let reason: string | undefined;
  const claims = await verifyTempToken(token, keys, (r) => {
    reason = r;
  });
  return { claims, reason };
};

/** A token built directly with jose, the same key and kid as the service unless changed. */
const craft = (
  payload: Record<string, unknown> = { tid: CLAIMS.parentTokenId, scp: CLAIMS.scopes },
  options: { alg?: string; kid?: string; secret?: string; iss?: string; aud?: string; exp?: number } = {},
) => {
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', kid: options.kid ?? 'k1', typ: 'JWT' })
    .setSubject(CLAIMS.userId)
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.exp ?? nowSeconds() + 300);
  return jwt.sign(key(options.secret ?? KEYS.keys.k1 ?? ''));
};

describe('signTempToken / verifyTempToken', () => {
  it('round-trips the claims, with the issue time in whole seconds', async () => {
    const now = Date.now();
    const { accessToken } = await signTempToken(CLAIMS, KEYS, now);

    expect(await verify(accessToken)).toStrictEqual({
      claims: {
        ...CLAIMS,
        issuedAt: Math.floor(now / 1000),
        expiresAt: Math.floor(now / 1000) + TEMP_TOKEN_SECONDS,
      },
      reason: undefined,
    });
  });

  it('round-trips claims without limits', async () => {
    const claims: TempTokenClaims = {
      userId: CLAIMS.userId,
      parentTokenId: CLAIMS.parentTokenId,
      scopes: [],
    };
    const now = Date.now();
    const { accessToken } = await signTempToken(claims, KEYS, now);

    expect((await verify(accessToken)).claims).toStrictEqual({
      ...claims,
      spaceIds: undefined,
      baseIds: undefined,
      issuedAt: Math.floor(now / 1000),
      expiresAt: Math.floor(now / 1000) + TEMP_TOKEN_SECONDS,
    });
  });

  it('signs HS256 with the current kid, issuer, audience and sub', async () => {
    const { accessToken } = await signTempToken(CLAIMS, ROTATED);

    expect(decodeProtectedHeader(accessToken)).toStrictEqual({ alg: 'HS256', kid: 'k2', typ: 'JWT' });
    expect(decodeJwt(accessToken)).toMatchObject({
      sub: CLAIMS.userId,
      tid: CLAIMS.parentTokenId,
      scp: CLAIMS.scopes,
      spc: CLAIMS.spaceIds,
      bse: CLAIMS.baseIds,
      iss: ISSUER,
      aud: AUDIENCE,
    });
  });

  it(`expires ${TEMP_TOKEN_SECONDS} s (10 minutes) after it was issued`, async () => {
    const now = Date.UTC(2026, 10, 22, 8, 15, 0, 250);

    const { accessToken, expiresTime } = await signTempToken(CLAIMS, KEYS, now);

    const payload = decodeJwt(accessToken);
    expect(TEMP_TOKEN_SECONDS).toBe(600);
    expect(payload.iat).toBe(Math.floor(now / 1000));
    expect(payload.exp).toBe(Math.floor(now / 1000) + 600);
    expect(expiresTime).toBe('2026-11-22T08:25:00.000Z');
  });

  it('a token issued 590 s ago still verifies', async () => {
    const now = Date.now() - 590_000;
    const { accessToken } = await signTempToken(CLAIMS, KEYS, now);

    expect((await verify(accessToken)).claims).toStrictEqual({
      ...CLAIMS,
      issuedAt: Math.floor(now / 1000),
      expiresAt: Math.floor(now / 1000) + TEMP_TOKEN_SECONDS,
    });
  });

  it('rejects a token issued more than 600 s ago (expired)', async () => {
    const { accessToken } = await signTempToken(CLAIMS, KEYS, Date.now() - 601_000);

    const { claims, reason } = await verify(accessToken);

    expect(claims).toBeUndefined();
    expect(reason).toMatch(/^temporary token rejected: .*"exp" claim/);
  });

  it('verifies a token signed with an older key still in the set (rotation)', async () => {
    const { accessToken } = await signTempToken(CLAIMS, KEYS);

    expect((await verify(accessToken, ROTATED)).claims).toMatchObject(CLAIMS);
  });

  it('drops unknown scopes from the claims', async () => {
    const token = await craft({ tid: CLAIMS.parentTokenId, scp: ['record|read', 'record|everything'] });

    expect((await verify(token)).claims?.scopes).toStrictEqual(['record|read']);
  });

  it('a crafted token with the right key, kid, issuer and audience verifies (control)', async () => {
    expect((await verify(await craft())).claims).toMatchObject({ userId: CLAIMS.userId });
  });

  it.each([
    ['a wrong issuer', { iss: 'someone-else' }, /"iss" claim/],
    ['a wrong audience', { aud: 'someone-else' }, /"aud" claim/],
    ['HS512 with the same key', { alg: 'HS512' }, /"alg"/],
    ['HS384 with the same key', { alg: 'HS384' }, /"alg"/],
    ['an unknown kid', { kid: 'k9', secret: 'k9-secret-of-at-least-32-bytes!!' }, /unknown kid k9/],
    ['the right kid with another key', { secret: 'another-secret-of-at-least-32-by' }, /signature/],
    ['an exp in the past', { exp: nowSeconds() - 1 }, /"exp" claim/],
  ])('rejects %s', async (_what, options, reason) => {
    const token = await craft(undefined, options);

    const result = await verify(token);

    expect(result.claims).toBeUndefined();
    expect(result.reason).toMatch(reason);
  });

  it('rejects a token without kid', async () => {
    const token = await new SignJWT({ tid: CLAIMS.parentTokenId, scp: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(CLAIMS.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(nowSeconds() + 300)
      .sign(key(KEYS.keys.k1 ?? ''));

    expect(await verify(token)).toStrictEqual({
      claims: undefined,
      reason: 'temporary token rejected: unknown kid undefined',
    });
  });

  it('rejects alg none', async () => {
    const unsecured = new UnsecuredJWT({ tid: CLAIMS.parentTokenId, scp: CLAIMS.scopes })
      .setSubject(CLAIMS.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(nowSeconds() + 300)
      .encode();

    const result = await verify(unsecured);

    expect(decodeProtectedHeader(unsecured).alg).toBe('none');
    expect(result.claims).toBeUndefined();
  });

  it('rejects alg none with a kid that exists', async () => {
    const { accessToken } = await signTempToken(CLAIMS, KEYS);
    const [, payload] = accessToken.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1', typ: 'JWT' })).toString('base64url');

    expect((await verify(`${header}.${payload}.`)).claims).toBeUndefined();
  });

  it('rejects a tampered payload (wider scopes, same signature)', async () => {
    const { accessToken } = await signTempToken(CLAIMS, KEYS);
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const widened = Buffer.from(JSON.stringify({ ...claims, scp: ['space|delete'] })).toString('base64url');

    const result = await verify(`${header}.${widened}.${signature}`);

    expect(result.claims).toBeUndefined();
    expect(result.reason).toMatch(/signature verification failed/);
  });

  it.each([
    ['no tid', { scp: CLAIMS.scopes }],
    ['no scp', { tid: CLAIMS.parentTokenId }],
    ['scp not a list of strings', { tid: CLAIMS.parentTokenId, scp: [1, 2] }],
    ['tid not a string', { tid: 7, scp: CLAIMS.scopes }],
  ])('rejects a well-signed token with %s', async (_what, payload) => {
    const token = await craft(payload);

    expect(await verify(token)).toStrictEqual({
      claims: undefined,
      reason: 'temporary token without sub, tid or scp',
    });
  });

  it.each([
    ['garbage', 'not.a.jwt'],
    ['empty parts', '..'],
    ['a personal token', `pat_accAAAAAAAAAAAAAAAA_usrAAAAAAAAAAAAAAAA_${'x'.repeat(32)}`],
  ])('rejects %s without throwing', async (_what, token) => {
    const result = await verify(token);

    expect(result.claims).toBeUndefined();
    expect(result.reason).toMatch(/^temporary token rejected: /);
  });
});
