import { describe, expect, it } from 'vitest';
import { checkAccess, checkScopes, type Principal, tokenCovers } from '#shared/auth/permission.ts';
import { ROLES, type Role, SCOPES, type Scope } from '#shared/auth/scopes.ts';
import { ForbiddenError } from '#shared/core/errors.ts';

const SPACE = 'spcAAAAAAAAAAAAAAAA';
const OTHER_SPACE = 'spcBBBBBBBBBBBBBBBB';
const BASE = 'bseAAAAAAAAAAAAAAAA';
const OTHER_BASE = 'bseBBBBBBBBBBBBBBBB';
const TABLE = 'tblAAAAAAAAAAAAAAAA';

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  userId: 'usrAAAAAAAAAAAAAAAA',
  name: 'Ada',
  email: 'ada@example.test',
  isAdmin: false,
  tokenId: 'accAAAAAAAAAAAAAAAA',
  kind: 'personal',
  scopes: new Set(SCOPES),
  ...overrides,
});

const resource = { id: TABLE, spaceId: SPACE, baseId: BASE };

/**
 * auth-errors.md, "Roles", written out by hand: the weakest role that has each action (every
 * stronger role has it too); `none` for the actions no space role gives.
 */
const LEAST_ROLE: Record<Scope, 'viewer' | 'commenter' | 'editor' | 'creator' | 'owner' | 'none'> = {
  'space|create': 'owner',
  'space|read': 'viewer',
  'space|update': 'owner',
  'space|delete': 'owner',
  'space|invite': 'creator',
  'space|grant_role': 'owner',
  'base|create': 'creator',
  'base|read': 'viewer',
  'base|update': 'creator',
  'base|delete': 'creator',
  'table|create': 'creator',
  'table|read': 'viewer',
  'table|update': 'creator',
  'table|delete': 'creator',
  'view|create': 'editor',
  'view|read': 'viewer',
  'view|update': 'editor',
  'view|delete': 'editor',
  'field|create': 'creator',
  'field|read': 'viewer',
  'field|update': 'creator',
  'field|delete': 'creator',
  'record|create': 'editor',
  'record|read': 'viewer',
  'record|update': 'editor',
  'record|delete': 'editor',
  'record|comment': 'commenter',
  'enterprise|read': 'none',
  'enterprise|update': 'none',
  'plugin|create': 'none',
  'plugin|read': 'none',
  'plugin|update': 'none',
  'plugin|delete': 'none',
  'instance|admin': 'none',
};
const STRENGTH = ['viewer', 'commenter', 'editor', 'creator', 'owner'] as const;
const allowed = (role: Role, scope: Scope) => {
  const least = LEAST_ROLE[scope];
  return least !== 'none' && STRENGTH.indexOf(role) >= STRENGTH.indexOf(least);
};

const MATRIX = ROLES.flatMap((role) => SCOPES.map((scope) => [role, scope, allowed(role, scope)] as const));

const forbidden = (fn: () => void): ForbiddenError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ForbiddenError);
    return error as ForbiddenError;
  }
  throw new Error('expected a ForbiddenError');
};

describe('checkAccess: role × action (token with every scope)', () => {
  it('the hand-written table covers every scope of the contract', () => {
    expect(Object.keys(LEAST_ROLE).sort()).toEqual([...SCOPES].sort());
    expect(MATRIX).toHaveLength(5 * 34);
  });

  it.each(MATRIX)('%s may %s: %s', (role, scope, expected) => {
    const act = () => checkAccess({ principal: principal(), resource, role, actions: [scope] });

    if (expected) expect(act).not.toThrow();
    else {
      const error = forbidden(act);
      expect(error.toBody()).toStrictEqual({
        message: `not allowed to operate ${scope} on ${TABLE}`,
        status: 403,
        code: 'restricted_resource',
      });
    }
  });

  it.each([
    ['viewer', 6],
    ['commenter', 7],
    ['editor', 13],
    ['creator', 23],
    ['owner', 27],
  ] as const)('a %s passes exactly %i actions', (role, count) => {
    const passed = SCOPES.filter((scope) => {
      try {
        checkAccess({ principal: principal(), resource, role, actions: [scope] });
        return true;
      } catch {
        return false;
      }
    });

    expect(passed).toHaveLength(count);
  });
});

describe('checkAccess: the other steps', () => {
  it('a caller who is not a collaborator gets 403 restricted_resource', () => {
    const error = forbidden(() =>
      checkAccess({ principal: principal(), resource, role: undefined, actions: ['record|read'] }),
    );

    expect(error.status).toBe(403);
    expect(error.code).toBe('restricted_resource');
    expect(error.message).toBe(`not a collaborator of the space that holds ${resource.id}`);
    expect(error.message).not.toContain(SPACE);
  });

  it('a non-collaborator is refused even for a route needing no action', () => {
    expect(() => checkAccess({ principal: principal(), resource, role: undefined, actions: [] })).toThrow(
      ForbiddenError,
    );
  });

  it.each(ROLES)('a %s whose token lacks the action gets 403 naming the action and the resource', (role) => {
    const token = principal({ scopes: new Set<Scope>(['record|create']) });

    const error = forbidden(() =>
      checkAccess({ principal: token, resource, role, actions: ['record|read'] }),
    );

    expect(error.toBody()).toStrictEqual({
      message: `not allowed to operate record|read on ${TABLE}`,
      status: 403,
      code: 'restricted_resource',
    });
  });

  it('names the first action missing when a route needs several', () => {
    const token = principal({ scopes: new Set<Scope>(['record|read', 'record|create']) });

    const error = forbidden(() =>
      checkAccess({
        principal: token,
        resource,
        role: 'owner',
        actions: ['record|read', 'record|update', 'record|delete'],
      }),
    );

    expect(error.message).toBe(`not allowed to operate record|update on ${TABLE}`);
  });

  it('passes when every action is in both the role and the token', () => {
    const token = principal({ scopes: new Set<Scope>(['record|read', 'record|update']) });

    expect(() =>
      checkAccess({ principal: token, resource, role: 'editor', actions: ['record|read', 'record|update'] }),
    ).not.toThrow();
  });

  it('a token limited to other spaces gets 403 before the action is checked', () => {
    const token = principal({ spaceIds: [OTHER_SPACE], scopes: new Set() });

    const error = forbidden(() =>
      checkAccess({ principal: token, resource, role: 'owner', actions: ['record|read'] }),
    );

    expect(error.message).toBe(`this token is limited to other spaces or bases than ${TABLE}`);
  });
});

describe('tokenCovers', () => {
  it.each([
    ['no limits', {}, resource, true],
    ['the space in spaceIds', { spaceIds: [OTHER_SPACE, SPACE] }, resource, true],
    ['the base in baseIds', { baseIds: [BASE] }, resource, true],
    [
      'the base in baseIds, spaceIds of other spaces',
      { spaceIds: [OTHER_SPACE], baseIds: [BASE] },
      resource,
      true,
    ],
    [
      'the space in spaceIds, baseIds of other bases',
      { spaceIds: [SPACE], baseIds: [OTHER_BASE] },
      resource,
      true,
    ],
    ['neither listed', { spaceIds: [OTHER_SPACE], baseIds: [OTHER_BASE] }, resource, false],
    ['only other spaces listed', { spaceIds: [OTHER_SPACE] }, resource, false],
    ['only other bases listed', { baseIds: [OTHER_BASE] }, resource, false],
    ['an empty spaceIds list', { spaceIds: [] }, resource, false],
    [
      'baseIds set, resource with no base (a space)',
      { baseIds: [BASE] },
      { id: SPACE, spaceId: SPACE },
      false,
    ],
    ['spaceIds set, the space itself', { spaceIds: [SPACE] }, { id: SPACE, spaceId: SPACE }, true],
  ] as const)('%s → %s', (_what, limits, target, expected) => {
    expect(tokenCovers(principal(limits as Partial<Principal>), target)).toBe(expected);
  });

  it.each([
    ['space in spaceIds covers', { spaceIds: [SPACE] }, false],
    ['base in baseIds covers', { baseIds: [BASE] }, false],
    ['neither listed is a 403', { spaceIds: [OTHER_SPACE], baseIds: [OTHER_BASE] }, true],
  ] as const)('checkAccess with limits: %s', (_what, limits, refused) => {
    const act = () =>
      checkAccess({ principal: principal(limits), resource, role: 'owner', actions: ['table|read'] });

    if (refused) expect(act).toThrow(ForbiddenError);
    else expect(act).not.toThrow();
  });
});

describe('checkScopes', () => {
  it('passes when the token holds every action', () => {
    const token = principal({ scopes: new Set<Scope>(['space|create', 'space|read']) });

    expect(() => checkScopes(token, ['space|create', 'space|read'])).not.toThrow();
  });

  it('passes a route that needs no action with a token of no scopes', () => {
    expect(() => checkScopes(principal({ scopes: new Set() }), [])).not.toThrow();
  });

  it('refuses a missing scope with 403 naming it', () => {
    const token = principal({ scopes: new Set<Scope>(['space|read']) });

    const error = forbidden(() => checkScopes(token, ['space|read', 'space|create']));

    expect(error.toBody()).toStrictEqual({
      message: 'not allowed to operate space|create',
      status: 403,
      code: 'restricted_resource',
    });
  });

  it('ignores roles: enterprise scopes held by the token pass', () => {
    const token = principal({ scopes: new Set<Scope>(['enterprise|read']) });

    expect(() => checkScopes(token, ['enterprise|read'])).not.toThrow();
  });
});
