/** Record order (listing.md section 3): every rule of `shared/query/sort.ts`. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import type { StoredCell } from '#shared/fields/field-types.ts';
import type { Row, SortSpec } from '#shared/query/query-types.ts';
import { compileSort, sortedWindow, sortRows } from '#shared/query/sort.ts';
import { alice, bob, carol, contextOf, makeField, recId, rowsOf } from './engine-support.ts';

const F = 'fldSortSortSortSort';
const G = 'fldSecondSecondSecx';

/** The autoNumbers of the rows in the order the field `F` sorts them. */
const orderOf = (
  type: string,
  options: unknown,
  cells: (StoredCell | undefined)[],
  order: 'asc' | 'desc' = 'asc',
  titles: Record<string, string> = {},
): number[] => {
  const field = makeField(F, type, options);
  const rows = rowsOf(cells.map((c) => ({ [F]: c })));
  return sortRows(rows, [{ fieldId: F, order }], contextOf([field], titles)).map((r) => r.autoNumber);
};

describe('empty cells', () => {
  it.each([
    ['singleLineText', undefined, ['b', undefined, 'a']],
    ['number', undefined, [2, undefined, 1]],
    ['date', undefined, ['2026-01-02T00:00:00.000Z', undefined, '2026-01-01T00:00:00.000Z']],
    ['user', undefined, [bob, undefined, alice]],
  ] as const)('%s: empty first in asc, last in desc', (type, options, cells) => {
    expect(orderOf(type, options, [...cells], 'asc')).toEqual([2, 3, 1]);
    expect(orderOf(type, options, [...cells], 'desc')).toEqual([1, 3, 2]);
  });
});

describe('numbers', () => {
  it('compares numerically, not as text, negatives first', () => {
    expect(orderOf('number', undefined, [10, 9, -3, 100, 0.5])).toEqual([3, 5, 2, 1, 4]);
  });

  it('a list of numbers (a lookup) as Teable orders it: first number at the precision, then length, then the others', () => {
    const precision = { formatting: { type: 'decimal', precision: 2 } };
    const cells = [[1, 5], [1, 3], [1.004], [1.001, 0], [-2, 9, 9], undefined, [1.004, -7]];
    // 1.004 and 1.001 tie at 2 decimals; the list of one comes first; then 0 < 3 < 5, and -7 < 0
    expect(orderOf('number', precision, cells)).toEqual([6, 5, 3, 7, 4, 2, 1]);
    expect(orderOf('number', precision, cells, 'desc')).toEqual([1, 2, 4, 7, 3, 5, 6]);
    // at 3 decimals the first numbers differ
    const finer = { formatting: { type: 'decimal', precision: 3 } };
    expect(orderOf('number', finer, [[1.004], [1.001, 0]])).toEqual([2, 1]);
  });

  it('rating and autoNumber sort as numbers', () => {
    expect(orderOf('rating', undefined, [3, 1, 2])).toEqual([2, 3, 1]);
    expect(orderOf('autoNumber', undefined, [30, 4, 200])).toEqual([2, 1, 3]);
  });
});

describe('dates', () => {
  it('sort by instant', () => {
    const cells = ['2026-03-01T10:00:00.000Z', '2025-12-31T23:59:59.999Z', '2026-03-01T09:59:59.000Z'];
    expect(orderOf('date', undefined, cells)).toEqual([2, 3, 1]);
    expect(orderOf('date', undefined, cells, 'desc')).toEqual([1, 3, 2]);
  });
});

describe('checkbox', () => {
  it('unchecked before checked in asc, after in desc', () => {
    expect(orderOf('checkbox', undefined, [true, undefined, true, undefined])).toEqual([2, 4, 1, 3]);
    expect(orderOf('checkbox', undefined, [true, undefined, true, undefined], 'desc')).toEqual([1, 3, 2, 4]);
  });
});

describe('text', () => {
  it('ignores case, exact text breaks the tie (stable: upper case first)', () => {
    expect(orderOf('singleLineText', undefined, ['b', 'B', 'a', 'A', 'Ab'])).toEqual([4, 3, 5, 2, 1]);
  });

  it('desc reverses the whole key', () => {
    expect(orderOf('singleLineText', undefined, ['b', 'B', 'a', 'A'], 'desc')).toEqual([1, 2, 3, 4]);
  });

  it('equal texts keep autoNumber order in asc and desc', () => {
    expect(orderOf('longText', undefined, ['x', 'x', 'x'])).toEqual([1, 2, 3]);
    expect(orderOf('longText', undefined, ['x', 'x', 'x'], 'desc')).toEqual([1, 2, 3]);
  });
});

describe('singleSelect', () => {
  const options = { choices: [{ name: 'zeta' }, { name: 'alpha' }, { name: 'mid' }] };

  it("sorts by the choice's position, not by name", () => {
    expect(orderOf('singleSelect', options, ['mid', 'alpha', 'zeta'])).toEqual([3, 2, 1]);
    expect(orderOf('singleSelect', options, ['mid', 'alpha', 'zeta'], 'desc')).toEqual([1, 2, 3]);
  });

  it('a name that is not a choice comes after every choice, by name', () => {
    expect(orderOf('singleSelect', options, ['gone', 'alpha', 'old', 'zeta'])).toEqual([4, 2, 1, 3]);
  });
});

describe('multipleSelect', () => {
  const options = { choices: [{ name: 'x' }, { name: 'y' }, { name: 'z' }] };

  it('sorts by the first element (choice position), then by length', () => {
    const cells = [['z'], ['y', 'x'], ['x', 'z', 'y'], ['y'], ['x']];
    expect(orderOf('multipleSelect', options, cells)).toEqual([5, 3, 4, 2, 1]);
    expect(orderOf('multipleSelect', options, cells, 'desc')).toEqual([1, 2, 4, 3, 5]);
  });
});

describe('users', () => {
  it('single users sort by title ignoring case', () => {
    expect(orderOf('user', undefined, [carol, bob, alice])).toEqual([3, 2, 1]);
  });

  it('multiple users sort by the first title, then by length', () => {
    const cells = [[carol], [bob, alice], [alice, carol], [alice]];
    expect(orderOf('user', { isMultiple: true }, cells)).toEqual([4, 3, 2, 1]);
  });

  it('createdBy sorts by title', () => {
    expect(orderOf('createdBy', undefined, [carol, alice, bob])).toEqual([2, 3, 1]);
  });
});

describe('links', () => {
  const options = { relationship: 'manyMany', foreignTableId: 'tblForeignAAAAAAAAA' };
  const R1 = 'recForeign000000001';
  const R2 = 'recForeign000000002';
  const R3 = 'recForeign000000003';
  const GONE = 'recForeign000000009';
  const titles = { [R1]: 'pear', [R2]: 'Apple', [R3]: 'apple' };

  it('sort by first linked title ignoring case, then by length, then by exact title', () => {
    const cells = [[R1], [R3], [R2, R1], [R2]];
    expect(orderOf('link', options, cells, 'asc', titles)).toEqual([4, 2, 3, 1]);
  });

  it('ids without a title are ignored; a cell of only those counts as empty', () => {
    const cells = [[GONE, R1], [GONE], [R2]];
    expect(orderOf('link', options, cells, 'asc', titles)).toEqual([2, 3, 1]);
  });
});

describe('attachments', () => {
  it('sort by the first file name, then count', () => {
    const file = (name: string) => ({
      id: `act${name}`,
      name,
      token: name,
      path: name,
      size: 1,
      mimetype: 'x',
    });
    const cells = [[file('b.png')], [file('a.png'), file('c.png')], [file('a.png')]];
    expect(orderOf('attachment', undefined, cells)).toEqual([3, 2, 1]);
  });
});

describe('ties, manual order and autoNumber', () => {
  const f = makeField(F, 'singleLineText');
  const g = makeField(G, 'number');
  const ctx = contextOf([f, g]);

  it('the second item breaks ties of the first', () => {
    const rows = rowsOf([
      { [F]: 'a', [G]: 1 },
      { [F]: 'b', [G]: 0 },
      { [F]: 'a', [G]: 3 },
    ]);
    const specs: SortSpec[] = [
      { fieldId: F, order: 'asc' },
      { fieldId: G, order: 'desc' },
    ];
    expect(sortRows(rows, specs, ctx).map((r) => r.autoNumber)).toEqual([3, 1, 2]);
  });

  it('the manual order breaks ties (text compare of orderKey), then autoNumber', () => {
    const rows: Row[] = [
      { id: recId(1), autoNumber: 1, orderKey: 'a2', cells: { [F]: 'x' } },
      { id: recId(2), autoNumber: 2, orderKey: 'a10', cells: { [F]: 'x' } },
      { id: recId(3), autoNumber: 3, orderKey: 'a1', cells: { [F]: 'x' } },
      { id: recId(4), autoNumber: 4, orderKey: 'a1', cells: { [F]: 'w' } },
    ];
    expect(sortRows(rows, [{ fieldId: F, order: 'asc' }], ctx).map((r) => r.autoNumber)).toEqual([
      4, 3, 2, 1,
    ]);
    expect(sortRows(rows, [], ctx).map((r) => r.autoNumber)).toEqual([3, 4, 2, 1]);
  });

  it('without a manual order, autoNumber decides', () => {
    const rows = rowsOf([{}, {}, {}]).reverse();
    expect(sortRows(rows, [], ctx).map((r) => r.autoNumber)).toEqual([1, 2, 3]);
  });

  it('rows with an order key come before rows without one', () => {
    const rows: Row[] = [
      { id: recId(1), autoNumber: 1, cells: {} },
      { id: recId(2), autoNumber: 2, orderKey: 'b', cells: {} },
    ];
    expect(sortRows(rows, [], ctx).map((r) => r.autoNumber)).toEqual([2, 1]);
  });

  it('compileSort agrees with sortRows', () => {
    const rows = rowsOf([{ [F]: 'b' }, { [F]: 'A' }, {}, { [F]: 'a' }, { [F]: 'b' }]);
    const specs: SortSpec[] = [{ fieldId: F, order: 'desc' }];
    const viaComparator = [...rows].sort(compileSort(specs, ctx)).map((r) => r.autoNumber);
    expect(viaComparator).toEqual(sortRows(rows, specs, ctx).map((r) => r.autoNumber));
    expect(viaComparator).toEqual([1, 5, 4, 2, 3]);
  });

  it('an unknown field is a 400', () => {
    expect(() => sortRows(rowsOf([{}]), [{ fieldId: 'fldNopeNopeNopeNope', order: 'asc' }], ctx)).toThrow(
      ValidationError,
    );
  });
});

describe('sortedWindow', () => {
  it('equals the same slice of a full sort, for near-start (heap) and deep (quickselect) windows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 400 }),
        fc.nat(450),
        fc.integer({ min: 1, max: 120 }),
        (values, from, take) => {
          // a total order: value, then position
          const items = values.map((v, i) => ({ v, i }));
          const compare = (x: { v: number; i: number }, y: { v: number; i: number }) =>
            x.v - y.v || x.i - y.i;
          const expected = [...items].sort(compare).slice(from, from + take);
          expect(sortedWindow(items, compare, from, from + take)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves its input alone', () => {
    const items = [3, 1, 2];
    sortedWindow(items, (x, y) => x - y, 1, 3);
    expect(items).toEqual([3, 1, 2]);
  });
});
