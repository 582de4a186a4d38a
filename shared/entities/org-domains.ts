import type { Item, ItemLookup } from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';

/**
 * A domain an organization added (`ORG#<org>` `DOMAIN#<domain>`, type `orgDomain`): its status
 * and, while a code is out, only the code's salted hash, its expiry, the wrong attempts and when
 * the last mail went. A verified domain is claimed for one organization by `DOMAIN#<domain>`
 * (type `domainClaim`), written in the verifying transaction and removed with the domain.
 */

export type DomainStatus = 'pending' | 'verified';

/** A domain of an organization as stored. */
export interface OrgDomain {
  orgId: string;
  domain: string;
  status: DomainStatus;
  createdTime: string;
  createdBy: string;
  /** The code's state, while a code is out. */
  codeHash?: string;
  codeSalt?: string;
  expiresTime?: string;
  attempts?: number;
  lastSentTime?: string;
  sentTo?: string;
  /** Set once verified. */
  verifiedTime?: string;
  verifiedBy?: string;
}

/** The claim of a verified domain by one organization, as stored. */
export interface DomainClaim {
  domain: string;
  orgId: string;
  verifiedTime: string;
}

/** The attributes of a code's state, as stored on a pending domain. */
export const CODE_ATTRIBUTES = [
  'codeHash',
  'codeSalt',
  'expiresTime',
  'attempts',
  'lastSentTime',
  'sentTo',
] as const;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The item of a domain of an organization. */
export const toOrgDomainItem = (domain: OrgDomain): Item => ({
  ...keys.orgDomain(domain.orgId, domain.domain),
  type: 'orgDomain',
  ...domain,
});

/** The domain stored in an item. */
export const orgDomainOf = (item: Item): OrgDomain => ({
  orgId: text(item.orgId),
  domain: text(item.domain),
  status: item.status === 'verified' ? 'verified' : 'pending',
  createdTime: text(item.createdTime),
  createdBy: text(item.createdBy),
  ...(typeof item.codeHash === 'string' ? { codeHash: item.codeHash } : {}),
  ...(typeof item.codeSalt === 'string' ? { codeSalt: item.codeSalt } : {}),
  ...(typeof item.expiresTime === 'string' ? { expiresTime: item.expiresTime } : {}),
  ...(typeof item.attempts === 'number' ? { attempts: item.attempts } : {}),
  ...(typeof item.lastSentTime === 'string' ? { lastSentTime: item.lastSentTime } : {}),
  ...(typeof item.sentTo === 'string' ? { sentTo: item.sentTo } : {}),
  ...(typeof item.verifiedTime === 'string' ? { verifiedTime: item.verifiedTime } : {}),
  ...(typeof item.verifiedBy === 'string' ? { verifiedBy: item.verifiedBy } : {}),
});

/** The item of a domain's claim. */
export const toDomainClaimItem = (claim: DomainClaim): Item => ({
  ...keys.domainClaim(claim.domain),
  type: 'domainClaim',
  ...claim,
});

/** The claim stored in an item. */
export const domainClaimOf = (item: Item): DomainClaim => ({
  domain: text(item.domain),
  orgId: text(item.orgId),
  verifiedTime: text(item.verifiedTime),
});

/** The domain of an organization among items read in a batch (with authentication), if added. */
export const loadedOrgDomain = (loaded: ItemLookup, orgId: string, domain: string): OrgDomain | undefined => {
  const item = loaded.get(keys.orgDomain(orgId, domain));
  return item ? orgDomainOf(item) : undefined;
};

/** The claim of a domain among items read in a batch (with authentication), if claimed. */
export const loadedDomainClaim = (loaded: ItemLookup, domain: string): DomainClaim | undefined => {
  const item = loaded.get(keys.domainClaim(domain));
  return item ? domainClaimOf(item) : undefined;
};

/** A domain not added yet to this organization. */
export const DOMAIN_NEW = NOT_EXISTS;
/** The domain is (still) added. */
export const DOMAIN_EXISTS = EXISTS;

/** The domain is unclaimed or claimed by this organization (writing or releasing its claim). */
export const claimableBy = (orgId: string) => ({
  condition: or(NOT_EXISTS, 'orgId = :org'),
  values: { ':org': orgId },
});

/**
 * The domain is there, pending, and no mail went after `cutoff`: the one condition that keeps
 * to one verification mail per interval.
 */
export const mayMail = (cutoff: string) => ({
  condition: and(
    EXISTS,
    '#status = :pending',
    or('attribute_not_exists(lastSentTime)', 'lastSentTime <= :cutoff'),
  ),
  names: { '#status': 'status' },
  values: { ':pending': 'pending', ':cutoff': cutoff },
});
