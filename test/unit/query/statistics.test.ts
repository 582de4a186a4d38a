import { describe, expect, it } from 'vitest';
import { statistic } from '#shared/query/statistics.ts';

describe('column statistics: unique', () => {
  it('counts the distinct items of a multiple select (or any list column), not its distinct lists', () => {
    const cells = [['a', 'b'], ['b'], ['a', 'b'], undefined, ['c']];
    expect(statistic('unique', cells)).toBe(3);
    // distinct items over all items: 3 of 6
    expect(statistic('percentUnique', cells)).toBe(50);
  });

  it('counts distinct values of plain cells over the records, empties left out of the distinct', () => {
    const cells = ['open', 'open', 'closed', undefined];
    expect(statistic('unique', cells)).toBe(2);
    expect(statistic('percentUnique', cells)).toBe(50);
  });

  it('answers null for a list column with no item, as for no records', () => {
    expect(statistic('percentUnique', [[], undefined])).toBeNull();
    expect(statistic('unique', [[], undefined])).toBe(0);
  });
});
