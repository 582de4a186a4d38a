import { assertMayGrant, assertMayRemoveMember, type Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ROLES, type Role } from '#shared/auth/scopes.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import { type TransactOp, transact } from '#shared/db/commit.ts';
import { spacesOfLiveBases } from '#shared/entities/bases.ts';
import {
  changeRoleOps,
  type Member,
  memberById,
  mirrorsOfUser,
  putMembershipOps,
  readMembers,
  removeMembershipOps,
  type UserSpace,
  usersAndMemberships,
} from '#shared/entities/members.ts';
import { notificationOps } from '#shared/entities/notifications.ts';
import {
  ownerCountOp,
  putSpaceOp,
  renameSpaceItem,
  type Space,
  spaceById,
  spaceLiveCheck,
  spacesByIds,
  trashSpaceOp,
} from '#shared/entities/spaces.ts';
import { newTrashEntry, putTrashOps, removeTrashOps } from '#shared/entities/trash-items.ts';
import { newId } from '#shared/ids.ts';
import { enqueuePurge, markResourcePurgedOp, purgeJobOp } from '#shared/jobs/purge-queue.ts';

export const DEFAULT_SPACE_NAME = 'Space';
/** Users one call may add: four operations each must fit one 100-operation transaction. */
export const MAX_COLLABORATORS_PER_CALL = 20;

const spaceGone = (id: string) => () => new NotFoundError(`Space ${id} not found`);

/** The user's space mirrors and, for each, its space (not in the trash), in mirror order. */
export const liveSpacesOf = async (userId: string): Promise<{ mirror: UserSpace; space: Space }[]> => {
  const mirrors = await mirrorsOfUser(userId);
  if (mirrors.length === 0) return [];
  const loaded = await spacesByIds(mirrors.map((m) => m.spaceId));
  return mirrors.flatMap((mirror) => {
    const space = loaded.get(mirror.spaceId);
    return space && !space.deletedTime ? [{ mirror, space }] : [];
  });
};

/**
 * The spaces a token limited to some spaces or bases may reach (undefined: every space): its
 * spaces, and those holding its live bases. A base-limited token sees the space of its base, as a
 * client needs it to find the base, though the space's own routes stay closed to it.
 */
const reachableSpaces = async (principal: Principal): Promise<Set<string> | undefined> => {
  if (!principal.spaceIds && !principal.baseIds) return undefined;
  const ofBases = await spacesOfLiveBases(principal.baseIds ?? []);
  return new Set([...(principal.spaceIds ?? []), ...ofBases]);
};

/**
 * The spaces the caller belongs to (not in the trash) that the calling token may reach
 * (`reachableSpaces`), oldest first, with the caller's role.
 */
export const listSpaces = async (principal: Principal) => {
  const [spaces, reachable] = await Promise.all([liveSpacesOf(principal.userId), reachableSpaces(principal)]);
  return spaces
    .filter(({ space }) => reachable?.has(space.id) ?? true)
    .sort((a, b) => a.space.createdTime.localeCompare(b.space.createdTime))
    .map(({ mirror, space }) => ({ id: space.id, name: space.name, role: mirror.role }));
};

/** Names of the spaces the user created and still belongs to (not in the trash). */
const namesCreatedBy = async (userId: string): Promise<string[]> =>
  (await liveSpacesOf(userId))
    .filter(({ space }) => space.createdBy === userId)
    .map(({ space }) => space.name);

/**
 * Creates a space owned by the caller. Without a name it is `Space`, made unique among the
 * spaces the caller created (spaces others shared with it do not count).
 */
export const createSpace = async (principal: Principal, name: string | undefined, now = new Date()) => {
  const finalName = name ?? uniqueName(DEFAULT_SPACE_NAME, await namesCreatedBy(principal.userId));
  const id = newId('space');
  const created = now.toISOString();
  await transact(
    [
      putSpaceOp({ id, name: finalName, ownerCount: 1, createdTime: created, createdBy: principal.userId }),
      ...putMembershipOps({
        spaceId: id,
        userId: principal.userId,
        userName: principal.name,
        email: principal.email,
        role: 'owner',
        createdTime: created,
      }),
    ],
    () => new ConflictError('Space id collision; retry'),
  );
  return { id, name: finalName };
};

/** The public shape of a space for a caller with `role`. */
export const toSpace = (space: Space, role: Role | undefined) => ({
  id: space.id,
  name: space.name,
  role: role ?? null,
  createdTime: space.createdTime,
});

/** Renames a space that is not in the trash. */
export const renameSpace = async (spaceId: string, name: string) => {
  const space = await renameSpaceItem(spaceId, name, spaceGone(spaceId));
  return { id: space.id, name: space.name };
};

/**
 * Moves a space to the trash: from now on every route answers 404 for it and everything in it.
 * The space's mark and its trash item are one transaction (the space item carries `trashId`:
 * the trash lists spaces from the user's mirrors, see shared/trash/trash.ts).
 */
export const trashSpace = async (spaceId: string, userId: string, now = new Date()) => {
  const entry = newTrashEntry('space', spaceId, { spaceId }, userId, now);
  await transact(
    [
      trashSpaceOp(spaceId, { trashId: entry.id, deletedTime: entry.deletedTime, deletedBy: userId }),
      ...putTrashOps(entry),
    ],
    (i) => (i === 0 ? spaceGone(spaceId)() : new ConflictError('retry')),
  );
};

/**
 * Deletes a space and every item of it for good. The request makes it invisible at once, in
 * one transaction: the purge mark (`purgeTime`: even the permanent route answers 404 from now
 * on), its trash item and the durable purge job. The purge worker then deletes its bases, the
 * members' mirrors and the partition in the background (shared/trash/job-runner.ts).
 */
export const deleteSpacePermanently = async (spaceId: string, userId: string, now = new Date()) => {
  const space = await spaceById(spaceId);
  if (!space || space.purgeTime) throw spaceGone(spaceId)();
  const trashId = space.trashId;
  await transact(
    [
      markResourcePurgedOp('space', spaceId, userId, now),
      ...(trashId ? removeTrashOps({ id: trashId, resourceType: 'space', spaceId }) : []),
      purgeJobOp({ kind: 'space', resourceId: spaceId }, { spaceId, userId }, now),
    ],
    (i) => (i === 0 ? spaceGone(spaceId)() : new ConflictError('retry')),
  );
  await enqueuePurge({ kind: 'space', resourceId: spaceId });
};

/** Paging and filters of the collaborator lists (Teable's query). */
export interface CollaboratorQuery {
  skip?: number;
  take?: number;
  search?: string;
  /** Only `user` principals exist; `department` lists none. */
  type?: 'user' | 'department';
  orderBy?: 'asc' | 'desc';
}

/** Collaborators of a space, owners first then by name, as the client types them. */
const membersOfSpace = async (spaceId: string, query: CollaboratorQuery) => {
  const needle = query.search?.trim().toLowerCase();
  const members = (await readMembers(spaceId)).filter(
    (m) =>
      query.type !== 'department' &&
      (!needle || m.userName.toLowerCase().includes(needle) || m.email.toLowerCase().includes(needle)),
  );
  return members.sort(
    (a, b) => roleOrder(a.role) - roleOrder(b.role) || a.userName.localeCompare(b.userName),
  );
};

const pageOf = <T>(list: T[], query: CollaboratorQuery): T[] =>
  list.slice(query.skip ?? 0, query.take === undefined ? undefined : (query.skip ?? 0) + query.take);

/**
 * The collaborators of a space (`GET /space/{s}/collaborators`, `GET /base/{b}/collaborators`):
 * `{collaborators, total, uniqTotal}`, owners first then by name; `total` counts the filtered
 * list before paging. Every collaborator is a user of the space (no per-base membership), so
 * `uniqTotal` equals `total`.
 */
export const listCollaborators = async (spaceId: string, query: CollaboratorQuery = {}) => {
  const members = await membersOfSpace(spaceId, query);
  return {
    collaborators: pageOf(members, query).map((m) => ({
      userId: m.userId,
      userName: m.userName,
      email: m.email,
      role: m.role,
      avatar: null,
      createdTime: m.createdTime,
      type: 'user' as const,
      resourceType: 'space' as const,
    })),
    total: members.length,
    uniqTotal: members.length,
  };
};

/**
 * The users a user cell of a base may hold (`GET /base/{b}/collaborators/users`): the space's
 * members, by name (`orderBy`, ascending by default), `{users:[{id, name, email, avatar}], total}`.
 */
export const listCollaboratorUsers = async (spaceId: string, query: CollaboratorQuery = {}) => {
  const members = (await membersOfSpace(spaceId, query)).sort(
    (a, b) =>
      (query.orderBy === 'desc' ? -1 : 1) *
      (a.userName.localeCompare(b.userName) || a.userId.localeCompare(b.userId)),
  );
  return {
    users: pageOf(members, query).map((m) => ({
      id: m.userId,
      name: m.userName,
      email: m.email,
      avatar: null,
    })),
    total: members.length,
  };
};

const roleOrder = (r: Role) => ROLES.indexOf(r);

/**
 * Adds users to a space with one role, each with a `system` notification, in one transaction.
 * Users already in the space keep their role (change it with the update route).
 */
export const addCollaborators = async (
  principal: Principal,
  located: Located,
  userIds: string[],
  role: Role,
) => {
  assertMayGrant(principal, located.role, located.spaceId, role);
  const unique = [...new Set(userIds)];
  const spaceId = located.spaceId;
  const { users, members } = await usersAndMemberships(spaceId, unique);
  const missing = unique.find((u) => !users.has(u));
  if (missing) throw new NotFoundError(`User ${missing} not found`);
  const added = unique.filter((u) => !members.has(u));
  if (added.length === 0) return;
  const now = new Date();
  const spaceName = located.space.name;
  const ops: TransactOp[] = added.flatMap((u) => {
    const user = users.get(u);
    if (!user) return [];
    return [
      ...putMembershipOps({
        spaceId,
        userId: u,
        userName: user.name,
        email: user.email,
        role,
        createdTime: now.toISOString(),
      }),
      ...notificationOps(
        {
          userId: u,
          notifyType: 'system',
          message: `${principal.name} added you to the space ${spaceName} as ${role}`,
          url: `/space/${spaceId}`,
          from: { userId: principal.userId, userName: principal.name },
        },
        now,
      ),
    ];
  });
  ops.push(role === 'owner' ? ownerCountOp(spaceId, added.length) : spaceLiveCheck(spaceId));
  await transact(ops, (index) =>
    index === ops.length - 1
      ? new NotFoundError(`Space ${spaceId} not found`)
      : new ConflictError('A user was added to the space at the same time; retry'),
  );
};

/** A collaborator of the space (404 when not one). */
const readMember = async (spaceId: string, userId: string): Promise<Member> => {
  const member = await memberById(spaceId, userId);
  if (!member) throw new NotFoundError(`Collaborator ${userId} not found in space ${spaceId}`);
  return member;
};

const lastOwner = (spaceId: string) => new ValidationError(`Space ${spaceId} must keep at least one owner`);

/** Changes a collaborator's role; the last owner cannot be demoted. */
export const changeRole = async (principal: Principal, located: Located, userId: string, role: Role) => {
  assertMayGrant(principal, located.role, located.spaceId, role);
  const spaceId = located.spaceId;
  const member = await readMember(spaceId, userId);
  const from = member.role;
  if (from === role) return;
  const ops = changeRoleOps(spaceId, userId, from, role);
  if (from === 'owner') ops.push(ownerCountOp(spaceId, -1));
  if (role === 'owner') ops.push(ownerCountOp(spaceId, 1));
  await transact(ops, (index) =>
    index === 0
      ? new ConflictError(`The role of ${userId} changed at the same time; retry`)
      : lastOwner(spaceId),
  );
};

/**
 * Removes a collaborator. Anyone may leave; removing someone else needs `space|grant_role`.
 * The last owner cannot leave.
 */
export const removeCollaborator = async (principal: Principal, located: Located, userId: string) => {
  const spaceId = located.spaceId;
  assertMayRemoveMember(principal, located.role, spaceId, userId);
  const member = await readMember(spaceId, userId);
  const ops = removeMembershipOps(spaceId, userId, member.role);
  if (member.role === 'owner') ops.push(ownerCountOp(spaceId, -1));
  await transact(ops, (index) =>
    index === 0
      ? new ConflictError(`The role of ${userId} changed at the same time; retry`)
      : lastOwner(spaceId),
  );
};

/**
 * A collaborator list as its caller reads it. Teable's client 1.10 (bearer tokens: scripts, apps)
 * reads `{collaborators, total, uniqTotal}`; Teable's web app 1.5, the one this service runs
 * (signed in with the session cookie), reads the list itself and fails to render a space without
 * it. Where the two disagree the web app wins for the web app (README, "Teable's web app").
 */
export const collaboratorsAnswer = (
  principal: Pick<Principal, 'kind'>,
  answer: Awaited<ReturnType<typeof listCollaborators>>,
) => (principal.kind === 'session' ? answer.collaborators : answer);
