/** Group points (listing.md section 4): header ids, the worked example, collapse, levels, the cap. */
import { describe, expect, it } from 'vitest';
import { formatDate, wallClockAt } from '#shared/core/format.ts';
import type { StoredCell } from '#shared/fields/field-types.ts';
import { runQuery } from '#shared/query/engine.ts';
import { buildGroupPoints, type GroupLevel, groupValueOf, headerId, roundTo } from '#shared/query/groups.ts';
import type { GroupHeader, SortSpec } from '#shared/query/query-types.ts';
import { alice, bob, contextOf, makeField, query, recId, rowsOf } from './engine-support.ts';

const A = 'fldAAAAAAAAAAAAAAAA';
const B = 'fldBBBBBBBBBBBBBBBB';
const C = 'fldCCCCCCCCCCCCCCCC';

const asc = (fieldId: string): SortSpec => ({ fieldId, order: 'asc' });

describe('headerId', () => {
  it.each([
    ['', '5381'],
    ['a', '177604'],
    ['ab', '5861062'],
  ])('%j → %s', (text, id) => {
    expect(headerId(text)).toBe(id);
  });

  it('hashes from the last code unit to the first, unsigned 32-bit', () => {
    // reference: BigInt arithmetic, written independently
    const ref = (text: string) => {
      let h = 5381n;
      for (let i = text.length - 1; i >= 0; i--) h = ((h * 33n) ^ BigInt(text.charCodeAt(i))) % 2n ** 32n;
      return h.toString();
    };
    for (const text of ['fldAAAAAAAAAAAAAAAA_light', 'x'.repeat(500), 'é😀_null_', '["a","b"]']) {
      expect(headerId(text)).toBe(ref(text));
    }
  });
});

describe('the worked example', () => {
  const status = makeField(A, 'singleSelect', { choices: [{ name: 'light' }, { name: 'medium' }] }, 'Status');
  const priority = makeField(B, 'number', { formatting: { type: 'decimal', precision: 0 } }, 'Priority');
  const ctx = contextOf([status, priority]);
  const data: [string | undefined, number][] = [
    [undefined, 1],
    ['light', 1],
    ['light', 1],
    ['light', 2],
    ['medium', 1],
    ['medium', 1],
    ['medium', 1],
  ];
  const rows = rowsOf(data.map(([s, p]) => ({ [A]: s, [B]: p })));
  const grouped = query({ groupBy: [asc(A), asc(B)] });

  it('comes out byte for byte', () => {
    const result = runQuery(rows, grouped, ctx);
    expect(JSON.stringify(result.groupPoints)).toBe(
      JSON.stringify([
        { id: '325534932', type: 0, depth: 0, value: null, isCollapsed: false },
        { id: '464743322', type: 0, depth: 1, value: 1, isCollapsed: false },
        { type: 1, count: 1 },
        { id: '3394483242', type: 0, depth: 0, value: 'light', isCollapsed: false },
        { id: '4058634404', type: 0, depth: 1, value: 1, isCollapsed: false },
        { type: 1, count: 2 },
        { id: '3236168807', type: 0, depth: 1, value: 2, isCollapsed: false },
        { type: 1, count: 1 },
        { id: '3047063721', type: 0, depth: 0, value: 'medium', isCollapsed: false },
        { id: '3236059751', type: 0, depth: 1, value: 1, isCollapsed: false },
        { type: 1, count: 3 },
      ]),
    );
    expect(result.allGroupHeaderRefs).toEqual([
      { id: '325534932', depth: 0 },
      { id: '464743322', depth: 1 },
      { id: '3394483242', depth: 0 },
      { id: '4058634404', depth: 1 },
      { id: '3236168807', depth: 1 },
      { id: '3047063721', depth: 0 },
      { id: '3236059751', depth: 1 },
    ]);
    expect(result.ids).toEqual([1, 2, 3, 4, 5, 6, 7].map(recId));
    expect(result.total).toBe(7);
  });

  it('hashes the texts the contract names', () => {
    expect(headerId('fldAAAAAAAAAAAAAAAA_')).toBe('325534932');
    expect(headerId('fldBBBBBBBBBBBBBBBB__1')).toBe('464743322');
    expect(headerId('fldAAAAAAAAAAAAAAAA_light')).toBe('3394483242');
    expect(headerId('fldBBBBBBBBBBBBBBBB_light_1')).toBe('4058634404');
  });

  it('collapsing light keeps its header, drops its sub-headers, counts and records', () => {
    const result = runQuery(rows, { ...grouped, collapsedGroupIds: ['3394483242', '999'] }, ctx);
    expect(result.groupPoints).toEqual([
      { id: '325534932', type: 0, depth: 0, value: null, isCollapsed: false },
      { id: '464743322', type: 0, depth: 1, value: 1, isCollapsed: false },
      { type: 1, count: 1 },
      { id: '3394483242', type: 0, depth: 0, value: 'light', isCollapsed: true },
      { id: '3047063721', type: 0, depth: 0, value: 'medium', isCollapsed: false },
      { id: '3236059751', type: 0, depth: 1, value: 1, isCollapsed: false },
      { type: 1, count: 3 },
    ]);
    expect(result.allGroupHeaderRefs).toHaveLength(7);
    expect(result.ids).toEqual([1, 5, 6, 7].map(recId));
    expect(result.total).toBe(4);
  });

  it('collapsing a depth-1 header hides only its records', () => {
    const result = runQuery(rows, { ...grouped, collapsedGroupIds: ['4058634404'] }, ctx);
    expect(result.groupPoints?.slice(3, 7)).toEqual([
      { id: '3394483242', type: 0, depth: 0, value: 'light', isCollapsed: false },
      { id: '4058634404', type: 0, depth: 1, value: 1, isCollapsed: true },
      { id: '3236168807', type: 0, depth: 1, value: 2, isCollapsed: false },
      { type: 1, count: 1 },
    ]);
    expect(result.ids).toEqual([1, 4, 5, 6, 7].map(recId));
  });

  it('paging runs over the collapsed result; group points describe every record', () => {
    const result = runQuery(rows, { ...grouped, collapsedGroupIds: ['3394483242'], skip: 1, take: 2 }, ctx);
    expect(result.ids).toEqual([5, 6].map(recId));
    expect(result.total).toBe(4);
    expect(result.groupPoints).toHaveLength(7);
  });

  it('desc reverses the groups, empty last', () => {
    const result = runQuery(rows, query({ groupBy: [{ fieldId: A, order: 'desc' }] }), ctx);
    expect(result.groupPoints?.filter((p) => p.type === 0).map((p) => (p as GroupHeader).value)).toEqual([
      'medium',
      'light',
      null,
    ]);
  });
});

describe('three levels', () => {
  const a = makeField(A, 'singleLineText');
  const b = makeField(B, 'checkbox');
  const c = makeField(C, 'rating');
  const ctx = contextOf([a, b, c]);
  const rows = rowsOf([
    { [A]: 'x', [B]: true, [C]: 2 },
    { [A]: 'x', [C]: 2 },
    { [A]: 'x', [B]: true, [C]: 2 },
    { [A]: 'x', [B]: true, [C]: 1 },
    { [A]: 'y', [B]: true, [C]: 1 },
  ]);

  it('starts headers at every deeper level when a shallower one changes', () => {
    const result = runQuery(rows, query({ groupBy: [asc(A), asc(B), asc(C)] }), ctx);
    const h = (depth: number, value: unknown, text: string, field: string) => ({
      id: headerId(`${field}_${text}`),
      type: 0,
      depth,
      value,
      isCollapsed: false,
    });
    expect(result.groupPoints).toEqual([
      h(0, 'x', 'x', A),
      h(1, null, 'x_', B),
      h(2, 2, 'x__2', C),
      { type: 1, count: 1 },
      h(1, true, 'x_true', B),
      h(2, 1, 'x_true_1', C),
      { type: 1, count: 1 },
      h(2, 2, 'x_true_2', C),
      { type: 1, count: 2 },
      h(0, 'y', 'y', A),
      h(1, true, 'y_true', B),
      h(2, 1, 'y_true_1', C),
      { type: 1, count: 1 },
    ]);
    expect(result.ids).toEqual([2, 4, 1, 3, 5].map(recId));
  });

  it('a collapsed top header hides its whole subtree; refs keep it', () => {
    const xId = headerId(`${A}_x`);
    const result = runQuery(
      rows,
      query({ groupBy: [asc(A), asc(B), asc(C)], collapsedGroupIds: [xId] }),
      ctx,
    );
    expect(result.groupPoints?.[0]).toEqual({ id: xId, type: 0, depth: 0, value: 'x', isCollapsed: true });
    expect(result.groupPoints?.[1]).toMatchObject({ depth: 0, value: 'y' });
    expect(result.allGroupHeaderRefs).toHaveLength(9);
    expect(result.ids).toEqual([recId(5)]);
  });
});

describe('group values', () => {
  it('numbers are rounded to the field precision; half away from zero', () => {
    expect(roundTo(1.005, 2)).toBe(1.01);
    expect(roundTo(-2.5, 0)).toBe(-3);
    expect(roundTo(2.345, 1)).toBe(2.3);
    // numbers whose shortest text has an exponent round too (they used to stay as they were)
    expect(roundTo(1e-300, 1)).toBe(0);
    expect(roundTo(-2.5e-8, 8)).toBe(-3e-8);
    expect(roundTo(1.5e-7, 9)).toBe(1.5e-7);
    const f = makeField(A, 'number', { formatting: { type: 'decimal', precision: 1 } });
    const ctx = contextOf([f]);
    const result = runQuery(
      rowsOf([{ [A]: 1.04 }, { [A]: 0.96 }, { [A]: 1.06 }]),
      query({ groupBy: [asc(A)] }),
      ctx,
    );
    expect(result.groupPoints).toEqual([
      { id: headerId(`${A}_1`), type: 0, depth: 0, value: 1, isCollapsed: false },
      { type: 1, count: 2 },
      { id: headerId(`${A}_1.1`), type: 0, depth: 0, value: 1.1, isCollapsed: false },
      { type: 1, count: 1 },
    ]);
  });

  it('a number field without formatting rounds to 2 digits', () => {
    const f = { ...makeField(A, 'number'), options: {} };
    const text = groupValueOf(f, contextOf([f])).text;
    expect(text(1.234)).toBe('1.23');
  });

  it('dates group by the day in the field time zone; value is that day at midnight UTC', () => {
    const f = makeField(A, 'date', {
      formatting: { date: 'DD/MM/YYYY', time: 'None', timeZone: 'Asia/Tokyo' },
    });
    const ctx = contextOf([f]);
    const rows = rowsOf([
      { [A]: '2026-03-01T14:59:00.000Z' }, // 23:59 on the 1st in Tokyo
      { [A]: '2026-03-01T15:00:00.000Z' }, // 00:00 on the 2nd
      { [A]: '2026-03-02T01:00:00.000Z' }, // 10:00 on the 2nd
    ]);
    const result = runQuery(rows, query({ groupBy: [asc(A)] }), ctx);
    expect(result.groupPoints).toEqual([
      {
        id: headerId(`${A}_2026-03-01`),
        type: 0,
        depth: 0,
        value: '2026-03-01T00:00:00.000Z',
        isCollapsed: false,
      },
      { type: 1, count: 1 },
      {
        id: headerId(`${A}_2026-03-02`),
        type: 0,
        depth: 0,
        value: '2026-03-02T00:00:00.000Z',
        isCollapsed: false,
      },
      { type: 1, count: 2 },
    ]);
  });

  it('a date field that shows time groups by the minute', () => {
    const f = makeField(A, 'date', {
      formatting: { date: 'YYYY-MM-DD', time: 'hh:mm A', timeZone: 'America/New_York' },
    });
    const ctx = contextOf([f]);
    const rows = rowsOf([
      { [A]: '2026-03-08T06:59:30.000Z' }, // 01:59 EST, just before the clocks go forward
      { [A]: '2026-03-08T07:00:00.000Z' }, // 03:00 EDT
      { [A]: '2026-03-08T07:00:59.000Z' },
    ]);
    const result = runQuery(rows, query({ groupBy: [asc(A)] }), ctx);
    expect(result.groupPoints).toEqual([
      {
        id: headerId(`${A}_2026-03-08 01:59`),
        type: 0,
        depth: 0,
        value: '2026-03-08T01:59:00.000Z',
        isCollapsed: false,
      },
      { type: 1, count: 1 },
      {
        id: headerId(`${A}_2026-03-08 03:00`),
        type: 0,
        depth: 0,
        value: '2026-03-08T03:00:00.000Z',
        isCollapsed: false,
      },
      { type: 1, count: 2 },
    ]);
  });

  it.each([
    'UTC',
    'America/New_York',
    'Europe/London',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
  ])('the fast day text agrees with formatDate in %s', (timeZone) => {
    const f = makeField(A, 'date', { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone } });
    const text = groupValueOf(f, contextOf([f])).text;
    const pad = (n: number) => String(n).padStart(2, '0');
    const reference = (ms: number) => {
      const w = wallClockAt(ms, timeZone);
      return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}`;
    };
    // every 3 hours and a few minutes over two years, across every daylight-saving change
    const wrong: string[] = [];
    for (let ms = Date.UTC(2025, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 187 * 60_000 + 7_001) {
      const iso = new Date(ms).toISOString();
      if (text(iso) !== reference(ms)) wrong.push(iso);
    }
    expect(wrong).toEqual([]);
    expect(text('2026-07-01T12:00:00.000Z')).toBe(
      formatDate('2026-07-01T12:00:00.000Z', { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone }),
    );
  });

  it('multi-valued cells group by their JSON text; value is the list', () => {
    const f = makeField(A, 'multipleSelect', { choices: [{ name: 'a' }, { name: 'b' }] });
    const result = runQuery(
      rowsOf([{ [A]: ['a', 'b'] }, { [A]: ['a'] }, { [A]: ['a', 'b'] }]),
      query({ groupBy: [asc(A)] }),
      contextOf([f]),
    );
    expect(result.groupPoints).toEqual([
      { id: headerId(`${A}_["a"]`), type: 0, depth: 0, value: ['a'], isCollapsed: false },
      { type: 1, count: 1 },
      { id: headerId(`${A}_["a","b"]`), type: 0, depth: 0, value: ['a', 'b'], isCollapsed: false },
      { type: 1, count: 2 },
    ]);
  });

  it('users group by id with {id, title} values; two users of one title stay apart', () => {
    const f = makeField(A, 'user');
    const bob2 = { ...bob, id: 'usrBob2BBBBBBBBBBBB' };
    const rows = rowsOf([{ [A]: bob }, { [A]: alice }, { [A]: bob2 }, { [A]: bob }]);
    const result = runQuery(rows, query({ groupBy: [asc(A)] }), contextOf([f]));
    expect(result.groupPoints).toEqual([
      {
        id: headerId(`${A}_${alice.id}`),
        type: 0,
        depth: 0,
        value: { id: alice.id, title: 'Alice' },
        isCollapsed: false,
      },
      { type: 1, count: 1 },
      {
        id: headerId(`${A}_${bob2.id}`),
        type: 0,
        depth: 0,
        value: { id: bob2.id, title: 'bob' },
        isCollapsed: false,
      },
      { type: 1, count: 1 },
      {
        id: headerId(`${A}_${bob.id}`),
        type: 0,
        depth: 0,
        value: { id: bob.id, title: 'bob' },
        isCollapsed: false,
      },
      { type: 1, count: 2 },
    ]);
  });

  it('multiple users group by the JSON text of their ids', () => {
    const f = makeField(A, 'user', { isMultiple: true });
    const result = runQuery(rowsOf([{ [A]: [alice, bob] }]), query({ groupBy: [asc(A)] }), contextOf([f]));
    expect(result.groupPoints?.[0]).toEqual({
      id: headerId(`${A}_${JSON.stringify([alice.id, bob.id])}`),
      type: 0,
      depth: 0,
      value: [
        { id: alice.id, title: 'Alice' },
        { id: bob.id, title: 'bob' },
      ],
      isCollapsed: false,
    });
  });

  it('links group by id with {id, title} values (single and multiple)', () => {
    const one = makeField(A, 'link', { relationship: 'manyOne', foreignTableId: 'tblForeignAAAAAAAAA' });
    const many = makeField(B, 'link', { relationship: 'manyMany', foreignTableId: 'tblForeignAAAAAAAAA' });
    const R1 = 'recForeign000000001';
    const R2 = 'recForeign000000002';
    const ctx = contextOf([one, many], { [R1]: 'One', [R2]: 'Two' });
    const rows = rowsOf([{ [A]: [R2], [B]: [R1, R2] }]);
    const result = runQuery(rows, query({ groupBy: [asc(A), asc(B)] }), ctx);
    expect(result.groupPoints).toEqual([
      { id: headerId(`${A}_${R2}`), type: 0, depth: 0, value: { id: R2, title: 'Two' }, isCollapsed: false },
      {
        id: headerId(`${B}_${R2}_${JSON.stringify([R1, R2])}`),
        type: 0,
        depth: 1,
        value: [
          { id: R1, title: 'One' },
          { id: R2, title: 'Two' },
        ],
        isCollapsed: false,
      },
      { type: 1, count: 1 },
    ]);
  });

  it('checkbox groups as null then true', () => {
    const f = makeField(A, 'checkbox');
    const result = runQuery(rowsOf([{ [A]: true }, {}]), query({ groupBy: [asc(A)] }), contextOf([f]));
    expect(result.groupPoints?.filter((p) => p.type === 0).map((p) => (p as GroupHeader).value)).toEqual([
      null,
      true,
    ]);
    expect(result.groupPoints?.[2]).toMatchObject({ id: headerId(`${A}_true`) });
  });
});

describe('the 5,000-tuple cap', () => {
  const f = makeField(A, 'number', { formatting: { type: 'decimal', precision: 0 } });
  const ctx = contextOf([f]);
  const cells: Record<string, StoredCell>[] = [];
  for (let i = 1; i <= 5003; i++) cells.push({ [A]: i });
  cells.push({ [A]: 5003 });
  const rows = rowsOf(cells);

  it('describes 5,000 tuples, then `unknown` with a Count of the remaining records', () => {
    const result = runQuery(rows, query({ groupBy: [asc(A)], take: 10 }), ctx);
    const points = result.groupPoints ?? [];
    expect(points).toHaveLength(10_002);
    expect(points[9998]).toEqual({
      id: headerId(`${A}_5000`),
      type: 0,
      depth: 0,
      value: 5000,
      isCollapsed: false,
    });
    expect(points[9999]).toEqual({ type: 1, count: 1 });
    expect(points[10_000]).toEqual({
      id: 'unknown',
      type: 0,
      depth: 0,
      value: 'Unknown',
      isCollapsed: false,
    });
    expect(points[10_001]).toEqual({ type: 1, count: 4 });
    expect(result.allGroupHeaderRefs).toHaveLength(5001);
    expect(result.total).toBe(5004);
  });

  it('5,000 tuples exactly need no `unknown`', () => {
    const result = runQuery(rows.slice(0, 5000), query({ groupBy: [asc(A)], take: 10 }), ctx);
    expect(result.groupPoints).toHaveLength(10_000);
    expect(result.groupPoints?.some((p) => p.type === 0 && p.id === 'unknown')).toBe(false);
  });
});

describe('no grouping', () => {
  it('groupPoints is null and allGroupHeaderRefs absent', () => {
    const f = makeField(A, 'singleLineText');
    const result = runQuery(rowsOf([{ [A]: 'x' }]), query(), contextOf([f]));
    expect(result.groupPoints).toBeNull();
    expect('allGroupHeaderRefs' in result).toBe(false);
  });
});

describe('order inside groups', () => {
  it('levels order by group value (the day), not by the exact instant; inside a group the instant decides', () => {
    const day = makeField(A, 'date');
    const done = makeField(B, 'checkbox');
    const rows = rowsOf([
      { [A]: '2026-03-01T23:00:00.000Z' },
      { [A]: '2026-03-01T00:00:00.000Z', [B]: true },
      { [A]: '2026-03-01T12:00:00.000Z' },
      { [A]: '2026-03-01T06:00:00.000Z', [B]: true },
    ]);
    const result = runQuery(rows, query({ groupBy: [asc(A), asc(B)] }), contextOf([day, done]));
    expect(result.groupPoints).toEqual([
      {
        id: headerId(`${A}_2026-03-01`),
        type: 0,
        depth: 0,
        value: '2026-03-01T00:00:00.000Z',
        isCollapsed: false,
      },
      { id: headerId(`${B}_2026-03-01_`), type: 0, depth: 1, value: null, isCollapsed: false },
      { type: 1, count: 2 },
      { id: headerId(`${B}_2026-03-01_true`), type: 0, depth: 1, value: true, isCollapsed: false },
      { type: 1, count: 2 },
    ]);
    expect(result.ids).toEqual([3, 1, 2, 4].map(recId));
  });
});

// Issue 10.5: "allGroupHeaderRefs includes collapsed group headers": collapsing hides headers
// from groupPoints (and records), never from the refs a client uses to expand them again.
describe('allGroupHeaderRefs under collapse (plain data)', () => {
  // Three levels over five tuples: (x,p,1) (x,p,2) (x,q,1) (y,p,1) (y,q,2), two rows each.
  const tuples = [
    ['x', 'p', '1'],
    ['x', 'p', '2'],
    ['x', 'q', '1'],
    ['y', 'p', '1'],
    ['y', 'q', '2'],
  ];
  const levels: GroupLevel[] = [A, B, C].map((fieldId, d) => ({
    fieldId,
    texts: tuples.map((t) => t[d] as string),
    value: (i) => tuples[i]?.[d],
  }));
  const reps = tuples.map((_, i) => i);
  const counts = tuples.map(() => 2);
  const ref = (depth: number, ...texts: string[]) => ({
    id: headerId(`${[A, B, C][depth]}_${texts.join('_')}`),
    depth,
  });
  const every = [
    ref(0, 'x'),
    ref(1, 'x', 'p'),
    ref(2, 'x', 'p', '1'),
    ref(2, 'x', 'p', '2'),
    ref(1, 'x', 'q'),
    ref(2, 'x', 'q', '1'),
    ref(0, 'y'),
    ref(1, 'y', 'p'),
    ref(2, 'y', 'p', '1'),
    ref(1, 'y', 'q'),
    ref(2, 'y', 'q', '2'),
  ];
  const idOf = (i: number) => (every[i] as { id: string }).id;

  it.each([
    ['nothing', [], 11, [true, true, true, true, true]],
    ['the top header x', [0], 6, [false, false, false, true, true]],
    ['the sub-header x/p', [1], 9, [false, false, true, true, true]],
    ['x and, inside it, x/p', [0, 1], 6, [false, false, false, true, true]],
    ['both top headers', [0, 6], 2, [false, false, false, false, false]],
    ['a deepest header y/q/2', [10], 11, [true, true, true, true, false]],
  ])(
    'collapsing %s keeps all 11 refs in order; groupPoints shows %i headers',
    (_, picks, headersShown, visible) => {
      const collapsed = new Set(picks.map(idOf));

      const walk = buildGroupPoints(reps, counts, levels, collapsed);

      expect(walk.allGroupHeaderRefs).toEqual(every);
      expect(walk.groupPoints.filter((p) => p.type === 0)).toHaveLength(headersShown);
      expect(walk.visible).toEqual(visible);
    },
  );
});
