import type { Principal } from '#shared/auth/permission.ts';
import { scopesFor } from '#shared/auth/scopes.ts';
import { checkMayCreateAdmin } from '#shared/auth/token-ceiling.ts';
import { ConflictError, InternalServerError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import { putAccessTokenOp } from '#shared/entities/access-tokens.ts';
import type { Loaded } from '#shared/entities/batch-read.ts';
import { mirrorsOfUser, renameMemberOp } from '#shared/entities/members.ts';
import {
  claimEmailOp,
  putUserOp,
  renameUserOp,
  type User,
  userByEmail,
  userLookup,
} from '#shared/entities/users.ts';
import { newId } from '#shared/ids.ts';
import type { PurgeJob } from '#shared/jobs/purge-job.ts';
import { enqueuePurge, purgeJobOp } from '#shared/jobs/purge-queue.ts';
import { newAccessToken, type TokenFields } from './access-tokens.ts';

/** How long the first token of a new user lasts. */
export const FIRST_TOKEN_DAYS = 30;

export interface NewUser {
  name: string;
  email: string;
  isAdmin?: boolean;
}

type FirstToken = Pick<TokenFields, 'scopes' | 'spaceIds' | 'baseIds' | 'expiredTime'>;

/**
 * The rights of a new user's first token: every scope a user of this kind may have, no limits,
 * 30 days; when a token makes the user (`caller`), no more than that token has: its scopes, its
 * space/base limits and its expiry (a temporary token's parent's), whichever ends first. Pure.
 */
export const firstTokenRights = (isAdmin: boolean, now: Date, caller?: Principal): FirstToken => {
  const days = now.getTime() + FIRST_TOKEN_DAYS * 86_400_000;
  const end = caller?.expiredTime === undefined ? days : Math.min(days, Date.parse(caller.expiredTime));
  return {
    scopes: scopesFor(isAdmin).filter((s) => !caller || caller.scopes.has(s)),
    spaceIds: caller?.spaceIds ? [...caller.spaceIds] : null,
    baseIds: caller?.baseIds ? [...caller.baseIds] : null,
    expiredTime: new Date(end).toISOString(),
  };
};

/** The public shape of a user. */
export const toUser = (user: User) => ({
  id: user.id,
  name: user.name,
  email: user.email,
});

/**
 * Creates a user with a personal token (`firstTokenRights`: every scope for 30 days, or no more
 * than the calling token `caller` has), atomically with the claim on its email; an email already
 * taken is a 409. Without `caller` (the operator's tools) nothing bounds it. Returns the user and
 * the token text.
 */
export const createUser = async (input: NewUser, now = new Date(), caller?: Principal) => {
  const userId = newId('user');
  const email = input.email.trim();
  const user: User = {
    id: userId,
    name: input.name,
    email,
    isAdmin: input.isAdmin === true,
    createdTime: now.toISOString(),
  };
  const { accessToken, token } = newAccessToken({
    userId,
    name: 'Default token',
    ...firstTokenRights(user.isAdmin, now, caller),
    now,
  });
  await transact([claimEmailOp(email, userId), putUserOp(user), putAccessTokenOp(accessToken)], (index) =>
    index === 0 ? new ConflictError(`The email ${email} is already in use`) : new InternalServerError(),
  );
  return { ...toUser(user), token, tokenId: accessToken.id, isAdmin: user.isAdmin };
};

/**
 * The operator's way back in (`npm run user:token`): a new personal token for an existing user,
 * with every scope of the user's kind and no limits, for `days` days. Tokens never outlive the
 * token that makes them (issue 27), so without this a user whose tokens all ran out could not
 * get another one. Nothing but the operator's tools calls it: no route does.
 */
export const issueOperatorToken = async (email: string, days: number, now = new Date()) => {
  if (!Number.isInteger(days) || days < 1 || days > 366) throw new ValidationError('days must be 1..366');
  const user = await userByEmail(email);
  if (!user) throw new NotFoundError(`No user has the email ${email.trim()}`);
  const { accessToken, token } = newAccessToken({
    userId: user.id,
    name: `Operator token ${now.toISOString().slice(0, 10)}`,
    scopes: scopesFor(user.isAdmin),
    spaceIds: null,
    baseIds: null,
    expiredTime: new Date(now.getTime() + days * 86_400_000).toISOString(),
    now,
  });
  await transact([putAccessTokenOp(accessToken)], () => new InternalServerError());
  return {
    user: toUser(user),
    isAdmin: user.isAdmin,
    token,
    tokenId: accessToken.id,
    expiredTime: accessToken.expiredTime,
  };
};

/**
 * `POST /admin/users`: creates a user for the calling admin token. Its first token is bounded by
 * the caller (`firstTokenRights`), and an instance admin needs an unlimited personal token
 * (`checkMayCreateAdmin`, a 403 otherwise).
 */
export const createUserBy = async (caller: Principal, input: NewUser, now = new Date()) => {
  if (input.isAdmin === true) checkMayCreateAdmin(caller);
  const { id, name, email, token } = await createUser(input, now, caller);
  return { id, name, email, token };
};

/** The caller as Teable's `GET /auth/user` answers it (no avatars are stored). */
export const toUserInfo = (user: Pick<User, 'id' | 'name' | 'email'>) => ({
  id: user.id,
  name: user.name,
  avatar: null,
  email: user.email,
});

/** The caller as `GET /auth/user/me` answers it: the user info plus the client's required fields. */
export const toUserMe = (user: Pick<User, 'id' | 'name' | 'email' | 'isAdmin' | 'hasPassword'>) => ({
  ...toUserInfo(user),
  notifyMeta: { email: false },
  hasPassword: user.hasPassword === true,
  isAdmin: user.isAdmin,
});

/** The calling user as `GET /auth/user/me` answers it, from the profile read with authentication. */
export const currentUserMe = (principal: Principal, loaded: Loaded) =>
  toUserMe({
    id: principal.userId,
    name: principal.name,
    email: principal.email,
    isAdmin: principal.isAdmin,
    hasPassword: loaded.valueFor(userLookup(principal.userId))?.hasPassword,
  });

/** Memberships one transaction renames next to the profile and the job item (100 operations at most). */
const RENAME_CHUNK = 98;

/**
 * Renames a user (`PATCH /user/name`): the profile and the user's name on every membership, so
 * collaborator lists and user cells written from now on carry it. The profile and the first
 * memberships change in one transaction, further memberships in more (a user in over 98 spaces).
 * User cells already stored in records follow in the background (`records/user-names.ts`, a
 * `userCells` job of the purge queue).
 */
export const renameUser = async (userId: string, name: string): Promise<void> => {
  const spaceIds = (await mirrorsOfUser(userId)).map((m) => m.spaceId);
  const memberOps = spaceIds.map((spaceId) => renameMemberOp(spaceId, userId, name));
  const profile = renameUserOp(userId, name);
  // the records follow in the background: the job item is durable, the message starts it
  const job: PurgeJob = { kind: 'userCells', resourceId: userId };
  const chunks = [[profile, purgeJobOp(job, { userId }, new Date()), ...memberOps.slice(0, RENAME_CHUNK)]];
  for (let i = RENAME_CHUNK; i < memberOps.length; i += RENAME_CHUNK + 2)
    chunks.push(memberOps.slice(i, i + RENAME_CHUNK + 2));
  for (const ops of chunks)
    await transact(ops, () => new NotFoundError(`User ${userId} or one of its memberships not found`));
  await enqueuePurge(job);
};
