import { describe, expect, it } from 'vitest';
import { REPAIR_EVERY_SECONDS } from '#shared/db/commit.ts';
import { computingError, segmentRanges, unkeepableError } from '#shared/listing/order-computation.ts';
import { MAX_RANGES, READ_IN_FLIGHT, rangesFor, recordSlices, slicesFor } from '#shared/records/rows.ts';

describe('ranges of a table read', () => {
  it.each([0, 1, 500, 8_000, 10_000, 100_000, 1_000_000, 5_000_000])(
    '%i records: as many ranges as small tables had slices, then ~2,000 records a range, at most MAX_RANGES',
    (records) => {
      const ranges = rangesFor(records);
      expect(ranges).toBeGreaterThanOrEqual(slicesFor(records));
      expect(ranges).toBeLessThanOrEqual(MAX_RANGES);
      if (records <= 8_000) expect(ranges).toBe(slicesFor(records));
      else if (records <= MAX_RANGES * 2_000)
        expect(ranges).toBe(Math.max(slicesFor(records), Math.ceil(records / 2_000)));
      expect(recordSlices(ranges)).toHaveLength(ranges);
    },
  );

  it('1,000,000 records: about 32 sequential rounds of two pages with READ_IN_FLIGHT ranges at a time', () => {
    const ranges = rangesFor(1_000_000);
    expect(Math.ceil(ranges / READ_IN_FLIGHT) * 2).toBeLessThanOrEqual(40);
  });

  it.each([
    [16, 2],
    [12, 5],
    [500, 32],
    [4, 32],
  ])('segments of %i ranges by %i cover every range once, in order', (ranges, perSegment) => {
    const all = recordSlices(ranges);
    const segments = Math.ceil(ranges / perSegment);
    const joined = Array.from({ length: segments }, (_, s) => segmentRanges(ranges, perSegment, s)).flat();
    expect(joined).toEqual(all);
  });
});

describe('the answer for an order the worker could not keep', () => {
  it('is a 422 saying why and what to do, not a 503 to retry', () => {
    const error = unkeepableError();
    expect(error.status).toBe(422);
    expect(error.code).toBe('query_too_large');
    expect(error.message).toMatch(/too many groups: their headers take more than 300 KB/);
    expect(error.message).toMatch(/Narrow it with a filter, or group by fewer or coarser fields/);
  });
});

describe('the answer while the worker computes', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const at = (seconds: number) => new Date(now - seconds * 1000).toISOString();

  it('is a 503 with Retry-After: a quarter of the worker period before it starts (the hand-off woke it)', () => {
    const error = computingError(undefined, now);
    expect(error.status).toBe(503);
    expect(error.code).toBe('service_unavailable');
    expect(error.headers['retry-after']).toBe(String(Math.ceil(REPAIR_EVERY_SECONDS / 4)));
    expect(error.message).toMatch(/being computed in the background/);
  });

  it('follows the progress once it runs: time per segment done × segments left, 2..120 s', () => {
    const running = (done: number, elapsed: number) =>
      computingError(
        {
          ranges: 40,
          perSegment: 4,
          startedTime: at(elapsed),
          done: Object.fromEntries(Array.from({ length: done }, (_, i) => [String(i), 'a'])),
        },
        now,
      ).headers['retry-after'];
    expect(running(5, 50)).toBe('50');
    expect(running(9, 90)).toBe('10');
    expect(running(1, 1)).toBe('9');
    expect(running(1, 600)).toBe('120');
    expect(running(9, 0.1)).toBe('2');
    expect(running(0, 5)).toBe(String(Math.ceil(REPAIR_EVERY_SECONDS / 2)));
  });
});
