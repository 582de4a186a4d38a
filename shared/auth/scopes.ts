import { ROLES, type Role, SCOPES, type Scope } from '#shared/core/rights.ts';

export { isScope, ROLES, type Role, SCOPES, type Scope } from '#shared/core/rights.ts';

/**
 * Scopes that no space role gives: organizations, the plugin registry and the instance are not
 * resources of a space, so only the token (and, for `instance|admin`, the user's flag) decides.
 */
const OUTSIDE_SPACES = ['enterprise|', 'plugin|', 'instance|'];
const inSpaces = (s: Scope) => !OUTSIDE_SPACES.some((prefix) => s.startsWith(prefix));

/** The scope only an instance admin's token may carry; admin routes need it and the user's flag. */
export const ADMIN_SCOPE = 'instance|admin' satisfies Scope;

/** Every scope a token of this user may carry: all of them, `instance|admin` for admins only. */
export const scopesFor = (isAdmin: boolean): Scope[] => SCOPES.filter((s) => isAdmin || s !== ADMIN_SCOPE);

const reads = SCOPES.filter((s) => s.endsWith('|read') && inSpaces(s));
const viewer: Scope[] = [...reads];
const commenter: Scope[] = [...viewer, 'record|comment'];
const editor: Scope[] = [
  ...commenter,
  'record|create',
  'record|update',
  'record|delete',
  'view|create',
  'view|update',
  'view|delete',
];
const creator: Scope[] = [
  ...editor,
  'base|create',
  'base|update',
  'base|delete',
  'table|create',
  'table|update',
  'table|delete',
  'field|create',
  'field|update',
  'field|delete',
  'space|invite',
];
const owner: Scope[] = SCOPES.filter(inSpaces);

/** The actions each role gives on its space (auth-errors.md, "Roles"). */
export const ROLE_ACTIONS: Readonly<Record<Role, ReadonlySet<Scope>>> = {
  viewer: new Set(viewer),
  commenter: new Set(commenter),
  editor: new Set(editor),
  creator: new Set(creator),
  owner: new Set(owner),
};

/** True when role `a` is at least as strong as role `b`. */
export const roleAtLeast = (a: Role, b: Role): boolean => ROLES.indexOf(a) <= ROLES.indexOf(b);
