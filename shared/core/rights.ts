/**
 * The names of rights: token scopes and space roles. Core, so the entity modules that store
 * them (access tokens, memberships) read them typed; what each role may do is shared/auth's.
 */

/** Every token scope of the contract, `resource|action`. */
export const SCOPES = [
  'space|create',
  'space|read',
  'space|update',
  'space|delete',
  'space|invite',
  'space|grant_role',
  'base|create',
  'base|read',
  'base|update',
  'base|delete',
  'table|create',
  'table|read',
  'table|update',
  'table|delete',
  'view|create',
  'view|read',
  'view|update',
  'view|delete',
  'field|create',
  'field|read',
  'field|update',
  'field|delete',
  'record|create',
  'record|read',
  'record|update',
  'record|delete',
  'record|comment',
  'enterprise|read',
  'enterprise|update',
  'plugin|create',
  'plugin|read',
  'plugin|update',
  'plugin|delete',
  'instance|admin',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Space roles, strongest first. */
export const ROLES = ['owner', 'creator', 'editor', 'commenter', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);
