import { hashPassword, needsRehash, PASSWORD_RULE, verifyPassword } from '#shared/auth/passwords.ts';
import type { Principal } from '#shared/auth/permission.ts';
import {
  clearSessionCookie,
  mintSession,
  SESSION_MS,
  sessionSetCookie,
} from '#shared/auth/session-cookie.ts';
import {
  type AttemptKind,
  type Attempts,
  afterFailure,
  lockedFor,
  NO_ATTEMPTS,
} from '#shared/auth/sign-in-limits.ts';
import { config } from '#shared/config.ts';
import {
  ConflictError,
  ForbiddenError,
  InternalServerError,
  TooManyRequestsError,
  ValidationError,
} from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import { readBatch } from '#shared/entities/batch-read.ts';
import { addPasswordOp, passwordLookup, replacePasswordOp } from '#shared/entities/passwords.ts';
import { deleteSessionOp, putSessionOp, type Session, touchSession } from '#shared/entities/sessions.ts';
import { attemptsLookup, clearAttempts, saveAttempts } from '#shared/entities/sign-in-attempts.ts';
import {
  claimEmailOp,
  putUserOp,
  setPasswordStateOp,
  type User,
  userIdByEmail,
  userLookup,
} from '#shared/entities/users.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import { toUserMe } from './users.ts';

/**
 * Signing in with a password and the sessions it starts (contract: sessions). Every answer that
 * starts or ends a session carries the `Set-Cookie` to send (`cookies`).
 */

/** The one answer for an unknown email and a wrong password (Teable's sign-in form shows it). */
export const WRONG_CREDENTIALS = 'Incorrect email or password.';

export interface SignedIn {
  user: ReturnType<typeof toUserMe>;
  cookies: string[];
}

/** A new session of a user, and its cookie. */
const newSession = (
  user: Pick<User, 'id' | 'sessionEpoch'>,
  now: Date,
): { session: Session; cookie: string } => {
  const { value, secretHash } = mintSession(user.id);
  const session: Session = {
    userId: user.id,
    secretHash,
    createdTime: now.toISOString(),
    lastUsedTime: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_MS).toISOString(),
    epoch: user.sessionEpoch ?? 0,
  };
  return { session, cookie: sessionSetCookie(value, config.secureCookies) };
};

const userMeOf = (user: User) => toUserMe(user);

/** Teable names a user who signs up by the part of the email before the `@`. */
const nameFromEmail = (email: string) => email.slice(0, email.indexOf('@')) || email;

/**
 * `POST /auth/signup`: a new user with a password, signed in at once; 403 while sign-up is
 * closed, 409 for an email in use. One transaction: the email's claim, the profile, the password
 * and the session.
 */
export const signUp = async (
  input: { email: string; password: string },
  now = new Date(),
): Promise<SignedIn> => {
  if (config.signup !== 'open') throw new ForbiddenError('sign-up is closed');
  const email = input.email.trim().toLowerCase();
  const user: User = {
    id: newId('user'),
    name: nameFromEmail(email),
    email,
    isAdmin: false,
    createdTime: now.toISOString(),
    hasPassword: true,
  };
  const hash = await hashPassword(input.password);
  const { session, cookie } = newSession(user, now);
  await transact(
    [
      claimEmailOp(email, user.id),
      putUserOp(user),
      addPasswordOp({ userId: user.id, hash, changedTime: now.toISOString() }),
      putSessionOp(session),
    ],
    (index) =>
      index === 0 ? new ConflictError(`The email ${email} is already in use`) : new InternalServerError(),
  );
  return { user: userMeOf(user), cookies: [cookie] };
};

/** The 429 of a locked email or address, or nothing. */
const checkNotLocked = (locks: number[]) => {
  const seconds = Math.max(0, ...locks);
  if (seconds > 0)
    throw new TooManyRequestsError(`Too many failed sign-ins; try again in ${seconds} seconds`, seconds);
};

/**
 * Counts one failed sign-in against a key: from the counts read before (`known`), else read now;
 * read again and retried when a concurrent failure wrote first.
 */
const countFailure = async (kind: AttemptKind, value: string, now: number, known?: Attempts) => {
  let read = known;
  for (let tries = 0; tries < 5; tries++) {
    if (!read || tries > 0) {
      const lookup = attemptsLookup(kind, value);
      read = (await readBatch([lookup])).valueFor(lookup);
    }
    const current = read ?? NO_ATTEMPTS;
    if (await saveAttempts(kind, value, afterFailure(current, kind, now), current.version)) return;
  }
};

/**
 * `POST /auth/signin`: checks the password (the same work and the same 400 for an unknown email,
 * a user without a password and a wrong password) and starts a session. Failures are counted per
 * email and per client address; a locked one is a 429 before any password is checked.
 */
export const signIn = async (
  input: { email: string; password: string },
  address: string,
  now = new Date(),
): Promise<SignedIn> => {
  const email = input.email.trim().toLowerCase();
  const emailTries = attemptsLookup('email', email);
  const addressTries = attemptsLookup('address', address);
  // the counts and the email's claim at once: one round trip
  const [tries, claimed] = await Promise.all([readBatch([emailTries, addressTries]), userIdByEmail(email)]);
  const forEmail = tries.valueFor(emailTries);
  const forAddress = tries.valueFor(addressTries);
  const at = now.getTime();
  checkNotLocked([forEmail, forAddress].map((a) => (a ? lockedFor(a, at) : 0)));
  // an unknown email reads as much as a known one: the password and the profile of no one
  const userId = claimed ?? 'usrNoOne';
  const read = await readBatch([passwordLookup(userId), userLookup(userId)]);
  const stored = read.valueFor(passwordLookup(userId));
  const user = read.valueFor(userLookup(userId));
  const matches = await verifyPassword(input.password, user ? stored?.hash : undefined);
  if (!matches || !user || !stored) {
    await Promise.all([
      countFailure('email', email, at, forEmail ?? NO_ATTEMPTS),
      countFailure('address', address, at, forAddress ?? NO_ATTEMPTS),
    ]);
    throw new ValidationError(WRONG_CREDENTIALS);
  }
  const { session, cookie } = newSession(user, now);
  const ops = [putSessionOp(session)];
  // a hash of weaker parameters than today's is stored again, now that the password is known
  if (needsRehash(stored.hash))
    ops.push(
      replacePasswordOp(
        { userId, hash: await hashPassword(input.password), changedTime: stored.changedTime },
        stored.hash,
      ),
    );
  await Promise.all([
    transact(ops, () => new ConflictError('the password changed meanwhile; sign in again')),
    // the owner is back: the email's failures are forgotten (nothing to forget: no write)
    forEmail ? clearAttempts('email', email) : undefined,
  ]);
  return { user: userMeOf(user), cookies: [cookie] };
};

/** `POST /auth/signout`: ends the caller's session (a token's caller has none) and clears the cookie. */
export const signOut = async (principal: Principal): Promise<string[]> => {
  if (principal.session)
    await transact(
      [deleteSessionOp(principal.userId, principal.session.secretHash)],
      () => new InternalServerError(),
    );
  return [clearSessionCookie(config.secureCookies)];
};

/**
 * `PATCH /auth/change-password`: checks the current password (a wrong one counts as a failed
 * sign-in of the email), stores the new one and moves the session epoch, which ends every other
 * session of the user at once; a session caller gets a new session (and cookie) of the new epoch.
 */
export const changePassword = async (
  principal: Principal,
  input: { password: string; newPassword: string },
  now = new Date(),
): Promise<string[]> => {
  const email = principal.email.toLowerCase();
  const emailTries = attemptsLookup('email', email);
  const read = await readBatch([passwordLookup(principal.userId), userLookup(principal.userId), emailTries]);
  const at = now.getTime();
  const tries = read.valueFor(emailTries);
  checkNotLocked([tries ? lockedFor(tries, at) : 0]);
  const stored = read.valueFor(passwordLookup(principal.userId));
  const user = read.valueFor(userLookup(principal.userId));
  if (!user) throw new InternalServerError();
  if (!stored) throw new ValidationError('You have no password yet; add one with POST /auth/add-password');
  if (!(await verifyPassword(input.password, stored.hash))) {
    await countFailure('email', email, at, tries ?? NO_ATTEMPTS);
    throw new ValidationError('The current password is incorrect');
  }
  const epoch = (user.sessionEpoch ?? 0) + 1;
  const ops = [
    replacePasswordOp(
      { userId: user.id, hash: await hashPassword(input.newPassword), changedTime: now.toISOString() },
      stored.hash,
    ),
    setPasswordStateOp(user.id, epoch),
  ];
  let cookies: string[] = [];
  if (principal.session) {
    const next = newSession({ id: user.id, sessionEpoch: epoch }, now);
    ops.push(deleteSessionOp(user.id, principal.session.secretHash), putSessionOp(next.session));
    cookies = [next.cookie];
  }
  await transact(ops, () => new ConflictError('the password changed meanwhile; sign in again'));
  return cookies;
};

/**
 * `POST /auth/add-password`: a first password for a user who has none (made by an operator or an
 * admin); 409 once there is one. `npm run user:create -- --password` and `npm start` use it too.
 */
export const addPassword = async (userId: string, password: string, now = new Date()): Promise<void> => {
  await transact(
    [
      addPasswordOp({ userId, hash: await hashPassword(password), changedTime: now.toISOString() }),
      setPasswordStateOp(userId),
    ],
    (index) =>
      index === 0
        ? new ConflictError('You already have a password; change it with PATCH /auth/change-password')
        : new InternalServerError(),
  );
};

/** A password of 20 random characters that meets the rule (printed once, for an operator to hand on). */
export const generatePassword = (): string => {
  for (;;) {
    const candidate = randomBase62(20);
    if (PASSWORD_RULE.test(candidate)) return candidate;
  }
};

/** True when the password is the user's (`npm start` checks the one it printed is still current). */
export const passwordIsCurrent = async (userId: string, password: string): Promise<boolean> => {
  const lookup = passwordLookup(userId);
  const stored = (await readBatch([lookup])).valueFor(lookup);
  return stored !== undefined && (await verifyPassword(password, stored.hash));
};

/**
 * Slides a session's expiry forward (a use over an hour after the last): answers the renewed
 * cookie to send, or nothing when the session ended meanwhile.
 */
export const renewSession = async (
  principal: Principal,
  cookieValue: string,
  now = new Date(),
): Promise<string[]> => {
  if (!principal.session) return [];
  const expiresAt = new Date(now.getTime() + SESSION_MS).toISOString();
  try {
    await touchSession(
      { userId: principal.userId, secretHash: principal.session.secretHash },
      now.toISOString(),
      expiresAt,
    );
  } catch (error) {
    if (error instanceof ConflictError) return [];
    throw error;
  }
  return [sessionSetCookie(cookieValue, config.secureCookies)];
};
