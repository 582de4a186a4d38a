/**
 * How guessing passwords is slowed (contract: sessions): failed sign-ins are counted per email and
 * per client address in a 15-minute window; the 5th failure of an email (the 20th of an address)
 * locks it, and a locked one is answered 429 with `Retry-After` until the lock ends. Each lock
 * lasts twice the one before, up to an hour; a quiet hour forgets them. Pure: the counts live in
 * DynamoDB (`entities/sign-in-attempts.ts`), so every Lambda sees the same.
 */

import { type AttemptKind, type Attempts, FORGET_AFTER_MS } from '#shared/entities/sign-in-attempts.ts';

export type { AttemptKind, Attempts };
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES = { email: 5, address: 20 } as const;
export const MAX_LOCK_SECONDS = 3600;
/** The first lock; each next one lasts twice as long. */
export const FIRST_LOCK_SECONDS = 60;

export const NO_ATTEMPTS: Attempts = { failures: 0, windowStart: 0, lockedUntil: 0, locks: 0, version: 0 };

/** Seconds until the lock ends, or 0 when not locked. */
export const lockedFor = (a: Attempts, now: number): number =>
  a.lockedUntil > now ? Math.ceil((a.lockedUntil - now) / 1000) : 0;

/** The counts after one more failure: a new window when the last one ended, a lock at the limit. */
export const afterFailure = (
  a: Attempts,
  kind: AttemptKind,
  now: number,
  firstLockSeconds = FIRST_LOCK_SECONDS,
): Attempts => {
  const forgotten = now - Math.max(a.windowStart, a.lockedUntil) > FORGET_AFTER_MS;
  const base = forgotten ? { ...NO_ATTEMPTS, version: a.version } : a;
  const fresh = now - base.windowStart >= SIGN_IN_WINDOW_MS;
  const failures = (fresh ? 0 : base.failures) + 1;
  const windowStart = fresh ? now : base.windowStart;
  if (failures < MAX_FAILURES[kind]) return { ...base, failures, windowStart, version: a.version + 1 };
  const seconds = Math.min(MAX_LOCK_SECONDS, firstLockSeconds * 2 ** base.locks);
  const lockedUntil = now + seconds * 1000;
  // the next window opens when the lock ends
  return {
    failures: 0,
    windowStart: lockedUntil,
    lockedUntil,
    locks: base.locks + 1,
    version: a.version + 1,
  };
};
