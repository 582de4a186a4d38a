import type { Item, TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * A user's password (`LOGIN#<usr>` `PASSWORD`): the memory-hard hash with its parameters
 * (`auth/passwords.ts`), never the password. Kept apart from the profile, which every request
 * reads: the hash is read only by sign-in and the password routes.
 */
export interface StoredPassword {
  userId: string;
  hash: string;
  changedTime: string;
}

export const toPasswordItem = (p: StoredPassword): Item => ({
  ...keys.password(p.userId),
  type: 'password',
  userId: p.userId,
  hash: p.hash,
  changedTime: p.changedTime,
});

export const passwordOf = (item: Item): StoredPassword => ({
  userId: text(item.userId),
  hash: text(item.hash),
  changedTime: text(item.changedTime),
});

/** The lookup of a user's password, read in a batch with the profile (sign-in). Pure. */
export const passwordLookup = (userId: string): Lookup<StoredPassword> =>
  lookupOf(keys.password(userId), passwordOf);

/** The operation that gives a user without one a password. Pure. */
export const addPasswordOp = (p: StoredPassword): TransactOp => ({
  put: toPasswordItem(p),
  condition: NOT_EXISTS,
});

/**
 * The operation that replaces a password, only while the stored hash is still the one the caller
 * checked (two changes at once: one wins, the other is refused). Pure.
 */
export const replacePasswordOp = (p: StoredPassword, checkedHash: string): TransactOp => ({
  put: toPasswordItem(p),
  condition: `${EXISTS} AND #hash = :checked`,
  names: { '#hash': 'hash' },
  values: { ':checked': checkedHash },
});
