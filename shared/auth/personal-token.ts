import { createHash, timingSafeEqual } from 'node:crypto';
import { isId, randomBase62 } from '#shared/ids.ts';

/**
 * A personal access token reads `pat_<token id>_<user id>_<secret>`: the prefix makes it
 * recognisable (secret scanners, logs), the ids let one strongly consistent read fetch the token
 * and its user together, and only a hash of the secret is stored.
 */
const PREFIX = 'pat';
const SECRET_LENGTH = 32;

export interface ParsedPersonalToken {
  tokenId: string;
  userId: string;
  secret: string;
}

/** Mints the text of a new token and the hash to store. */
export const mintPersonalToken = (tokenId: string, userId: string) => {
  const secret = randomBase62(SECRET_LENGTH);
  return { token: `${PREFIX}_${tokenId}_${userId}_${secret}`, secretHash: hashSecret(secret) };
};

/** Parses token text, or undefined when it is not a well-formed personal token. */
export const parsePersonalToken = (text: string): ParsedPersonalToken | undefined => {
  const parts = text.split('_');
  if (parts.length !== 4 || parts[0] !== PREFIX) return undefined;
  const [, tokenId, userId, secret] = parts as [string, string, string, string];
  if (!isId('accessToken', tokenId) || !isId('user', userId)) return undefined;
  if (!/^[0-9A-Za-z]{32}$/.test(secret)) return undefined;
  return { tokenId, userId, secret };
};

/** SHA-256 of the secret: the secret is random, so a fast hash is as good as a slow one. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/** Constant-time comparison of a presented secret with the stored hash. */
export const secretMatches = (secret: string, storedHash: string): boolean => {
  const a = Buffer.from(hashSecret(secret));
  const b = Buffer.from(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
};
