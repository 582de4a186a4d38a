import type { Principal } from '#shared/auth/permission.ts';
import type { Scope } from '#shared/auth/scopes.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import type { Loaded, Lookup } from '#shared/entities/batch-read.ts';
import { domainsOfOrg, type OrgDomain } from '#shared/entities/org-domains.ts';
import { type Organization, organizationLookup, putOrganizationOp } from '#shared/entities/organizations.ts';
import { newId } from '#shared/ids.ts';

/**
 * Organizations. The creator is the organization's admin; there is no route to add members or
 * other admins yet, so the organization item holds its admins' ids (`adminIds`) and that one
 * item, read with authentication, decides every permission. Only admins may read or change an
 * organization (a member role would have nothing to read that is theirs).
 */

/** The items an organization route reads with authentication (`preload`). */
export const organizationKeys = (orgId: string, ...extra: Lookup<unknown>[]): Lookup<unknown>[] => [
  organizationLookup(orgId),
  ...extra,
];

/**
 * The permission check of organization routes, on the items read with authentication: an
 * unknown organization is a 404; a token limited to spaces or bases, or a caller who is not one
 * of its admins, a 403. The handler chain runs it for every route on `{organizationId}` (after
 * the token's `enterprise|…` scope) and hands the organization to the handler.
 */
export const checkOrganization = (
  principal: Principal,
  loaded: Loaded,
  orgId: string,
  actions: readonly Scope[],
): Organization => {
  const action = actions.join(', ');
  const org = loaded.valueFor(organizationLookup(orgId));
  if (!org) throw new NotFoundError(`Organization ${orgId} not found`);
  if (principal.spaceIds || principal.baseIds)
    throw new ForbiddenError(
      `this token is limited to spaces or bases; it cannot operate ${action} on ${orgId}`,
    );
  if (!org.adminIds.includes(principal.userId))
    throw new ForbiddenError(
      `not allowed to operate ${action} on ${orgId}: not an admin of the organization`,
    );
  return org;
};

/** Creates an organization; the caller becomes its admin. A token limited to spaces or bases may not. */
export const createOrganization = async (principal: Principal, name: string, now = new Date()) => {
  if (principal.spaceIds || principal.baseIds)
    throw new ForbiddenError('this token is limited to spaces or bases; it cannot create an organization');
  const id = newId('organization');
  await transact(
    [
      putOrganizationOp({
        id,
        name,
        adminIds: [principal.userId],
        createdBy: principal.userId,
        createdTime: now.toISOString(),
      }),
    ],
    () => new ConflictError('Organization id collision; retry'),
  );
  return { id, name };
};

/** The public shape of a domain. Pure. */
export const toDomain = (domain: OrgDomain) => ({
  domain: domain.domain,
  status: domain.status,
  createdTime: domain.createdTime,
  ...(domain.verifiedTime ? { verifiedTime: domain.verifiedTime } : {}),
});

/** The organization's domains with their status, in domain order. */
export const listDomains = async (orgId: string) => (await domainsOfOrg(orgId)).map(toDomain);

/** An organization with its domains. */
export const getOrganization = async (org: Organization) => ({
  id: org.id,
  name: org.name,
  domains: await listDomains(org.id),
});
