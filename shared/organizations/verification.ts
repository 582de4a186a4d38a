import type { Principal } from '#shared/auth/permission.ts';
import {
  ConflictError,
  HttpError,
  NotFoundError,
  TooManyRequestsError,
  ValidationError,
} from '#shared/core/errors.ts';
import { type TransactOp, transact } from '#shared/db/commit.ts';
import { notificationOps } from '#shared/entities/notifications.ts';
import {
  countWrongAttempt,
  type DomainClaim,
  deleteOrgDomainOp,
  type OrgDomain,
  orgDomainByName,
  putDomainClaimOp,
  putOrgDomainOp,
  releaseDomainClaimOp,
  restoreCode,
  storeCode,
  verifyOrgDomainOp,
} from '#shared/entities/org-domains.ts';
import type { Organization } from '#shared/entities/organizations.ts';
import { mailTransport } from '#shared/mail/transport.ts';
import {
  CODE_TTL_MS,
  codeMatches,
  hashCode,
  MAIL_INTERVAL_MS,
  MAX_CODE_ATTEMPTS,
  newSalt,
  newVerificationCode,
  normalizeEmail,
  verificationMail,
} from './domains.ts';

/**
 * Domain verification. A domain item (`ORG#<org>` `DOMAIN#<domain>`) holds its status and, while a
 * code is out, only the code's salted hash, its expiry, the wrong attempts and when the last mail
 * went. Decisions:
 * - Several organizations may add the same domain while it is pending (adding proves nothing), but
 *   only one may hold it verified: verifying writes a claim item (`DOMAIN#<domain>`) in the same
 *   transaction, so adding a domain another organization verified is a 409, and so is verifying
 *   one that another organization verified first. Deleting a verified domain releases the claim.
 * - Verifying a domain that is already verified answers 200 again (a retried call succeeds) and
 *   writes nothing; sending a code for it is a 400.
 * - The address must be exactly at the domain (`x@example.com` for `example.com`, not a subdomain).
 */

const domainGone = (orgId: string, domain: string) =>
  new NotFoundError(`Domain ${domain} is not added to organization ${orgId}`);

/** Adds a domain to an organization (pending). */
export const addDomain = async (
  org: Organization,
  domain: string,
  claim: DomainClaim | undefined,
  principal: Principal,
  now = new Date(),
) => {
  const orgId = org.id;
  if (claim && claim.orgId !== orgId)
    throw new ConflictError(`Domain ${domain} is verified by another organization`);
  const item: OrgDomain = {
    orgId,
    domain,
    status: 'pending',
    createdTime: now.toISOString(),
    createdBy: principal.userId,
  };
  await transact(
    [putOrgDomainOp(item)],
    () => new ConflictError(`Domain ${domain} is already added to organization ${orgId}`),
  );
  return { domain, status: 'pending' as const };
};

/** Removes a domain from an organization (and its claim, when this organization verified it). */
export const deleteDomain = async (orgId: string, domain: string, item: OrgDomain | undefined) => {
  if (!item) throw domainGone(orgId, domain);
  const ops: TransactOp[] = [deleteOrgDomainOp(orgId, domain)];
  if (item.status === 'verified') ops.push(releaseDomainClaimOp(orgId, domain));
  await transact(ops, (i) =>
    i === 0
      ? domainGone(orgId, domain)
      : new ConflictError(`Domain ${domain} changed at the same time; retry`),
  );
};

/** The address a code goes to: the given one, else the caller's, and it must be at the domain. */
const recipientFor = (domain: string, given: string | undefined, principal: Principal): string => {
  const email = normalizeEmail(given ?? principal.email);
  if (given !== undefined && !email) throw new ValidationError('Invalid body.email: not an email address');
  if (!email || email.domain !== domain)
    throw new ValidationError(
      given !== undefined
        ? `Invalid body.email: the address must be at the domain ${domain}`
        : `Your email is not at the domain ${domain}: give body.email, an address at ${domain}`,
    );
  return email.address;
};

/**
 * Seconds until another mail may go for a domain item, 1..60. Pure. A call that lost a race took
 * its clock before the winner stamped `lastSentTime`, so the raw difference can pass 60 s by a few
 * milliseconds: the interval itself is the most anyone has to wait.
 */
export const retryAfterSeconds = (item: Pick<OrgDomain, 'lastSentTime'>, now: Date) =>
  Math.min(
    MAIL_INTERVAL_MS / 1000,
    Math.max(1, Math.ceil((Date.parse(item.lastSentTime ?? '') + MAIL_INTERVAL_MS - now.getTime()) / 1000)),
  );

const tooSoon = (domain: string, item: OrgDomain, now: Date) => {
  const wait = retryAfterSeconds(item, now);
  return new TooManyRequestsError(
    `A verification mail for ${domain} was sent less than 60 seconds ago; retry in ${wait} s`,
    wait,
  );
};

const sentRecently = (item: OrgDomain, now: Date) =>
  item.lastSentTime !== undefined && Date.parse(item.lastSentTime) + MAIL_INTERVAL_MS > now.getTime();

/**
 * Domain verification, sending the mail: stores a new code's hash (the previous code is void)
 * and mails the code. At most one mail per domain per 60 s, enforced by the write's condition on
 * `lastSentTime` (two racing calls: one wins, the other is a 429 with `Retry-After`). When the
 * mail cannot be sent the stored code and the sending time are put back, so the caller may retry
 * at once.
 */
export const sendVerificationEmail = async (
  principal: Principal,
  org: Organization,
  domain: string,
  item: OrgDomain | undefined,
  email: string | undefined,
  now = new Date(),
) => {
  const orgId = org.id;
  if (!item) throw domainGone(orgId, domain);
  if (item.status === 'verified') throw new ValidationError(`Domain ${domain} is already verified`);
  const sentTo = recipientFor(domain, email, principal);
  if (sentRecently(item, now)) throw tooSoon(domain, item, now);
  const code = newVerificationCode();
  const salt = newSalt();
  const hash = hashCode(salt, orgId, domain, code);
  const expiresTime = new Date(now.getTime() + CODE_TTL_MS).toISOString();
  const sentTime = now.toISOString();
  const cutoff = new Date(now.getTime() - MAIL_INTERVAL_MS).toISOString();
  try {
    await storeCode(
      orgId,
      domain,
      { codeHash: hash, codeSalt: salt, expiresTime, lastSentTime: sentTime, sentTo },
      cutoff,
      () => new ConflictError('condition'),
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    // Lost to a concurrent change: say which one.
    const current = await orgDomainByName(orgId, domain);
    if (!current) throw domainGone(orgId, domain);
    if (current.status === 'verified') throw new ValidationError(`Domain ${domain} is already verified`);
    throw tooSoon(domain, current, now);
  }
  try {
    await (await mailTransport()).send(
      verificationMail({ to: sentTo, domain, organizationName: org.name, code, expiresTime }),
    );
  } catch (error) {
    await restoreAfterFailedMail(orgId, domain, item, hash);
    throw error instanceof HttpError ? error : new Error('mail transport failed', { cause: error });
  }
  return { domain, sentTo, expiresTime };
};

/** Puts back the code state from before a send whose mail failed (unless another call changed it). */
const restoreAfterFailedMail = async (orgId: string, domain: string, before: OrgDomain, hash: string) => {
  await restoreCode(orgId, domain, before, hash, () => new ConflictError('changed')).catch(() => undefined);
};

const voidCode = (domain: string) =>
  new ValidationError(
    `The code for ${domain} is void after ${MAX_CODE_ATTEMPTS} wrong attempts; request a new code`,
  );

/**
 * Checks a code. Right: the domain is verified, its claim written and every admin of the
 * organization gets a `system` notification, all in one transaction whose condition also
 * re-checks the code's attempts and expiry (so a code is never accepted after its fifth wrong
 * attempt, however many guesses race). Wrong: the attempt is counted first (conditional `ADD`),
 * then answered; the fifth voids the code.
 */
export const verifyDomain = async (
  principal: Principal,
  org: Organization,
  domain: string,
  item: OrgDomain | undefined,
  code: string,
  now = new Date(),
) => {
  const orgId = org.id;
  if (!item) throw domainGone(orgId, domain);
  if (item.status === 'verified') return { domain, status: 'verified' as const };
  if (item.codeHash === undefined || item.codeSalt === undefined)
    throw new ValidationError(`No verification code was sent for ${domain}; request one first`);
  if ((item.attempts ?? 0) >= MAX_CODE_ATTEMPTS) throw voidCode(domain);
  if (!(Date.parse(item.expiresTime ?? '') > now.getTime()))
    throw new ValidationError(`The code for ${domain} has expired; request a new code`);
  if (!codeMatches({ salt: item.codeSalt, hash: item.codeHash }, orgId, domain, code)) {
    const after = await countWrongAttempt(orgId, domain, item.codeHash, MAX_CODE_ATTEMPTS, () =>
      voidCode(domain),
    );
    const left = MAX_CODE_ATTEMPTS - (after.attempts ?? Number.NaN);
    throw left <= 0
      ? voidCode(domain)
      : new ValidationError(`Wrong code for ${domain}; ${left} attempt${left === 1 ? '' : 's'} left`);
  }
  const verifiedTime = now.toISOString();
  const message = `The domain ${domain} of the organization "${org.name}" is verified`;
  const lost = new ValidationError(`The code for ${domain} is no longer valid; request a new code`);
  const applied = await transact(
    [
      verifyOrgDomainOp(orgId, domain, {
        hash: item.codeHash,
        max: MAX_CODE_ATTEMPTS,
        verifiedTime,
        verifiedBy: principal.userId,
      }),
      putDomainClaimOp({ domain, orgId, verifiedTime }),
      ...org.adminIds.flatMap((userId) =>
        notificationOps({ userId, notifyType: 'system', message, url: `/enterprise/${orgId}` }, now),
      ),
    ],
    (i) => (i === 1 ? new ConflictError(`Domain ${domain} is verified by another organization`) : lost),
  ).then(
    () => true,
    (error) => {
      if (error !== lost) throw error;
      return false;
    },
  );
  // The code changed under us: a concurrent call with the same code may have verified it already.
  if (!applied) {
    const stored = await orgDomainByName(orgId, domain);
    if (stored?.status !== 'verified') throw lost;
  }
  return { domain, status: 'verified' as const };
};
