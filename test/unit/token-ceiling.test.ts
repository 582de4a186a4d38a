import { describe, expect, it } from 'vitest';
import type { Principal } from '#shared/auth/permission.ts';
import { SCOPES, type Scope, scopesFor } from '#shared/auth/scopes.ts';
import {
  basesToPlace,
  checkExpiryWithinCeiling,
  checkMayCreateAdmin,
  checkWithinCeiling,
  type TokenRights,
} from '#shared/auth/token-ceiling.ts';
import { ForbiddenError, ValidationError } from '#shared/core/errors.ts';

const caller = (over: Partial<Principal> = {}): Principal => ({
  userId: 'usr0000000000000001',
  name: 'A',
  email: 'a@example.test',
  isAdmin: false,
  tokenId: 'acc0000000000000001',
  kind: 'personal',
  scopes: new Set<Scope>(scopesFor(false)),
  ...over,
});

const SPACE_A = 'spcAAAAAAAAAAAAAAAA';
const SPACE_B = 'spcBBBBBBBBBBBBBBBB';
const BASE_IN_A = 'bseAAAAAAAAAAAAAAAA';
const BASE_IN_B = 'bseBBBBBBBBBBBBBBBB';
const spaceOf = (b: string) => ({ [BASE_IN_A]: SPACE_A, [BASE_IN_B]: SPACE_B })[b];

const refusal = (who: Principal, wanted: TokenRights) => {
  try {
    checkWithinCeiling(who, wanted, spaceOf);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ForbiddenError);
    return (error as Error).message;
  }
};

describe('checkWithinCeiling', () => {
  const readOnly = caller({ scopes: new Set<Scope>(['record|read']) });
  const inA = caller({ spaceIds: [SPACE_A] });
  const onBaseA = caller({ baseIds: [BASE_IN_A] });

  it.each([
    ['the same scopes', readOnly, { scopes: ['record|read'] }],
    ['fewer scopes', caller(), { scopes: ['record|read', 'space|read'] }],
    ['any limits from an unlimited token', caller(), { scopes: ['record|read'], spaceIds: [SPACE_B] }],
    ['its own space', inA, { scopes: ['record|read'], spaceIds: [SPACE_A] }],
    ['a base inside its space', inA, { scopes: ['record|read'], baseIds: [BASE_IN_A] }],
    ['its own base', onBaseA, { scopes: ['record|read'], baseIds: [BASE_IN_A] }],
    [
      'instance|admin from an admin',
      caller({ isAdmin: true, scopes: new Set(SCOPES) }),
      { scopes: ['instance|admin'] },
    ],
  ] as [string, Principal, TokenRights][])('allows %s', (_, who, wanted) => {
    expect(refusal(who, wanted)).toBeUndefined();
  });

  it.each([
    [
      'a scope it lacks',
      readOnly,
      { scopes: ['record|read', 'space|delete'] },
      /cannot give scopes .*: space\|delete$/,
    ],
    ['every scope', readOnly, { scopes: scopesFor(false) }, /cannot give scopes/],
    [
      'instance|admin from a non-admin',
      caller({ scopes: new Set(SCOPES) }),
      { scopes: ['instance|admin'] },
      /only an instance admin/,
    ],
    ['no limit from a limited token', inA, { scopes: ['record|read'] }, /so must be the tokens it gives/],
    [
      'null limits from a limited token',
      inA,
      { scopes: ['record|read'], spaceIds: null, baseIds: null },
      /so must be/,
    ],
    [
      'another space',
      inA,
      { scopes: ['record|read'], spaceIds: [SPACE_B] },
      new RegExp(`do not cover ${SPACE_B}$`),
    ],
    ['a base in another space', inA, { scopes: ['record|read'], baseIds: [BASE_IN_B] }, /do not cover bse/],
    ['an unknown base', inA, { scopes: ['record|read'], baseIds: ['bseUnknownUnknownUn'] }, /do not cover/],
    ['the space of its base', onBaseA, { scopes: ['record|read'], spaceIds: [SPACE_A] }, /do not cover spc/],
    ['an empty space list', inA, { scopes: ['record|read'], spaceIds: [], baseIds: [] }, undefined],
  ] as [string, Principal, TokenRights, RegExp | undefined][])('refuses %s', (_, who, wanted, message) => {
    const refused = refusal(who, wanted);
    // An empty list gives nothing, so it is within any ceiling; the routes answer it with a 400 first.
    if (message === undefined) expect(refused).toBeUndefined();
    else expect(refused).toMatch(message);
  });
});

describe('basesToPlace', () => {
  it('names only the bases a limited caller does not list itself', () => {
    const who = caller({ spaceIds: [SPACE_A], baseIds: [BASE_IN_A] });

    expect(basesToPlace(who, { scopes: [], baseIds: [BASE_IN_A, BASE_IN_B] })).toEqual([BASE_IN_B]);
    expect(basesToPlace(caller(), { scopes: [], baseIds: [BASE_IN_B] })).toEqual([]);
  });
});

describe('checkExpiryWithinCeiling', () => {
  const EXPIRY = '2030-06-01T12:00:00.000Z';
  const bounded = caller({ expiredTime: EXPIRY });
  const refusal = (who: Principal, expiredTime: string, edited?: string) => {
    try {
      checkExpiryWithinCeiling(who, expiredTime, edited);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return error as ValidationError;
    }
  };

  it.each([
    ['a day before', '2030-05-31T12:00:00.000Z'],
    ['the same instant', EXPIRY],
    ['the same instant in another offset', '2030-06-01T14:00:00+02:00'],
  ])('allows an expiry %s the caller’s', (_, expiredTime) => {
    expect(refusal(bounded, expiredTime)).toBeUndefined();
  });

  it.each([
    ['a millisecond after', '2030-06-01T12:00:00.001Z'],
    ['in 2099', '2099-01-01T00:00:00.000Z'],
    ['later only by its offset', '2030-06-01T12:00:00-01:00'],
  ])('refuses an expiry %s the caller’s with a 400 naming the limit and the field', (_, expiredTime) => {
    const message = `expiredTime must not be later than the calling token's expiry (${EXPIRY})`;

    expect(refusal(bounded, expiredTime)?.toBody()).toEqual({
      message,
      status: 400,
      code: 'validation_error',
      details: [{ path: 'body.expiredTime', message }],
    });
  });

  it('refuses the edit of a token that expires later than the caller, naming it', () => {
    expect(refusal(bounded, '2031-01-01T00:00:00.000Z', 'acc0000000000000002')?.toBody()).toEqual({
      message: `token acc0000000000000002 expires 2031-01-01T00:00:00.000Z, later than the calling token's expiry (${EXPIRY}): a token edits only tokens that expire no later than itself`,
      status: 400,
      code: 'validation_error',
    });
  });

  it('leaves a caller without an expiry (a session or the operator) unbounded', () => {
    expect(refusal(caller(), '2099-01-01T00:00:00.000Z')).toBeUndefined();
  });
});

describe('checkMayCreateAdmin', () => {
  const admin = (over: Partial<Principal> = {}) =>
    caller({ isAdmin: true, scopes: new Set(SCOPES), ...over });

  it('allows an unlimited personal token', () => {
    expect(() => checkMayCreateAdmin(admin())).not.toThrow();
  });

  it.each([
    ['a temporary token', admin({ kind: 'temporary' })],
    ['a token limited to a space', admin({ spaceIds: [SPACE_A] })],
    ['a token limited to a base', admin({ baseIds: [BASE_IN_A] })],
    ['a token limited to nothing (empty lists)', admin({ spaceIds: [], baseIds: [] })],
  ])('refuses %s with a 403', (_, who) => {
    expect(() => checkMayCreateAdmin(who)).toThrow(
      new ForbiddenError(
        'creating an instance admin needs an unlimited personal token of an instance admin: not a temporary token, nor one limited to spaces or bases',
      ),
    );
  });
});
