import type { Principal } from '#shared/auth/permission.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '#shared/core/errors.ts';
import { type Item, type ItemLookup, queryAll, transact } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';

/**
 * Organizations. The creator is the organization's admin; there is no route to add members or
 * other admins yet, so the organization item holds its admins' ids (`adminIds`) and that one
 * item, read with authentication, decides every permission. Only admins may read or change an
 * organization (a member role would have nothing to read that is theirs).
 */

/** The items an organization route reads with authentication (`preload`). */
export const organizationKeys = (orgId: string, ...extra: Key[]): Key[] => [
  keys.organization(orgId),
  ...extra,
];

/**
 * The permission check of organization routes, on the items read with authentication: an
 * unknown organization is a 404; a token limited to spaces or bases, or a caller who is not one
 * of its admins, a 403. The handler chain runs it for every route on `{organizationId}` (after
 * the token's `enterprise|…` scope) and hands the organization item to the handler.
 */
export const checkOrganization = (
  principal: Principal,
  loaded: ItemLookup,
  orgId: string,
  actions: readonly Scope[],
): Item => {
  const action = actions.join(', ');
  const org = loaded.get(keys.organization(orgId));
  if (!org) throw new NotFoundError(`Organization ${orgId} not found`);
  if (principal.spaceIds || principal.baseIds)
    throw new ForbiddenError(
      `this token is limited to spaces or bases; it cannot operate ${action} on ${orgId}`,
    );
  if (!adminIdsOf(org).includes(principal.userId))
    throw new ForbiddenError(
      `not allowed to operate ${action} on ${orgId}: not an admin of the organization`,
    );
  return org;
};

/** The organization's admins. Pure. */
export const adminIdsOf = (org: Item): string[] =>
  Array.isArray(org.adminIds) ? org.adminIds.filter((id): id is string => typeof id === 'string') : [];

/** Creates an organization; the caller becomes its admin. A token limited to spaces or bases may not. */
export const createOrganization = async (principal: Principal, name: string, now = new Date()) => {
  if (principal.spaceIds || principal.baseIds)
    throw new ForbiddenError('this token is limited to spaces or bases; it cannot create an organization');
  const id = newId('organization');
  await transact(
    [
      {
        put: {
          ...keys.organization(id),
          type: 'organization',
          id,
          name,
          adminIds: [principal.userId],
          createdBy: principal.userId,
          createdTime: now.toISOString(),
        },
        condition: 'attribute_not_exists(pk)',
      },
    ],
    () => new ConflictError('Organization id collision; retry'),
  );
  return { id, name };
};

export type DomainStatus = 'pending' | 'verified';

/** The public shape of a domain item. Pure. */
export const toDomain = (item: Item) => ({
  domain: String(item.domain),
  status: item.status as DomainStatus,
  createdTime: String(item.createdTime),
  ...(item.verifiedTime ? { verifiedTime: String(item.verifiedTime) } : {}),
});

/** The organization's domains with their status, in domain order. */
export const listDomains = async (orgId: string) => (await queryAll(keys.orgDomainsOf(orgId))).map(toDomain);

/** An organization with its domains. */
export const getOrganization = async (org: Item) => ({
  id: String(org.id),
  name: String(org.name),
  domains: await listDomains(String(org.id)),
});
