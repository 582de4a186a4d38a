/**
 * When a failed delivery is tried again (data-flow.md 4), pure: the first retry within 30 s, then
 * exponential backoff with full jitter (each wait a random time up to a doubling cap, at most an
 * hour), for at least 24 hours from the first attempt; a `Retry-After` the receiver sends is
 * honoured, sooner or later, up to an hour. After that the delivery has failed; a webhook whose
 * deliveries failed 5 times in a row, or that has been failing for 3 days, is disabled.
 */

/** How long a delivery is tried before it counts as failed. */
export const GIVE_UP_MS = 24 * 3600_000;
/** The longest wait between two attempts (and the longest `Retry-After` honoured). */
export const MAX_WAIT_MS = 3600_000;
/** The first retry's cap. */
const FIRST_WAIT_MS = 30_000;
/** Failed deliveries in a row that disable a webhook. */
export const FAILURES_TO_DISABLE = 5;
/** Days of failing that disable a webhook. */
export const FAILING_MS_TO_DISABLE = 3 * 86_400_000;
/** How long a receiver has to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Milliseconds before attempt `attempt + 1`, after attempt `attempt` (1 = the first) failed:
 * `Retry-After` (seconds or an HTTP date) when given, capped at an hour; else a random wait up to
 * 30 s × 2^(attempt − 1), capped at an hour, and at least a second. `random`: 0..1. Pure.
 */
export const retryDelayMs = (
  attempt: number,
  retryAfter: string | undefined,
  now: number,
  random: number,
): number => {
  const asked = retryAfterMs(retryAfter, now);
  if (asked !== undefined) return Math.min(MAX_WAIT_MS, asked);
  const cap = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.max(0, attempt - 1));
  return Math.max(1000, Math.floor(random * cap));
};

/** A `Retry-After` header's wait in ms (delta seconds, or an HTTP date), undefined when absent or unreadable. Pure. */
export const retryAfterMs = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/** Whether a delivery first tried at `firstAttemptAt` has been tried long enough to count as failed. Pure. */
export const givenUp = (firstAttemptAt: number, now: number): boolean => now - firstAttemptAt >= GIVE_UP_MS;

/** Whether a webhook with these failures is to be disabled. Pure. */
export const toDisable = (failuresInARow: number, failingSince: number | undefined, now: number): boolean =>
  failuresInARow >= FAILURES_TO_DISABLE ||
  (failingSince !== undefined && now - failingSince >= FAILING_MS_TO_DISABLE);
