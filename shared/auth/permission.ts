import { ForbiddenError } from '#shared/core/errors.ts';
import { ROLE_ACTIONS, type Role, roleAtLeast, SCOPES, type Scope } from './scopes.ts';

/** Who is calling: the user, the token used, and what that token allows. */
export interface Principal {
  userId: string;
  name: string;
  email: string;
  isAdmin: boolean;
  /** The (parent) token's id; empty for a session. */
  tokenId: string;
  kind: 'personal' | 'temporary' | 'session';
  /** A session's secret hash and epoch (signout and a password change end it). */
  session?: { secretHash: string; epoch: number };
  scopes: ReadonlySet<Scope>;
  /** When set, the token only reaches these spaces (or the bases below). */
  spaceIds?: readonly string[];
  /** When set, the token only reaches these bases (or the spaces above). */
  baseIds?: readonly string[];
  /**
   * When the credential ends (a temporary token's parent's expiry: it acts for its parent): the
   * tokens it gives may not outlive it (`checkExpiryWithinCeiling`). Unset: not bounded in time.
   */
  expiredTime?: string;
  /** How many times the (parent) token was refreshed: temporary tokens signed now carry it. */
  refreshCount?: number;
}

/** A resource located in its space, ready for the check. */
export interface LocatedResource {
  id: string;
  spaceId: string;
  baseId?: string;
}

/**
 * The one test every permission is made of: the caller's role in the space holds the action and
 * so do the token's scopes (a non-member holds nothing). Pure.
 */
export const mayDo = (principal: Pick<Principal, 'scopes'>, role: Role | undefined, action: Scope): boolean =>
  role !== undefined && ROLE_ACTIONS[role].has(action) && principal.scopes.has(action);

/** True when the token's space/base limits cover the resource. */
export const tokenCovers = (principal: Principal, resource: LocatedResource): boolean => {
  if (!principal.spaceIds && !principal.baseIds) return true;
  if (principal.spaceIds?.includes(resource.spaceId)) return true;
  return resource.baseId !== undefined && (principal.baseIds?.includes(resource.baseId) ?? false);
};

/**
 * The permission check of auth-errors.md, steps 2 to 4, on data already loaded: the caller's
 * role in the resource's space (undefined when not a collaborator), the token's limits, and
 * every action in both the role and the token's scopes. Throws a 403 naming what is missing.
 */
export const checkAccess = (input: {
  principal: Principal;
  resource: LocatedResource;
  role: Role | undefined;
  actions: readonly Scope[];
}): void => {
  const { principal, resource, role, actions } = input;
  // The caller named the resource's id; the space above it is not theirs to learn.
  if (!role)
    throw new ForbiddenError(
      resource.id === resource.spaceId
        ? `not a collaborator of space ${resource.id}`
        : `not a collaborator of the space that holds ${resource.id}`,
    );
  if (!tokenCovers(principal, resource))
    throw new ForbiddenError(`this token is limited to other spaces or bases than ${resource.id}`);
  for (const action of actions) {
    if (!mayDo(principal, role, action))
      throw new ForbiddenError(`not allowed to operate ${action} on ${resource.id}`);
  }
};

/** The check for routes that touch no space resource: only the token's scopes count. */
export const checkScopes = (principal: Principal, actions: readonly Scope[]): void => {
  for (const action of actions) {
    if (!principal.scopes.has(action)) throw new ForbiddenError(`not allowed to operate ${action}`);
  }
};

/**
 * `{"<action>": allowed}` for each of `actions` on a located resource: allowed when the caller
 * is a collaborator with a role that has it, the token's scopes hold it and its limits cover the
 * resource (the check of `checkAccess`, answered instead of thrown).
 */
export const permissionMap = <A extends Scope>(
  principal: Principal,
  resource: LocatedResource,
  role: Role | undefined,
  actions: readonly A[],
): Record<A, boolean> => {
  const covered = tokenCovers(principal, resource);
  return Object.fromEntries(actions.map((a) => [a, covered && mayDo(principal, role, a)])) as Record<
    A,
    boolean
  >;
};

/** The caller's rights on a table (`GET …/table/{t}/permission`): `{table, view, field, record}`. */
export const tablePermission = (principal: Principal, resource: LocatedResource, role: Role | undefined) => {
  const of = (kind: 'table' | 'view' | 'field' | 'record') =>
    permissionMap(
      principal,
      resource,
      role,
      SCOPES.filter((s) => s.startsWith(`${kind}|`)),
    );
  return { table: of('table'), view: of('view'), field: of('field'), record: of('record') };
};

/**
 * The caller's rights on a table as `GET …/table/{t}/permission` answers them: `field` holds both
 * shapes Teable has used — the flat field rights of its current client (`@teable/openapi` 1.10)
 * and, beside them, the rights per field and `create` that Teable 1.5's web app reads
 * (`field.fields[<fieldId>]['field|read']`; each field has the table's rights: there are no rights
 * of one field here). Pure.
 */
export const tablePermissionByField = (
  principal: Principal,
  resource: LocatedResource,
  role: Role | undefined,
  fieldIds: readonly string[],
) => {
  const { field, ...rest } = tablePermission(principal, resource, role);
  const { 'field|create': create, ...each } = field;
  return {
    ...rest,
    field: { ...field, fields: Object.fromEntries(fieldIds.map((id) => [id, each])), create },
  };
};

// ---- Rules that depend on the data, not only on the route: named here, checked where the data is read.

/**
 * The role-grant ceiling: a member grants only roles up to their own, and the owner role only
 * with `space|grant_role` in both role and token (403 otherwise). Pure.
 */
export const assertMayGrant = (
  principal: Pick<Principal, 'scopes'>,
  mine: Role | undefined,
  spaceId: string,
  granted: Role,
): void => {
  if (!mine || !roleAtLeast(mine, granted))
    throw new ForbiddenError(`a ${mine ?? 'non-member'} cannot grant the role ${granted}`);
  if (granted === 'owner' && !mayDo(principal, mine, 'space|grant_role'))
    throw new ForbiddenError(`not allowed to operate space|grant_role on ${spaceId}`);
};

/** Removing another member needs `space|grant_role` in role and token (leaving needs nothing). Pure. */
export const assertMayRemoveMember = (
  principal: Pick<Principal, 'scopes' | 'userId'>,
  mine: Role | undefined,
  spaceId: string,
  userId: string,
): void => {
  if (userId !== principal.userId && !mayDo(principal, mine, 'space|grant_role'))
    throw new ForbiddenError(`not allowed to operate space|grant_role on ${spaceId}`);
};

/** What a plugin rule needs to know of the plugin. */
export interface PluginOwnership {
  id: string;
  createdBy: string;
  status: string;
}

/** Who may see a plugin: anyone once published; otherwise its creator and instance admins. Pure. */
export const maySeePlugin = (
  plugin: PluginOwnership,
  principal: Pick<Principal, 'userId' | 'isAdmin'>,
): boolean => plugin.status === 'published' || plugin.createdBy === principal.userId || principal.isAdmin;

/** Installing a plugin that is not published is for its creator only (403). Pure. */
export const assertMayInstallPlugin = (plugin: PluginOwnership, userId: string): void => {
  if (plugin.status !== 'published' && plugin.createdBy !== userId)
    throw new ForbiddenError(`Plugin ${plugin.id} is still developing: only its creator may install it`);
};

/**
 * Changing a plugin is for its creator (403 for anyone else); `orAdmin` lets an instance admin
 * too (deleting). Pure.
 */
export const assertPluginCreator = (
  plugin: PluginOwnership,
  principal: Pick<Principal, 'userId' | 'isAdmin'>,
  doing: string,
  orAdmin = false,
): void => {
  if (plugin.createdBy === principal.userId || (orAdmin && principal.isAdmin)) return;
  throw new ForbiddenError(
    orAdmin
      ? `only the creator of plugin ${plugin.id} or an instance admin may ${doing} it`
      : `only the creator of plugin ${plugin.id} may ${doing} it`,
  );
};

/** The rights on records a listing or a record answer reports per cell (role and token both). Pure. */
export const recordRightsOf = (principal: Pick<Principal, 'scopes'>, role: Role | undefined) => ({
  canUpdate: mayDo(principal, role, 'record|update'),
  canDelete: mayDo(principal, role, 'record|delete'),
});

/**
 * A trashed base or table comes back only under live parents: its space (and a table's base) not
 * in the trash, else a 403 saying which parent to restore first. Pure.
 */
export const assertParentsLive = (
  type: 'space' | 'base' | 'table',
  id: string,
  space: { deletedTime?: string } | undefined,
  base: { deletedTime?: string } | undefined,
): void => {
  if (type !== 'space' && (!space || space.deletedTime))
    throw new ForbiddenError(
      `${type === 'base' ? 'Base' : 'Table'} ${id} is in a space in the trash; restore the space first`,
    );
  if (type === 'table' && (!base || base.deletedTime))
    throw new ForbiddenError(`Table ${id} is in a base in the trash; restore the base first`);
};
