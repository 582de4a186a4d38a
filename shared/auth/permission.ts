import { ForbiddenError } from '#shared/core/errors.ts';
import { ROLE_ACTIONS, type Role, SCOPES, type Scope } from './scopes.ts';

/** Who is calling: the user, the token used, and what that token allows. */
export interface Principal {
  userId: string;
  name: string;
  email: string;
  isAdmin: boolean;
  tokenId: string;
  kind: 'personal' | 'temporary';
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
    if (!ROLE_ACTIONS[role].has(action) || !principal.scopes.has(action))
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
  const covered = role !== undefined && tokenCovers(principal, resource);
  return Object.fromEntries(
    actions.map((a) => [a, covered && ROLE_ACTIONS[role].has(a) && principal.scopes.has(a)]),
  ) as Record<A, boolean>;
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
