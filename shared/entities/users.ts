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
  };
};

/** The operation that claims an email for one user; fails when another user holds it. Pure. */
export const claimEmailOp = (email: string, userId: string): TransactOp => ({
  put: { ...keys.userEmail(email), type: 'userEmail', userId },
  condition: NOT_EXISTS,
});

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
