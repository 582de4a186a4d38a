import { ConflictError } from '#shared/core/errors.ts';
import { type Item, type TransactOp, updateItem } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * A sign-in session (`LOGIN#<usr>` `SESSION#<hash>`): the cookie carries the user's id and a
 * random secret; only the secret's hash is stored. `expiresAt` slides forward as the session is
 * used (at most one write an hour); DynamoDB's TTL removes it after.
 */
export interface Session {
  userId: string;
  secretHash: string;
  createdTime: string;
  lastUsedTime: string;
  expiresAt: string;
  /** The user's session epoch when it began: one older than the profile's is void. */
  epoch: number;
}

const ttlOf = (expiresAt: string) => Math.ceil(Date.parse(expiresAt) / 1000);

/** The stored item of a session. Pure. */
export const toSessionItem = (s: Session): Item => ({
  ...keys.session(s.userId, s.secretHash),
  type: 'session',
  userId: s.userId,
  secretHash: s.secretHash,
  createdTime: s.createdTime,
  lastUsedTime: s.lastUsedTime,
  expiresAt: s.expiresAt,
  epoch: s.epoch,
  ttl: ttlOf(s.expiresAt),
});

export const sessionOf = (item: Item): Session => ({
  userId: text(item.userId),
  secretHash: text(item.secretHash),
  createdTime: text(item.createdTime),
  lastUsedTime: text(item.lastUsedTime),
  expiresAt: text(item.expiresAt),
  epoch: typeof item.epoch === 'number' ? item.epoch : 0,
});

/** The operation that stores a new session (its hash is new: it must not exist). Pure. */
export const putSessionOp = (s: Session): TransactOp => ({ put: toSessionItem(s), condition: NOT_EXISTS });

/** The operation that ends a session (there or not). Pure. */
export const deleteSessionOp = (userId: string, secretHash: string): TransactOp => ({
  delete: keys.session(userId, secretHash),
});

/** The lookup of a session, read in a batch with the user (authentication). Pure. */
export const sessionLookup = (userId: string, secretHash: string): Lookup<Session> =>
  lookupOf(keys.session(userId, secretHash), sessionOf);

/**
 * Moves a session's expiry forward (a use after the last touch's resolution); a session ended
 * meanwhile stays ended (the condition), and that is no error for the request that touched it.
 */
export const touchSession = async (
  s: Pick<Session, 'userId' | 'secretHash'>,
  now: string,
  expiresAt: string,
) =>
  updateItem(
    {
      key: keys.session(s.userId, s.secretHash),
      update: 'SET lastUsedTime = :now, expiresAt = :exp, #ttl = :ttl',
      condition: EXISTS,
      names: { '#ttl': 'ttl' },
      values: { ':now': now, ':exp': expiresAt, ':ttl': ttlOf(expiresAt) },
    },
    () => new ConflictError('the session ended'),
    'NONE',
  );
