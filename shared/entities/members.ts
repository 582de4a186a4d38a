import { isRole, type Role } from '#shared/core/rights.ts';
import { getItems, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';
import { type User, userOf } from './users.ts';

/** A collaborator of a space (`SPACE#<spc>` `MEMBER#<usr>`), with the user's name and email as added. */
export interface Member {
  spaceId: string;
  userId: string;
  userName: string;
  email: string;
  role: Role;
  createdTime: string;
}

/**
 * The mirror of a membership in the user's partition (`USER#<usr>` `SPACE#<spc>`): lists the
 * user's spaces. Written and deleted in the same transactions as the membership.
 */
export interface UserSpace {
  spaceId: string;
  userId: string;
  role: Role;
}

/** The stored item of a membership. Pure. */
export const toMemberItem = (member: Member): Item => ({
  ...keys.member(member.spaceId, member.userId),
  type: 'member',
  spaceId: member.spaceId,
  userId: member.userId,
  userName: member.userName,
  email: member.email,
  role: member.role,
  createdTime: member.createdTime,
});

/** The membership stored in an item; undefined when its role is none of the roles (never written). */
export const memberOf = (item: Item): Member | undefined =>
  isRole(item.role)
    ? {
        spaceId: text(item.spaceId),
        userId: text(item.userId),
        userName: text(item.userName),
        email: text(item.email),
        role: item.role,
        createdTime: text(item.createdTime),
      }
    : undefined;

/** The stored item of a membership's mirror. Pure. */
export const toUserSpaceItem = (mirror: UserSpace): Item => ({
  ...keys.userSpace(mirror.userId, mirror.spaceId),
  type: 'userSpace',
  spaceId: mirror.spaceId,
  userId: mirror.userId,
  role: mirror.role,
});

/** The mirror stored in an item; undefined when its role is none of the roles (never written). */
export const userSpaceOf = (item: Item): UserSpace | undefined =>
  isRole(item.role) ? { spaceId: text(item.spaceId), userId: text(item.userId), role: item.role } : undefined;

/** The operations that add a membership and its mirror; fail when the user is a member already. Pure. */
export const putMembershipOps = (member: Member): TransactOp[] => [
  { put: toMemberItem(member), condition: NOT_EXISTS },
  { put: toUserSpaceItem({ spaceId: member.spaceId, userId: member.userId, role: member.role }) },
];

/** The condition that a membership still has the role `:from` (named `#role`). */
const ROLE_IS = '#role = :from';

/**
 * The operations that change a member's role from `from` (which it must still have) to `to`,
 * in the membership and its mirror. Pure.
 */
export const changeRoleOps = (spaceId: string, userId: string, from: Role, to: Role): TransactOp[] => [
  {
    update: {
      key: keys.member(spaceId, userId),
      update: 'SET #role = :role',
      condition: ROLE_IS,
      names: { '#role': 'role' },
      values: { ':role': to, ':from': from },
    },
  },
  {
    update: {
      key: keys.userSpace(userId, spaceId),
      update: 'SET #role = :role',
      names: { '#role': 'role' },
      values: { ':role': to },
    },
  },
];

/** The operations that remove a membership (which must still have the role `from`) and its mirror. Pure. */
export const removeMembershipOps = (spaceId: string, userId: string, from: Role): TransactOp[] => [
  {
    delete: keys.member(spaceId, userId),
    condition: ROLE_IS,
    names: { '#role': 'role' },
    values: { ':from': from },
  },
  { delete: keys.userSpace(userId, spaceId) },
];

/** Every member of a space. */
export const readMembers = async (spaceId: string): Promise<Member[]> =>
  (await queryAll(keys.membersOf(spaceId))).flatMap((item) => memberOf(item) ?? []);

/** A user's membership mirrors (the spaces they belong to), in space id order. */
export const mirrorsOfUser = async (userId: string): Promise<UserSpace[]> =>
  (await queryAll(keys.spacesOf(userId))).flatMap((m) => userSpaceOf(m) ?? []);

/** One membership (one batch read), undefined when the user is not a member. */
export const memberById = async (spaceId: string, userId: string): Promise<Member | undefined> => {
  const item = (await getItems([keys.member(spaceId, userId)])).get(keys.member(spaceId, userId));
  return item ? memberOf(item) : undefined;
};

/**
 * Users and whether each is a member of a space already, read in one batch: the users found, and
 * the ids that hold a membership item.
 */
export const usersAndMemberships = async (
  spaceId: string,
  userIds: readonly string[],
): Promise<{ users: Map<string, User>; members: Set<string> }> => {
  const loaded = await getItems(userIds.flatMap((u) => [keys.user(u), keys.member(spaceId, u)]));
  const users = new Map<string, User>();
  const members = new Set<string>();
  for (const u of userIds) {
    const user = loaded.get(keys.user(u));
    if (user) users.set(u, userOf(user));
    if (loaded.get(keys.member(spaceId, u))) members.add(u);
  }
  return { users, members };
};

/** The operation that sets the user's name on a membership that is there. Pure. */
export const renameMemberOp = (spaceId: string, userId: string, name: string): TransactOp => ({
  update: {
    key: keys.member(spaceId, userId),
    update: 'SET userName = :name',
    condition: EXISTS,
    values: { ':name': name },
  },
});
/** The lookup of a user's membership of a space, to read in a batch. Pure. */
export const memberLookup = (spaceId: string, userId: string): Lookup<Member | undefined> =>
  lookupOf(keys.member(spaceId, userId), memberOf);
