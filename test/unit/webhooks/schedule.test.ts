import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GIVE_UP_MS,
  givenUp,
  MAX_WAIT_MS,
  retryAfterMs,
  retryDelayMs,
  toDisable,
} from '#shared/webhooks/retry-schedule.ts';

const now = Date.parse('2026-11-28T12:00:00Z');

describe('webhook retry schedule', () => {
  it('retries the first failure within 30 s, then waits up to a doubling cap, never over an hour (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r) => {
          const wait = retryDelayMs(attempt, undefined, now, r);
          expect(wait).toBeGreaterThanOrEqual(1000);
          expect(wait).toBeLessThanOrEqual(
            Math.max(1000, Math.min(MAX_WAIT_MS, 30_000 * 2 ** (attempt - 1))),
          );
        },
      ),
    );
    expect(retryDelayMs(1, undefined, now, 0.999)).toBeLessThanOrEqual(30_000);
  });

  it('keeps trying for at least 24 hours: the waits of the attempts before giving up add up past it', () => {
    let elapsed = 0;
    let attempts = 1;
    while (!givenUp(0, elapsed)) {
      elapsed += retryDelayMs(attempts, undefined, now, 1);
      attempts++;
    }
    expect(elapsed).toBeGreaterThanOrEqual(GIVE_UP_MS);
    expect(attempts).toBeGreaterThan(20);
  });

  it('honours Retry-After, in seconds or as a date, sooner or later, up to an hour', () => {
    expect(retryDelayMs(1, '2', now, 0.5)).toBe(2000);
    expect(retryDelayMs(5, '0', now, 0.5)).toBe(0);
    expect(retryDelayMs(1, '7200', now, 0.5)).toBe(MAX_WAIT_MS);
    expect(retryDelayMs(1, new Date(now + 90_000).toUTCString(), now, 0.5)).toBe(90_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryDelayMs(1, 'soon', now, 0)).toBe(1000);
  });

  it('disables after 5 failed deliveries in a row or 3 days of failing', () => {
    expect(toDisable(4, undefined, now)).toBe(false);
    expect(toDisable(5, undefined, now)).toBe(true);
    expect(toDisable(2, now - 71 * 3600_000, now)).toBe(false);
    expect(toDisable(2, now - 72 * 3600_000, now)).toBe(true);
  });
});
