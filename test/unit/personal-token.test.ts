import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashSecret,
  mintPersonalToken,
  parsePersonalToken,
  secretMatches,
} from '#shared/auth/personal-token.ts';
import { newId } from '#shared/ids.ts';

const TOKEN_ID = 'accAAAAAAAAAAAAAAAA';
const USER_ID = 'usrBBBBBBBBBBBBBBBB';
const SECRET = '0123456789abcdefghijABCDEFGHIJkl';
const SHAPE = /^pat_acc[0-9A-Za-z]{16}_usr[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/;

describe('mintPersonalToken', () => {
  it('mints pat_<token id>_<user id>_<32 base62 characters>', () => {
    const { token } = mintPersonalToken(TOKEN_ID, USER_ID);

    expect(token).toMatch(SHAPE);
    expect(token.startsWith(`pat_${TOKEN_ID}_${USER_ID}_`)).toBe(true);
  });

  it('parses back to its ids and a secret matching the stored hash', () => {
    const tokenId = newId('accessToken');
    const userId = newId('user');
    const { token, secretHash } = mintPersonalToken(tokenId, userId);

    const parsed = parsePersonalToken(token);

    expect(parsed).toStrictEqual({ tokenId, userId, secret: token.slice(-32) });
    expect(secretMatches(parsed?.secret ?? '', secretHash)).toBe(true);
  });

  it('round-trips for any ids of the right kind (property)', () => {
    const body = fc.stringMatching(/^[0-9A-Za-z]{16}$/);
    fc.assert(
      fc.property(body, body, (t, u) => {
        const { token, secretHash } = mintPersonalToken(`acc${t}`, `usr${u}`);
        const parsed = parsePersonalToken(token);
        expect(parsed).toMatchObject({ tokenId: `acc${t}`, userId: `usr${u}` });
        expect(secretMatches(parsed?.secret ?? '', secretHash)).toBe(true);
      }),
    );
  });

  it('stores a hash that never contains the secret', () => {
    for (let i = 0; i < 200; i++) {
      const { token, secretHash } = mintPersonalToken(TOKEN_ID, USER_ID);
      const secret = token.slice(-32);
      expect(secretHash).not.toContain(secret);
      expect(secretHash).toBe(hashSecret(secret));
      expect(secretHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('mints a different secret every time', () => {
    const a = mintPersonalToken(TOKEN_ID, USER_ID);
    const b = mintPersonalToken(TOKEN_ID, USER_ID);

    expect(a.token).not.toBe(b.token);
    expect(a.secretHash).not.toBe(b.secretHash);
  });
});

describe('parsePersonalToken', () => {
  it('accepts a well-formed token', () => {
    expect(parsePersonalToken(`pat_${TOKEN_ID}_${USER_ID}_${SECRET}`)).toStrictEqual({
      tokenId: TOKEN_ID,
      userId: USER_ID,
      secret: SECRET,
    });
  });

  it.each([
    ['another prefix', `pak_${TOKEN_ID}_${USER_ID}_${SECRET}`],
    ['an upper-case prefix', `PAT_${TOKEN_ID}_${USER_ID}_${SECRET}`],
    ['no prefix', `${TOKEN_ID}_${USER_ID}_${SECRET}`],
    ['ids swapped', `pat_${USER_ID}_${TOKEN_ID}_${SECRET}`],
    ['a token id too short', `pat_accAAAAAAAAAAAAAAA_${USER_ID}_${SECRET}`],
    ['a user id of another kind', `pat_${TOKEN_ID}_spcBBBBBBBBBBBBBBBB_${SECRET}`],
    ['a secret one short', `pat_${TOKEN_ID}_${USER_ID}_${SECRET.slice(1)}`],
    ['a secret one long', `pat_${TOKEN_ID}_${USER_ID}_${SECRET}x`],
    ['a dash in the secret', `pat_${TOKEN_ID}_${USER_ID}_${SECRET.slice(1)}-`],
    ['an extra part', `pat_${TOKEN_ID}_${USER_ID}_${SECRET}_x`],
    ['a missing secret', `pat_${TOKEN_ID}_${USER_ID}`],
    ['a trailing newline', `pat_${TOKEN_ID}_${USER_ID}_${SECRET}\n`],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
    ['the empty string', ''],
  ])('rejects %s', (_what, text) => {
    expect(parsePersonalToken(text)).toBeUndefined();
  });

  it('random text never parses (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        expect(parsePersonalToken(text)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('text made of token-like parts parses exactly when it has the exact shape (property)', () => {
    const base62 = fc.stringMatching(/^[0-9A-Za-z]{0,34}$/);
    const part = fc.oneof(
      fc.constantFrom('pat', 'acc', 'usr', ''),
      base62,
      base62.map((b) => `acc${b}`),
      base62.map((b) => `usr${b}`),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.join('_');
        const parsed = parsePersonalToken(text);
        expect(parsed !== undefined).toBe(SHAPE.test(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('any token of the exact shape parses (property)', () => {
    const body = (n: number) => fc.stringMatching(new RegExp(`^[0-9A-Za-z]{${n}}$`));
    fc.assert(
      fc.property(body(16), body(16), body(32), (t, u, s) => {
        expect(parsePersonalToken(`pat_acc${t}_usr${u}_${s}`)).toStrictEqual({
          tokenId: `acc${t}`,
          userId: `usr${u}`,
          secret: s,
        });
      }),
    );
  });
});

describe('secretMatches', () => {
  it('is true for the secret of the stored hash', () => {
    expect(secretMatches(SECRET, hashSecret(SECRET))).toBe(true);
  });

  it.each([
    ['another secret', hashSecret(`${SECRET.slice(1)}X`)],
    ['an empty stored hash', ''],
    ['a shorter stored hash', hashSecret(SECRET).slice(1)],
    ['the secret itself stored instead of a hash', SECRET],
    ['the string "undefined"', 'undefined'],
  ])('is false against %s', (_what, stored) => {
    expect(secretMatches(SECRET, stored)).toBe(false);
  });

  it('is false for any other secret (property)', () => {
    const stored = hashSecret(SECRET);
    fc.assert(
      fc.property(fc.string(), (other) => {
        fc.pre(other !== SECRET);
        expect(secretMatches(other, stored)).toBe(false);
      }),
    );
  });
});
