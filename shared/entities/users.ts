import { getItem, getItems, type Item, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/** A user's profile item (`USER#<usr>` `PROFILE`). */
export interface User {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
  createdTime?: string;
  /** The user can sign in with a password (`entities/passwords.ts` holds its hash). */
  hasPassword?: boolean;
  /**
   * Sessions carry the epoch they began in; a password change moves it, and every session of an
   * older epoch is void at once (the profile is read with every session anyway).
   */
  sessionEpoch?: number;
}

/** The stored item of a user. Pure. */
export const toUserItem = (user: User): Item => ({
  ...keys.user(user.id),
  type: 'user',
  id: user.id,
  name: user.name,
  email: user.email,
  isAdmin: user.isAdmin,
  ...(user.createdTime === undefined ? {} : { createdTime: user.createdTime }),
  ...(user.hasPassword ? { hasPassword: true } : {}),
  ...(user.sessionEpoch ? { sessionEpoch: user.sessionEpoch } : {}),
});

/** The user stored in a profile item. */
export const userOf = (item: Item): User => {
  const createdTime = optionalText(item.createdTime);
  return {
    id: text(item.id),
    name: text(item.name),
    email: text(item.email),
    isAdmin: item.isAdmin === true,
    ...(createdTime === undefined ? {} : { createdTime }),
    ...(item.hasPassword === true ? { hasPassword: true } : {}),
    ...(typeof item.sessionEpoch === 'number' && item.sessionEpoch > 0
      ? { sessionEpoch: item.sessionEpoch }
      : {}),
  };
};

/** The operation that claims an email for one user; fails when another user holds it. Pure. */
export const claimEmailOp = (email: string, userId: string): TransactOp => ({
  put: { ...keys.userEmail(email), type: 'userEmail', userId },
  condition: NOT_EXISTS,
});

/** The id of the user holding an email (its claim alone), or undefined. */
export const userIdByEmail = async (email: string): Promise<string | undefined> => {
  const claim = await getItem(keys.userEmail(email.trim()));
  return typeof claim?.userId === 'string' ? claim.userId : undefined;
};

/** The user holding an email (its claim, then its profile), or undefined. */
export const userByEmail = async (email: string): Promise<User | undefined> => {
  const claim = await getItem(keys.userEmail(email.trim()));
  if (typeof claim?.userId !== 'string') return undefined;
  const profile = await getItem(keys.user(claim.userId));
  return profile ? userOf(profile) : undefined;
};

/** Users by id, read in one batch (absent ones left out). */
export const usersByIds = async (ids: Iterable<string>): Promise<Map<string, User>> => {
  const wanted = [...new Set(ids)].filter((id) => id !== '');
  const found = await getItems(wanted.map((id) => keys.user(id)));
  const out = new Map<string, User>();
  for (const id of wanted) {
    const item = found.get(keys.user(id));
    if (item) out.set(id, userOf(item));
  }
  return out;
};

/** The operation that stores a new user's profile (its id is new: unconditional). Pure. */
export const putUserOp = (user: User): TransactOp => ({ put: toUserItem(user) });

/** The operation that renames a user whose profile is there. Pure. */
export const renameUserOp = (userId: string, name: string): TransactOp => ({
  update: {
    key: keys.user(userId),
    update: 'SET #name = :name',
    condition: EXISTS,
    names: { '#name': 'name' },
    values: { ':name': name },
  },
});
/** The lookup of a user's profile, to read in a batch. Pure. */
export const userLookup = (userId: string): Lookup<User> => lookupOf(keys.user(userId), userOf);

/** A user's name as stored in the profile (strongly consistent); undefined without a profile or a name. */
export const userNameById = async (userId: string): Promise<string | undefined> => {
  const user = await getItem(keys.user(userId));
  return user && typeof user.name === 'string' ? user.name : undefined;
};

/**
 * The operation that marks a user as having a password and, for a change, moves the session epoch
 * to `epoch` (every older session void). Pure.
 */
export const setPasswordStateOp = (userId: string, epoch?: number): TransactOp => ({
  update: {
    key: keys.user(userId),
    update: epoch === undefined ? 'SET hasPassword = :yes' : 'SET hasPassword = :yes, sessionEpoch = :epoch',
    condition: EXISTS,
    values: { ':yes': true, ...(epoch === undefined ? {} : { ':epoch': epoch }) },
  },
});
