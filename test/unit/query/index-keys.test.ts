/**
 * Index keys against the engine: records sorted by their index key (plain string order, as
 * DynamoDB orders sort keys) come out in the engine's order, for random rows, filters, sorts and
 * groups; and the encodings' order properties on their own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredCell, UserRef } from '#shared/fields/field-types.ts';
import { runQuery } from '#shared/query/engine.ts';
import { compileFilter } from '#shared/query/filter.ts';
import { groupPointsOfTuples, pageStretches } from '#shared/query/groups.ts';
import {
  compileGroupKey,
  compileIndexKey,
  complement,
  encodeNumber,
  encodeText,
  indexBlocker,
  isCut,
  SORT_KEY_BUDGET,
  sortKeyOf,
} from '#shared/query/index-keys.ts';
import type { FilterGroup, Query, Row } from '#shared/query/query-types.ts';
import { contextOf, makeField, query, recId, rowsArbOf, specsArbOf } from './engine-support.ts';

const TEXT = 'fldTextTextTextText';
const NUM = 'fldNumbNumbNumbNumb';
const SEL = 'fldSelectSelectSele';
const BOX = 'fldCheckCheckCheckC';
const DATE = 'fldDateDateDateDate';
const USER = 'fldUserUserUserUser';
const TAGS = 'fldTagsTagsTagsTags';
const LONG = 'fldLongLongLongLong';
/** A lookup of numbers: a list of numbers per cell. */
const NUMS = 'fldNumsNumsNumsNums';
const IDS = [TEXT, NUM, SEL, BOX, DATE, USER, TAGS, LONG, NUMS];

const CHOICES = ['red', 'green', 'blue'];
const PEOPLE: UserRef[] = [
  { id: 'usrAAAAAAAAAAAAAAAA', title: 'Bob', email: 'b1@x.io' },
  { id: 'usrBBBBBBBBBBBBBBBB', title: 'bob', email: 'b2@x.io' },
  { id: 'usrCCCCCCCCCCCCCCCC', title: 'Ann', email: 'a@x.io' },
  { id: 'usrDDDDDDDDDDDDDDDD', title: 'Ann', email: 'a2@x.io' },
];
const fields = [
  makeField(TEXT, 'singleLineText'),
  makeField(NUM, 'number', { formatting: { type: 'decimal', precision: 1 } }),
  makeField(SEL, 'singleSelect', { choices: CHOICES.map((name) => ({ name })) }),
  makeField(BOX, 'checkbox'),
  makeField(DATE, 'date', { formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'Asia/Tokyo' } }),
  makeField(USER, 'user'),
  makeField(TAGS, 'multipleSelect', { choices: CHOICES.map((name) => ({ name })) }),
  makeField(LONG, 'longText'),
  {
    ...makeField(NUMS, 'number', { formatting: { type: 'decimal', precision: 1 } }),
    isLookup: true,
    isComputed: true,
    isMultipleCellValue: true,
  },
];
const ctx = contextOf(fields);

const texts = ['a', 'A', 'b', 'B', 'ab', 'Ab', 'é', 'z', '', ' ', '😀', '\uffff', 'Z\u0000', '10', '9'];
/** Long texts that share a prefix past the sort key's budget, so their keys are cut. */
const long = (tail: string) => `${'x'.repeat(SORT_KEY_BUDGET)}${tail}`;

const cellArb: Record<string, fc.Arbitrary<StoredCell | undefined>> = {
  [TEXT]: fc.option(fc.constantFrom(...texts), { nil: undefined }),
  [NUM]: fc.option(
    fc.constantFrom(-1.25, -0, 0, 0.04, 0.06, 1, 1.04, 2.5, 10, -1e300, 1e-300, Number.NEGATIVE_INFINITY),
    { nil: undefined },
  ),
  [SEL]: fc.option(fc.constantFrom(...CHOICES, 'gone'), { nil: undefined }),
  [BOX]: fc.option(fc.constant(true), { nil: undefined }),
  [DATE]: fc.option(
    fc.constantFrom(
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T14:59:00.000Z',
      '2026-03-01T15:00:00.000Z',
      '2026-03-02T05:00:00.000Z',
      '1969-12-31T23:00:00.000Z',
    ),
    { nil: undefined },
  ),
  [USER]: fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }),
  [TAGS]: fc.option(fc.subarray([...CHOICES, 'gone'], { minLength: 1 }), { nil: undefined }),
  [LONG]: fc.option(fc.constantFrom(long('a'), long('b'), long('B'), 'short', long('')), { nil: undefined }),
  [NUMS]: fc.option(
    fc.array(fc.constantFrom(-1.25, 0, 0.04, 0.06, 1, 1.04, 10, -1e300), { minLength: 1, maxLength: 3 }),
    {
      nil: undefined,
    },
  ),
};

const rowsArb = rowsArbOf(cellArb);
const specsArb = specsArbOf(IDS);

const filterArb: fc.Arbitrary<FilterGroup | null> = fc.oneof(
  fc.constant(null),
  fc.constantFrom(-1, 0.5, 1.04).map((n) => ({
    conjunction: 'and' as const,
    filterSet: [{ fieldId: NUM, operator: 'isGreater', value: n }],
  })),
  fc.constantFrom('a', 'B').map((t) => ({
    conjunction: 'and' as const,
    filterSet: [{ fieldId: TEXT, operator: 'contains', value: t }],
  })),
  fc.subarray(CHOICES, { minLength: 1 }).map((names) => ({
    conjunction: 'or' as const,
    filterSet: [
      { fieldId: SEL, operator: 'isAnyOf', value: names },
      { fieldId: BOX, operator: 'is', value: true },
    ],
  })),
);

/** The ids of the rows passing the filter, sorted by their index sort key (cut runs by the whole key). */
const indexOrder = (rows: readonly Row[], q: Query): string[] => {
  const keyOf = compileIndexKey(q, ctx);
  const passes = q.filter ? compileFilter(q.filter, ctx) : () => true;
  const entries = rows
    .filter(passes)
    .map((row) => ({ id: row.id, key: keyOf(row), sk: sortKeyOf(keyOf(row), row.id) }));
  entries.sort((x, y) => (x.sk < y.sk ? -1 : x.sk > y.sk ? 1 : 0));
  // a reader re-sorts each run of equal cut prefixes by the whole key
  for (let i = 0; i < entries.length; ) {
    let j = i + 1;
    const prefix = (e: (typeof entries)[number]) => (isCut(e.sk) ? e.sk.slice(0, SORT_KEY_BUDGET) : e.sk);
    while (
      j < entries.length &&
      isCut(entries[i]?.sk ?? '') &&
      prefix(entries[j] as never) === prefix(entries[i] as never)
    )
      j++;
    const run = entries.slice(i, j).sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    entries.splice(i, run.length, ...run);
    i = j;
  }
  return entries.map((e) => e.id);
};

const all = (q: Partial<Query>): Query => query({ take: 1000, ...q });

describe('index keys', () => {
  it('sorted as strings, keys give the engine order of sorted views', () => {
    fc.assert(
      fc.property(rowsArb, specsArb(3), filterArb, (rows, sort, filter) => {
        const q = all({ sort, filter });
        expect(indexBlocker(q, ctx)).toBeUndefined();
        expect(indexOrder(rows, q)).toEqual(runQuery(rows, q, ctx).ids);
      }),
      { numRuns: 400 },
    );
  });

  it('sorted as strings, keys give the engine order of grouped views (groups as runs, rounded numbers, days), and counted group keys its group points', () => {
    fc.assert(
      fc.property(rowsArb, specsArb(3), specsArb(2), filterArb, (rows, groupBy, sortItems, filter) => {
        const sort = sortItems.filter((s) => !groupBy.some((g) => g.fieldId === s.fieldId));
        const q = all({ groupBy, sort, filter });
        const result = runQuery(rows, q, ctx);
        expect(indexOrder(rows, q)).toEqual(result.ids);
        if (groupBy.length === 0) return;
        // the group tuples as a grouped index counts them: keyed by the group key, one member's cells
        const groupKeyOf = compileGroupKey(q, ctx);
        const passes = filter ? compileFilter(filter, ctx) : () => true;
        const tuples = new Map<string, { cells: Record<string, unknown>; count: number }>();
        for (const row of rows.filter(passes)) {
          const key = groupKeyOf(row);
          const seen = tuples.get(key);
          if (seen) seen.count++;
          else tuples.set(key, { cells: row.cells, count: 1 });
        }
        const ordered = [...tuples.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([, t]) => t);
        // as answered (JSON): a header's value comes from any record of its group (0 and -0 alike)
        const wire = (v: unknown) => JSON.parse(JSON.stringify(v));
        const { groupPoints, allGroupHeaderRefs } = groupPointsOfTuples(ordered, groupBy, ctx);
        expect(wire({ groupPoints, allGroupHeaderRefs })).toEqual(
          wire({ groupPoints: result.groupPoints, allGroupHeaderRefs: result.allGroupHeaderRefs }),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('with collapsed headers, counted group keys give the engine its group points, total and pages (read by stretches of visible tuples)', () => {
    fc.assert(
      fc.property(
        rowsArb,
        specsArb(3).filter((g) => g.length > 0),
        filterArb,
        fc.infiniteStream(fc.boolean()),
        fc.nat(40),
        fc.integer({ min: 1, max: 15 }),
        (rows, groupBy, filter, coin, skip, take) => {
          const q = all({ groupBy, filter });
          // collapse a random choice of the headers there are
          const headers = runQuery(rows, q, ctx).allGroupHeaderRefs ?? [];
          const collapsed = headers.filter(() => coin.next().value).map((h) => h.id);
          const expected = runQuery(rows, { ...q, collapsedGroupIds: collapsed, skip, take }, ctx);
          // the index: entries in key order, and the group tuples counted
          const groupKeyOf = compileGroupKey(q, ctx);
          const passes = filter ? compileFilter(filter, ctx) : () => true;
          const byId = new Map(rows.map((row) => [row.id, row]));
          const entries = indexOrder(rows, q).map((id) => ({ id, group: groupKeyOf(byId.get(id) as Row) }));
          const tuples = new Map<string, { key: string; cells: Record<string, unknown>; count: number }>();
          for (const row of rows.filter(passes)) {
            const key = groupKeyOf(row);
            const seen = tuples.get(key);
            if (seen) seen.count++;
            else tuples.set(key, { key, cells: row.cells, count: 1 });
          }
          const ordered = [...tuples.values()].sort((x, y) => (x.key < y.key ? -1 : 1));
          const walk = groupPointsOfTuples(ordered, groupBy, ctx, new Set(collapsed));
          const counts = ordered.map((t) => t.count);
          const { stretches, total } = pageStretches(counts, walk.visible, skip, skip + take);
          // each stretch read from its first tuple's first entry
          const ids = stretches.flatMap((stretch) => {
            const start = entries.findIndex((e) => e.group === ordered[stretch.tuple]?.key);
            return entries.slice(start + stretch.skip, start + stretch.skip + stretch.take).map((e) => e.id);
          });
          expect(ids).toEqual(expected.ids);
          expect(total).toBe(expected.total);
          const wire = (v: unknown) => JSON.parse(JSON.stringify(v));
          expect(wire(walk.groupPoints)).toEqual(wire(expected.groupPoints));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('places a page among visible group tuples: one stretch per run of visible tuples it overlaps', () => {
    const counts = [3, 2, 4, 1, 5];
    const all = [true, true, true, true, true];
    expect(pageStretches(counts, all, 0, 4)).toEqual({
      stretches: [{ tuple: 0, skip: 0, take: 4 }],
      total: 15,
    });
    expect(pageStretches(counts, all, 4, 8).stretches).toEqual([{ tuple: 1, skip: 1, take: 4 }]);
    // tuple 2 collapsed: rows 0–2, 3–4 | 5, 6–10
    const some = [true, true, false, true, true];
    expect(pageStretches(counts, some, 4, 7)).toEqual({
      stretches: [
        { tuple: 1, skip: 1, take: 1 },
        { tuple: 3, skip: 0, take: 2 },
      ],
      total: 11,
    });
    expect(pageStretches(counts, some, 11, 20).stretches).toEqual([]);
    expect(pageStretches(counts, [false, false, false, false, false], 0, 10)).toEqual({
      stretches: [],
      total: 0,
    });
  });

  it('keys are cut only past the budget, and a cut key ends with the record id', () => {
    const q = all({ sort: [{ fieldId: LONG, order: 'asc' }] });
    const keyOf = compileIndexKey(q, ctx);
    const short = keyOf({ id: recId(1), autoNumber: 1, cells: { [LONG]: 'short' } });
    const cut = sortKeyOf(keyOf({ id: recId(2), autoNumber: 2, cells: { [LONG]: long('a') } }), recId(2));
    expect(isCut(sortKeyOf(short, recId(1)))).toBe(false);
    expect(isCut(cut)).toBe(true);
    expect(cut.endsWith(`~${recId(2)}`)).toBe(true);
    // with the index's hash before it (`<22 characters>#`), within DynamoDB's 1,024 bytes
    expect(Buffer.byteLength(cut) + 23).toBeLessThanOrEqual(1024);
  });

  it('texts keep code-unit order and numbers numeric order; a complement reverses both', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (x, y) => {
        const expected = x < y ? -1 : x > y ? 1 : 0;
        const ex = encodeText(x);
        const ey = encodeText(y);
        expect(ex < ey ? -1 : ex > ey ? 1 : 0).toBe(expected);
        expect(complement(ex) < complement(ey) ? 1 : complement(ex) > complement(ey) ? -1 : 0).toBe(expected);
        expect(/^[!-~]*$/.test(ex)).toBe(true);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (x, y) => {
        const expected = x < y ? -1 : x > y ? 1 : 0;
        const ex = encodeNumber(x);
        const ey = encodeNumber(y);
        expect(ex < ey ? -1 : ex > ey ? 1 : 0).toBe(expected);
        expect(ex).toHaveLength(11);
      }),
      { numRuns: 500 },
    );
  });

  it('names what keeps a query out of an index', () => {
    const withTime = contextOf([
      ...fields,
      makeField('fldStampStampStampS', 'date', {
        formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'UTC' },
      }),
      makeField('fldLinkLinkLinkLink', 'link', {
        foreignTableId: 'tblOtherOtherOther1',
        relationship: 'manyOne',
      }),
    ]);
    const text = { fieldId: TEXT, order: 'asc' as const };
    expect(indexBlocker(all({ search: { value: 'a', fieldIds: [TEXT], hide: false } }), ctx)).toBe(
      'a search',
    );
    expect(indexBlocker(all({ groupBy: [text], collapsedGroupIds: ['1'] }), ctx)).toBe('collapsed groups');
    expect(
      indexBlocker(
        all({ filter: { conjunction: 'and', filterSet: [{ fieldId: USER, operator: 'is', value: 'Me' }] } }),
        ctx,
      ),
    ).toBe('a filter on the caller');
    expect(
      indexBlocker(
        all({
          filter: {
            conjunction: 'and',
            filterSet: [{ fieldId: DATE, operator: 'is', value: { mode: 'today', timeZone: 'UTC' } }],
          },
        }),
        ctx,
      ),
    ).toBe('a filter on dates relative to now');
    expect(indexBlocker(all({ sort: [{ fieldId: 'fldLinkLinkLinkLink', order: 'asc' }] }), withTime)).toMatch(
      /^a link field/,
    );
    expect(
      indexBlocker(all({ groupBy: [{ fieldId: 'fldStampStampStampS', order: 'asc' }] }), withTime),
    ).toMatch(/^grouping by a date with time/);
    expect(
      indexBlocker(all({ sort: [{ fieldId: 'fldStampStampStampS', order: 'asc' }] }), withTime),
    ).toBeUndefined();
  });
});
