import { ConflictError } from '#shared/core/errors.ts';
import { deleteItem, type Item, updateItem } from '#shared/db/client.ts';
import { NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/** Failed sign-ins of one email or address, and the lock they earned (`auth/sign-in-limits.ts` counts them). */
export interface Attempts {
  failures: number;
  /** When the current window began (ms). */
  windowStart: number;
  /** The lock's end (ms), 0 when never locked. */
  lockedUntil: number;
  /** How many locks so far: the next lasts `firstLock × 2^locks`. */
  locks: number;
  /** Bumped by every write: a write conditioned on it loses to a concurrent one, which then retries. */
  version: number;
}

export type AttemptKind = 'email' | 'address';

/** Counts with no failure and no lock this long are forgotten (the item's TTL). */
export const FORGET_AFTER_MS = 3_600_000;

/** When the item of these counts may go (DynamoDB TTL, seconds). */
const forgetAt = (a: Attempts): number =>
  Math.ceil((Math.max(a.windowStart, a.lockedUntil) + FORGET_AFTER_MS) / 1000);

/**
 * Failed sign-ins of one email or client address (`LOGINTRY#EMAIL#…` / `LOGINTRY#ADDR#…` `TRY`),
 * as `auth/sign-in-limits.ts` counts them; TTL forgets them after a quiet hour.
 */
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export const attemptsOf = (item: Item): Attempts => ({
  failures: num(item.failures),
  windowStart: num(item.windowStart),
  lockedUntil: num(item.lockedUntil),
  locks: num(item.locks),
  version: num(item.version),
});

/** The lookup of one email's or address's attempts, read in a batch with the other. Pure. */
export const attemptsLookup = (kind: AttemptKind, value: string): Lookup<Attempts> =>
  lookupOf(keys.signInAttempts(kind, value), attemptsOf);

/**
 * Stores the counts after a failure, only over the version they were computed from (a concurrent
 * failure wins; the caller reads again and retries). False when it lost.
 */
export const saveAttempts = async (
  kind: AttemptKind,
  value: string,
  next: Attempts,
  readVersion: number,
): Promise<boolean> => {
  try {
    await updateItem(
      {
        key: keys.signInAttempts(kind, value),
        // every name through a placeholder: `locks` is one of DynamoDB's reserved words
        update: 'SET #type = :type, #f = :f, #w = :w, #l = :l, #k = :k, #v = :v, #ttl = :ttl',
        condition: or(NOT_EXISTS, '#v = :read'),
        names: {
          '#type': 'type',
          '#f': 'failures',
          '#w': 'windowStart',
          '#l': 'lockedUntil',
          '#k': 'locks',
          '#v': 'version',
          '#ttl': 'ttl',
        },
        values: {
          ':type': 'signInAttempts',
          ':f': next.failures,
          ':w': next.windowStart,
          ':l': next.lockedUntil,
          ':k': next.locks,
          ':v': next.version,
          ':read': readVersion,
          ':ttl': forgetAt(next),
        },
      },
      () => new ConflictError('attempts changed'),
      'NONE',
    );
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
};

/** Forgets an email's failures and locks: a sign-in succeeded, the owner is back. */
export const clearAttempts = (kind: AttemptKind, value: string) =>
  deleteItem(keys.signInAttempts(kind, value));
