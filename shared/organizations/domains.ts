import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';

/** How long a verification code is valid. */
export const CODE_TTL_MS = 30 * 60_000;
/** At most one verification mail per domain in this window. */
export const MAIL_INTERVAL_MS = 60_000;
/** Wrong codes after which a code is void. */
export const MAX_CODE_ATTEMPTS = 5;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain as stored: trimmed, one trailing dot dropped, internationalised names in their ASCII
 * (punycode) form, lower-case; undefined unless it has the shape of a real public hostname (two
 * labels or more, each 1..63 of `a-z 0-9 -` not starting or ending with `-`, at most 253
 * characters, a top-level label that is not all digits, so no IP address). Pure.
 */
export const normalizeDomain = (input: string): string | undefined => {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/@:?#\\]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (ascii === '' || ascii.length > 253) return undefined;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  const tld = labels.at(-1) as string;
  if (/^\d+$/.test(tld)) return undefined;
  return ascii;
};

/**
 * An email address with its domain normalised (`normalizeDomain`) and the local part as given,
 * or undefined when it is not `local@domain` of a plain shape (no spaces, no line breaks, local
 * part 1..64 characters, 254 in all). Pure.
 */
export const normalizeEmail = (input: string): { address: string; domain: string } | undefined => {
  const email = input.trim();
  const at = email.lastIndexOf('@');
  if (at <= 0 || email.length > 254) return undefined;
  const local = email.slice(0, at);
  const domain = normalizeDomain(email.slice(at + 1));
  if (!domain || local.length > 64 || /[\s@<>()[\]\\,;:"]/.test(local) || /[\r\n]/.test(local))
    return undefined;
  return { address: `${local}@${domain}`, domain };
};

/** A one-time code: 6 decimal digits from the crypto random source. */
export const newVerificationCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** A fresh per-code salt. */
export const newSalt = (): string => randomBytes(16).toString('base64url');

/**
 * The stored form of a code: HMAC-SHA-256 keyed by the per-code salt over organization, domain
 * and code, so the same code for another domain or organization never matches. Pure.
 */
export const hashCode = (salt: string, orgId: string, domain: string, code: string): string =>
  createHmac('sha256', salt).update(`${orgId}\u0000${domain}\u0000${code}`).digest('base64url');

/** Compares a code with a stored hash in constant time. Pure. */
export const codeMatches = (
  stored: { salt: string; hash: string },
  orgId: string,
  domain: string,
  code: string,
) => {
  const given = Buffer.from(hashCode(stored.salt, orgId, domain, code));
  const expected = Buffer.from(stored.hash);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

/** The verification mail. Pure. */
export const verificationMail = (input: {
  to: string;
  domain: string;
  organizationName: string;
  code: string;
  expiresTime: string;
}) => ({
  to: input.to,
  subject: `Your verification code for ${input.domain}: ${input.code}`,
  text: [
    `Someone asked to verify the domain ${input.domain} for the organization "${input.organizationName}".`,
    '',
    `Verification code: ${input.code}`,
    '',
    `The code is valid until ${input.expiresTime} (30 minutes). If you did not ask for it, ignore this mail.`,
  ].join('\n'),
});
