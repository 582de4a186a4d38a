/**
 * Property tests of `runQuery`: random rows, sorts, groups, collapses and simple filters against a
 * deliberately simple reference written here independently (plain comparisons, no key columns,
 * no heaps, no tuple ranks), plus paging invariants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import type { StoredCell, UserRef } from '#shared/fields/field-types.ts';
import { queryFieldIds, runQuery } from '#shared/query/engine.ts';
import type { FilterGroup, GroupPoint, Query, Row, SortSpec } from '#shared/query/query-types.ts';
import { contextOf, makeField, query, recId, rowsArbOf, specsArbOf } from './engine-support.ts';

const TEXT = 'fldTextTextTextText';
const NUM = 'fldNumbNumbNumbNumb';
const SEL = 'fldSelectSelectSele';
const BOX = 'fldCheckCheckCheckC';
const DATE = 'fldDateDateDateDate';
const USER = 'fldUserUserUserUser';
const TAGS = 'fldTagsTagsTagsTags';
const IDS = [TEXT, NUM, SEL, BOX, DATE, USER, TAGS];

const CHOICES = ['red', 'green', 'blue'];
const PEOPLE: UserRef[] = [
  { id: 'usrAAAAAAAAAAAAAAAA', title: 'Bob', email: 'b1@x.io' },
  { id: 'usrBBBBBBBBBBBBBBBB', title: 'bob', email: 'b2@x.io' },
  { id: 'usrCCCCCCCCCCCCCCCC', title: 'Ann', email: 'a@x.io' },
];
const fields = [
  makeField(TEXT, 'singleLineText'),
  makeField(NUM, 'number', { formatting: { type: 'decimal', precision: 1 } }),
  makeField(SEL, 'singleSelect', { choices: CHOICES.map((name) => ({ name })) }),
  makeField(BOX, 'checkbox'),
  makeField(DATE, 'date'),
  makeField(USER, 'user'),
  makeField(TAGS, 'multipleSelect', { choices: CHOICES.map((name) => ({ name })) }),
];
const ctx = contextOf(fields);

// ---- a deliberately simple reference -------------------------------------------------------------

/** Rounds to one digit, half away from zero (the decision documented in groups.ts). */
const round1 = (n: number): number => (Math.sign(n) * Math.round(Math.abs(n) * 10)) / 10 || 0;

const empty = (v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0);

/** The sort key of a cell as a list compared item by item (section 3, written out plainly). */
const refKey = (fieldId: string, v: unknown): (string | number)[] => {
  switch (fieldId) {
    case TEXT:
      return [(v as string).toLowerCase(), v as string];
    case NUM:
      return [v as number];
    case SEL:
      return [CHOICES.indexOf(v as string)];
    case BOX:
      return [1];
    case DATE:
      return [Date.parse(v as string)];
    case USER:
      return [(v as UserRef).title.toLowerCase(), (v as UserRef).title];
    default:
      return [CHOICES.indexOf((v as string[])[0] as string), (v as string[]).length];
  }
};

/** The group text (section 4 step 1) of a cell. */
const refGroupText = (fieldId: string, v: unknown): string | null => {
  if (empty(v)) return null;
  switch (fieldId) {
    case NUM:
      return String(round1(v as number));
    case BOX:
      return 'true';
    case DATE:
      return (v as string).slice(0, 10);
    case USER:
      return (v as UserRef).id;
    case TAGS:
      return JSON.stringify(v);
    default:
      return v as string;
  }
};

const cmpList = (x: (string | number)[], y: (string | number)[]): number => {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const a = x[i];
    const b = y[i];
    if (a === b) continue;
    if (a === undefined) return -1;
    if (b === undefined) return 1;
    return a < b ? -1 : 1;
  }
  return 0;
};

/** -1, 0, 1 for one sort item: empty cells first in asc, last in desc. */
const cmpItem = (
  spec: SortSpec,
  vx: unknown,
  vy: unknown,
  key: (v: unknown) => (string | number)[],
): number => {
  const sign = spec.order === 'asc' ? 1 : -1;
  if (empty(vx) && empty(vy)) return 0;
  if (empty(vx)) return -sign;
  if (empty(vy)) return sign;
  return cmpList(key(vx), key(vy)) * sign;
};

/**
 * Group levels compare by their group value (a number rounded, a date's day) with the group text
 * as the last tiebreak, so every group is one run; then the group fields by their exact values,
 * the sort items, the manual order and autoNumber.
 */
const refCompare =
  (sort: SortSpec[], groupBy: SortSpec[] = []) =>
  (x: Row, y: Row): number => {
    for (const spec of groupBy) {
      const groupKey = (v: unknown): (string | number)[] => {
        const base =
          spec.fieldId === NUM
            ? [round1(v as number)]
            : spec.fieldId === DATE
              ? [(v as string).slice(0, 10)]
              : refKey(spec.fieldId, v);
        return [...base, refGroupText(spec.fieldId, v) ?? ''];
      };
      const r = cmpItem(spec, x.cells[spec.fieldId], y.cells[spec.fieldId], groupKey);
      if (r !== 0) return r;
    }
    for (const spec of [...groupBy, ...sort]) {
      const r = cmpItem(spec, x.cells[spec.fieldId], y.cells[spec.fieldId], (v) => refKey(spec.fieldId, v));
      if (r !== 0) return r;
    }
    if (x.orderKey !== y.orderKey) return (x.orderKey ?? '') < (y.orderKey ?? '') ? -1 : 1;
    return x.autoNumber - y.autoNumber;
  };

/** The header id hash, written with BigInt. */
const refHash = (text: string): string => {
  let h = 5381n;
  for (let i = text.length - 1; i >= 0; i--) h = ((h * 33n) ^ BigInt(text.charCodeAt(i))) % 4294967296n;
  return h.toString();
};

const refValue = (fieldId: string, v: unknown): unknown => {
  if (empty(v)) return null;
  if (fieldId === NUM) return round1(v as number);
  if (fieldId === DATE) return `${(v as string).slice(0, 10)}T00:00:00.000Z`;
  if (fieldId === USER) return { id: (v as UserRef).id, title: (v as UserRef).title };
  return v;
};

/** Group points and kept rows by walking the sorted rows one at a time. */
const refGroups = (sorted: Row[], groupBy: SortSpec[], collapsed: Set<string>) => {
  const points: GroupPoint[] = [];
  const refs: { id: string; depth: number }[] = [];
  const kept: Row[] = [];
  let previous: (string | null)[] | undefined;
  let hiddenBelow = -1;
  for (const row of sorted) {
    const texts = groupBy.map((g) => refGroupText(g.fieldId, row.cells[g.fieldId]));
    let d = previous ? texts.findIndex((t, i) => t !== previous?.[i]) : 0;
    if (d >= 0) {
      for (; d < groupBy.length; d++) {
        const spec = groupBy[d] as SortSpec;
        const id = refHash([spec.fieldId, ...texts.slice(0, d + 1).map((t) => t ?? '')].join('_'));
        refs.push({ id, depth: d });
        if (hiddenBelow >= d) hiddenBelow = -1;
        if (hiddenBelow >= 0) continue;
        const isCollapsed = collapsed.has(id);
        points.push({
          id,
          type: 0,
          depth: d,
          value: refValue(spec.fieldId, row.cells[spec.fieldId]),
          isCollapsed,
        });
        if (isCollapsed) hiddenBelow = d;
      }
      if (hiddenBelow < 0) points.push({ type: 1, count: 0 });
    }
    const last = points[points.length - 1];
    if (hiddenBelow < 0 && last?.type === 1) {
      last.count++;
      kept.push(row);
    }
    previous = texts;
  }
  return { points, refs, kept };
};

// ---- generators ----------------------------------------------------------------------------------

const cellArb: Record<string, fc.Arbitrary<StoredCell | undefined>> = {
  [TEXT]: fc.option(fc.constantFrom('a', 'A', 'b', 'B', 'ab', 'Ab', 'é', 'z'), { nil: undefined }),
  [NUM]: fc.option(fc.constantFrom(-1.25, 0, 0.04, 0.06, 1, 1.04, 2.5, 10), { nil: undefined }),
  [SEL]: fc.option(fc.constantFrom(...CHOICES), { nil: undefined }),
  [BOX]: fc.option(fc.constant(true), { nil: undefined }),
  [DATE]: fc.option(
    fc.constantFrom(
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T23:00:00.000Z',
      '2026-03-02T05:00:00.000Z',
      '2025-01-01T10:00:00.000Z',
    ),
    { nil: undefined },
  ),
  [USER]: fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }),
  [TAGS]: fc.option(fc.subarray(CHOICES, { minLength: 1 }), { nil: undefined }),
};

/** Rows; a view with a manual order gives every row an order key (its own or its default). */
const rowsArb = rowsArbOf(cellArb);
const specsArb = specsArbOf(IDS);

/** Simple filters with their reference predicate. */
const filterArb: fc.Arbitrary<{ filter: FilterGroup | null; keep: (row: Row) => boolean }> = fc.oneof(
  fc.constant({ filter: null, keep: () => true }),
  fc.constantFrom(-1, 0.5, 1.04).map((n) => ({
    filter: { conjunction: 'and' as const, filterSet: [{ fieldId: NUM, operator: 'isGreater', value: n }] },
    keep: (row: Row) => typeof row.cells[NUM] === 'number' && (row.cells[NUM] as number) > n,
  })),
  fc.constantFrom('a', 'B').map((t) => ({
    filter: { conjunction: 'and' as const, filterSet: [{ fieldId: TEXT, operator: 'contains', value: t }] },
    keep: (row: Row) =>
      typeof row.cells[TEXT] === 'string' &&
      (row.cells[TEXT] as string).toLowerCase().includes(t.toLowerCase()),
  })),
  fc.subarray(CHOICES, { minLength: 1 }).map((names) => ({
    filter: {
      conjunction: 'or' as const,
      filterSet: [
        { fieldId: SEL, operator: 'isAnyOf', value: names },
        { fieldId: BOX, operator: 'is', value: true },
      ],
    },
    keep: (row: Row) => names.includes(row.cells[SEL] as string) || row.cells[BOX] === true,
  })),
);

const all = (q: Partial<Query>): Query => query({ take: 1000, ...q });

describe('runQuery against a simple reference', () => {
  it('orders every row as the reference comparator does (sort items, manual order, autoNumber)', () => {
    fc.assert(
      fc.property(rowsArb, specsArb(3), filterArb, (rows, sort, { filter, keep }) => {
        const result = runQuery(rows, all({ sort, filter }), ctx);
        const expected = rows.filter(keep).sort(refCompare(sort));
        expect(result.ids).toEqual(expected.map((r) => r.id));
        expect(result.total).toBe(expected.length);
      }),
      { numRuns: 300 },
    );
  });

  it('groups: order, group points and header refs match a row-by-row walk; collapse hides records', () => {
    fc.assert(
      fc.property(
        rowsArb,
        specsArb(3),
        specsArb(2),
        filterArb,
        fc.array(fc.nat(30), { maxLength: 3 }),
        (rows, groupBy, sortItems, { filter, keep }, collapsePicks) => {
          const sort = sortItems.filter((s) => !groupBy.some((g) => g.fieldId === s.fieldId));
          const sorted = rows.filter(keep).sort(refCompare(sort, groupBy));
          const open = refGroups(sorted, groupBy, new Set());
          const collapsed = collapsePicks.flatMap((n) =>
            open.refs.length ? [open.refs[n % open.refs.length]?.id ?? ''] : [],
          );
          const expected = refGroups(sorted, groupBy, new Set(collapsed));
          const result = runQuery(rows, all({ groupBy, sort, filter, collapsedGroupIds: collapsed }), ctx);
          if (groupBy.length === 0) {
            expect(result.groupPoints).toBeNull();
            expect(result.ids).toEqual(sorted.map((r) => r.id));
            return;
          }
          expect(result.groupPoints).toEqual(expected.points);
          expect(result.allGroupHeaderRefs).toEqual(expected.refs);
          expect(result.ids).toEqual(expected.kept.map((r) => r.id));
          expect(result.total).toBe(expected.kept.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('paging invariants', () => {
  it('pages of any size join into the full ordered result with no repeat or gap', () => {
    fc.assert(
      fc.property(
        rowsArb,
        specsArb(2),
        specsArb(2),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(30), { maxLength: 2 }),
        (rows, groupBy, sort, take, picks) => {
          const full = runQuery(rows, all({ groupBy, sort }), ctx);
          const collapsed = picks.flatMap((n) =>
            full.allGroupHeaderRefs?.length
              ? [full.allGroupHeaderRefs[n % full.allGroupHeaderRefs.length]?.id ?? '']
              : [],
          );
          const whole = runQuery(rows, all({ groupBy, sort, collapsedGroupIds: collapsed }), ctx);
          const joined: string[] = [];
          for (let skip = 0; skip < whole.total + take; skip += take) {
            const page = runQuery(
              rows,
              query({ groupBy, sort, collapsedGroupIds: collapsed, skip, take }),
              ctx,
            );
            expect(page.total).toBe(whole.total);
            expect(page.groupPoints).toEqual(whole.groupPoints);
            expect(page.ids.length).toBe(Math.max(0, Math.min(take, whole.total - skip)));
            joined.push(...page.ids);
          }
          expect(joined).toEqual(whole.ids);
          expect(new Set(joined).size).toBe(joined.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('large tables: a page near the start (bounded heap) equals the same slice of a full sort', () => {
    const random = (() => {
      let s = 7;
      return () => {
        s = (s * 1103515245 + 12345) % 2147483648;
        return s / 2147483648;
      };
    })();
    const rows: Row[] = Array.from({ length: 3000 }, (_, i) => ({
      id: recId(i + 1),
      autoNumber: i + 1,
      cells: {
        ...(random() < 0.9 ? { [TEXT]: ['a', 'B', 'b', 'c'][Math.floor(random() * 4)] as string } : {}),
        ...(random() < 0.9 ? { [NUM]: Math.floor(random() * 50) } : {}),
      },
    }));
    const sort: SortSpec[] = [
      { fieldId: TEXT, order: 'desc' },
      { fieldId: NUM, order: 'asc' },
    ];
    const expected = [...rows].sort(refCompare(sort)).map((r) => r.id);
    for (const [skip, take] of [
      [0, 100],
      [250, 50],
      [2990, 100],
    ] as const) {
      expect(runQuery(rows, query({ sort, skip, take }), ctx).ids).toEqual(expected.slice(skip, skip + take));
    }
  });
});

describe('queryFieldIds and bad references', () => {
  it('names the fields the filter, group keys, sort items and search read', () => {
    const q = query({
      filter: { conjunction: 'and', filterSet: [{ fieldId: NUM, operator: 'isGreater', value: 1 }] },
      groupBy: [{ fieldId: SEL, order: 'asc' }],
      sort: [{ fieldId: DATE, order: 'desc' }],
      search: { value: 'x', fieldIds: [TEXT, USER], hide: false },
    });
    expect([...queryFieldIds(q)].sort()).toEqual([NUM, SEL, DATE, TEXT, USER].sort());
    expect([...queryFieldIds(query())]).toEqual([]);
  });

  it('a group key or sort item on no field is a 400', () => {
    const nope = { fieldId: 'fldNopeNopeNopeNope', order: 'asc' as const };
    expect(() => runQuery([], query({ groupBy: [nope] }), ctx)).toThrow(ValidationError);
    expect(() => runQuery([], query({ sort: [nope] }), ctx)).toThrow(ValidationError);
  });

  it('a sort item on a group key is left to the group key', () => {
    const rows = [
      { id: recId(1), autoNumber: 1, cells: { [SEL]: 'blue' } },
      { id: recId(2), autoNumber: 2, cells: { [SEL]: 'red' } },
    ];
    const result = runQuery(
      rows,
      query({ groupBy: [{ fieldId: SEL, order: 'asc' }], sort: [{ fieldId: SEL, order: 'desc' }] }),
      ctx,
    );
    expect(result.ids).toEqual([recId(2), recId(1)]);
  });
});
