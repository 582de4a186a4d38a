import type { HttpError } from '#shared/core/errors.ts';
import { getItem, type Item, queryAll, type TransactOp, updateItem } from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

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

/** The lookup of a domain of an organization, to read with authentication (`preload`). Pure. */
export const orgDomainLookup = (orgId: string, domain: string): Lookup<OrgDomain> =>
  lookupOf(keys.orgDomain(orgId, domain), orgDomainOf);

/** The lookup of a domain's claim (held once an organization verified it). Pure. */
export const domainClaimLookup = (domain: string): Lookup<DomainClaim> =>
  lookupOf(keys.domainClaim(domain), domainClaimOf);

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

/** A domain of an organization, read with strong consistency, if added. */
export const orgDomainByName = async (orgId: string, domain: string): Promise<OrgDomain | undefined> => {
  const item = await getItem(keys.orgDomain(orgId, domain));
  return item ? orgDomainOf(item) : undefined;
};

/** The domains of an organization, in domain order. */
export const domainsOfOrg = async (orgId: string): Promise<OrgDomain[]> =>
  (await queryAll(keys.orgDomainsOf(orgId))).map(orgDomainOf);

/** The operation that adds a domain to an organization; fails when it is added already. Pure. */
export const putOrgDomainOp = (domain: OrgDomain): TransactOp => ({
  put: toOrgDomainItem(domain),
  condition: DOMAIN_NEW,
});

/** The operation that removes a domain of an organization; fails when it is gone. Pure. */
export const deleteOrgDomainOp = (orgId: string, domain: string): TransactOp => ({
  delete: keys.orgDomain(orgId, domain),
  condition: DOMAIN_EXISTS,
});

/** The operation that releases a domain's claim held by this organization (or by none). Pure. */
export const releaseDomainClaimOp = (orgId: string, domain: string): TransactOp => ({
  delete: keys.domainClaim(domain),
  ...claimableBy(orgId),
});

/** A new code's state, as stored on a pending domain when its mail goes. */
export interface CodeState {
  codeHash: string;
  codeSalt: string;
  expiresTime: string;
  lastSentTime: string;
  sentTo: string;
}

/**
 * Stores a new code's state on a pending domain (attempts back to zero), only while no mail
 * went after `cutoff` (`mayMail`); a failed condition becomes `onConditionFailed()`.
 */
export const storeCode = async (
  orgId: string,
  domain: string,
  code: CodeState,
  cutoff: string,
  onConditionFailed: () => HttpError,
): Promise<void> => {
  const allowed = mayMail(cutoff);
  await updateItem(
    {
      key: keys.orgDomain(orgId, domain),
      update:
        'SET codeHash = :hash, codeSalt = :salt, expiresTime = :exp, attempts = :zero, lastSentTime = :now, sentTo = :to',
      condition: allowed.condition,
      names: allowed.names,
      values: {
        ':hash': code.codeHash,
        ':salt': code.codeSalt,
        ':exp': code.expiresTime,
        ':zero': 0,
        ':now': code.lastSentTime,
        ':to': code.sentTo,
        ...allowed.values,
      },
    },
    onConditionFailed,
    'NONE',
  );
};

/**
 * Puts back the code state of `before` on a domain, only while it still holds the code whose
 * hash is `hash`; a failed condition becomes `onConditionFailed()`.
 */
export const restoreCode = async (
  orgId: string,
  domain: string,
  before: OrgDomain,
  hash: string,
  onConditionFailed: () => HttpError,
): Promise<void> => {
  const fields = CODE_ATTRIBUTES;
  const sets = fields.filter((f) => before[f] !== undefined);
  const removes = fields.filter((f) => before[f] === undefined);
  const update = [
    sets.length ? `SET ${sets.map((f) => `${f} = :${f}`).join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  await updateItem(
    {
      key: keys.orgDomain(orgId, domain),
      update,
      condition: 'codeHash = :hash',
      values: { ':hash': hash, ...Object.fromEntries(sets.map((f) => [`:${f}`, before[f]])) },
    },
    onConditionFailed,
    'NONE',
  );
};

/**
 * Counts one wrong attempt at the code whose hash is `hash`, only while fewer than `max` were
 * made; answers the domain after it. A failed condition becomes `onConditionFailed()`.
 */
export const countWrongAttempt = async (
  orgId: string,
  domain: string,
  hash: string,
  max: number,
  onConditionFailed: () => HttpError,
): Promise<OrgDomain> =>
  orgDomainOf(
    await updateItem(
      {
        key: keys.orgDomain(orgId, domain),
        update: 'ADD attempts :one',
        condition: 'codeHash = :hash AND attempts < :max',
        values: { ':one': 1, ':hash': hash, ':max': max },
      },
      onConditionFailed,
    ),
  );

/**
 * The operation that marks a pending domain verified and drops its code, only while it still
 * holds the code whose hash is `hash` with fewer than `max` attempts and unexpired at
 * `verifiedTime`. Pure.
 */
export const verifyOrgDomainOp = (
  orgId: string,
  domain: string,
  verification: { hash: string; max: number; verifiedTime: string; verifiedBy: string },
): TransactOp => ({
  update: {
    key: keys.orgDomain(orgId, domain),
    update:
      'SET #status = :verified, verifiedTime = :now, verifiedBy = :by REMOVE codeHash, codeSalt, expiresTime, attempts, sentTo',
    condition: '#status = :pending AND codeHash = :hash AND attempts < :max AND expiresTime > :now',
    names: { '#status': 'status' },
    values: {
      ':verified': 'verified',
      ':pending': 'pending',
      ':now': verification.verifiedTime,
      ':by': verification.verifiedBy,
      ':hash': verification.hash,
      ':max': verification.max,
    },
  },
});

/** The operation that claims a verified domain for one organization (unclaimed or its own). Pure. */
export const putDomainClaimOp = (claim: DomainClaim): TransactOp => ({
  put: toDomainClaimItem(claim),
  ...claimableBy(claim.orgId),
});
