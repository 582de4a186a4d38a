import type { Item, TransactOp } from '#shared/db/client.ts';
import { NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * An organization: `ORG#<org>` `ORG` (type `organization`). It holds its admins' ids, so that one
 * item, read with authentication, decides every permission of the organization's routes.
 */

const ORGANIZATION_TYPE = 'organization';

/** An organization as stored. */
export interface Organization {
  id: string;
  name: string;
  adminIds: string[];
  createdBy: string;
  createdTime: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The organization's item. */
export const toOrganizationItem = (org: Organization): Item => ({
  ...keys.organization(org.id),
  type: ORGANIZATION_TYPE,
  ...org,
});

/** The organization stored in an item. */
export const organizationOf = (item: Item): Organization => ({
  id: text(item.id),
  name: text(item.name),
  adminIds: Array.isArray(item.adminIds)
    ? item.adminIds.filter((id): id is string => typeof id === 'string')
    : [],
  createdBy: text(item.createdBy),
  createdTime: text(item.createdTime),
});

/** The lookup of an organization, to read with authentication. Pure. */
export const organizationLookup = (orgId: string): Lookup<Organization> =>
  lookupOf(keys.organization(orgId), organizationOf);

/** A new organization: no item with its id yet. */
export const ORGANIZATION_NEW = NOT_EXISTS;

/** The operation that creates an organization; fails on an id already taken. Pure. */
export const putOrganizationOp = (org: Organization): TransactOp => ({
  put: toOrganizationItem(org),
  condition: ORGANIZATION_NEW,
});
