/**
 * The bench's pricing (`test/bench/prices.ts`): each service's share from a use, sums and scaling.
 */
import { describe, expect, it } from 'vitest';
import { costOf, dollars, PRICES, plus, times } from '#test/bench/prices.ts';

describe('prices', () => {
  it('prices a million of each unit at its list price', () => {
    expect(costOf({ writeUnits: 1e6 }).dynamo).toBeCloseTo(0.625, 9);
    expect(costOf({ readUnits: 1e6 }).dynamo).toBeCloseTo(0.125, 9);
    expect(costOf({ httpRequests: 1e6 }).gateway).toBeCloseTo(1, 9);
    expect(costOf({ webSocketMessages: 1e6 }).gateway).toBeCloseTo(1, 9);
    expect(costOf({ sqsRequests: 1e6 }).other).toBeCloseTo(0.4, 9);
    expect(costOf({ bytesOut: 1024 ** 3 }).other).toBeCloseTo(PRICES.transferOutGb, 9);
  });

  it('bills Lambda by the millisecond rounded up, at its memory, plus the invocation', () => {
    // 1 GB for 1.2 ms bills 2 ms: 0.002 GB-s
    const one = costOf({ lambda: [{ ms: 1.2, memoryMb: 1024 }] });
    expect(one.lambda).toBeCloseTo(0.002 * PRICES.lambdaGbSecond + PRICES.lambdaInvocation, 15);
    const twice = costOf({ lambda: [{ ms: 1000, memoryMb: 2048, invocations: 0 }] });
    expect(twice.lambda).toBeCloseTo(2 * PRICES.lambdaGbSecond, 15);
  });

  it('adds two uses and scales one, the total the sum of its parts', () => {
    const a = { readUnits: 2, writeUnits: 1, httpRequests: 1 };
    const b = { writeUnits: 3, lambda: [{ ms: 10, memoryMb: 1024 }] };
    const both = plus(a, b);
    expect(both).toMatchObject({ readUnits: 2, writeUnits: 4, httpRequests: 1 });
    const c = costOf(times(both, 1000));
    expect(c.total).toBeCloseTo(c.dynamo + c.lambda + c.gateway + c.other, 15);
    expect(c.dynamo).toBeCloseTo(1000 * costOf(both).dynamo, 12);
    expect(times(b, 3).lambda).toEqual([{ ms: 30, memoryMb: 1024, invocations: 3 }]);
  });

  it('shows dollars without exponents', () => {
    expect(dollars(0)).toBe('$0');
    expect(dollars(12.345)).toBe('$12.35');
    expect(dollars(0.5)).toBe('$0.500');
    expect(dollars(0.000123)).toBe('$0.000123');
  });
});
