import { describe, expect, it } from 'vitest';
import { captureBehindMs, uncaptured } from '#shared/bulk/pacing.ts';

/** An import's view of the capture's lag from the base's log (`shared/bulk/pacing.ts`). */
describe('import pacing by the log', () => {
  const starts = [1_000, 2_000, 3_000];

  it('is as far behind as the oldest chunk the log has not reached is old', () => {
    expect(captureBehindMs(starts, undefined, 10_000)).toBe(9_000);
    expect(captureBehindMs(starts, 1_500, 10_000)).toBe(8_000);
    expect(captureBehindMs(starts, 2_999, 10_000)).toBe(7_000);
  });

  it('is 0 once the log reached the last chunk, or with no chunk written', () => {
    expect(captureBehindMs(starts, 3_000, 10_000)).toBe(0);
    expect(captureBehindMs(starts, 9_000, 10_000)).toBe(0);
    expect(captureBehindMs([], undefined, 10_000)).toBe(0);
  });

  it('forgets the chunks the log has reached', () => {
    expect(uncaptured(starts, 2_000)).toEqual([3_000]);
    expect(uncaptured(starts, undefined)).toEqual(starts);
    expect(uncaptured(starts, 5_000)).toEqual([]);
  });
});
