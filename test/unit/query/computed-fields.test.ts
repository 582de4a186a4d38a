/**
 * Formula, rollup and lookup fields under filter, sort, group and search (computed.md 7, 4):
 * operator sets per kind of computed field, item-by-item matching of multi-valued cells, sort by
 * first item then count, grouping by JSON array text, search on the text rendering, and the
 * lookup cell renderers (`lookupToJson`, `lookupToText`) for every looked-up type.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import type { CellValueType, Field, ReadContext, StoredCell } from '#shared/fields/field-types.ts';
import { lookupToJson, lookupToText } from '#shared/fields/lookup-cells.ts';
import { fieldQuery } from '#shared/fields/query-facts.ts';
import { runQuery } from '#shared/query/engine.ts';
import {
  compileFilter,
  type FilterKind,
  filterKindOf,
  OPERATORS_BY_KIND,
  resolveFilter,
} from '#shared/query/filter.ts';
import { headerId } from '#shared/query/groups.ts';
import { searchFieldIds } from '#shared/query/search.ts';
import { sortRows } from '#shared/query/sort.ts';
import { alice, bob, contextOf, makeField, query, recId, rowsOf } from './engine-support.ts';

/** A user cell as answered: with `avatarUrl` null (teable-routes.md 4). */
const out = (u: object) => ({ ...u, avatarUrl: null });
const F = 'fldComputedComputed';
const FOREIGN = 'tblForeignAAAAAAAAA';
const R1 = 'recForeign000000001';
const R2 = 'recForeign000000002';
const R_GONE = 'recForeign000000009';
const TITLES: Record<string, string> = { [R1]: 'Invoice North', [R2]: 'Other' };
const readCtx: ReadContext = { linkTitle: (_fieldId, recordId) => TITLES[recordId] };

/**
 * A lookup field of `type` (options as the looked-up field has them), as the field layer builds
 * it: the looked-up type, `isLookup`, `isComputed`, its own `isMultipleCellValue`.
 */
const lookupOf = (type: string, options: unknown, multiple: boolean, id = F): Field => {
  const { isMultipleCellValue: _m, ...base } = makeField(id, type, options);
  return {
    ...base,
    isLookup: true,
    isComputed: true,
    ...(multiple ? { isMultipleCellValue: true } : {}),
    lookupOptions: {
      foreignTableId: FOREIGN,
      linkFieldId: 'fldLinkLinkLinkLink',
      lookupFieldId: 'fldLookedUpLookedUp',
    },
  };
};

/** A formula or rollup field with the result type. */
const resultOf = (
  type: 'formula' | 'rollup',
  cellValueType: CellValueType,
  multiple: boolean,
  options: Record<string, unknown> = {},
  id = F,
): Field => ({
  id,
  name: id,
  type,
  options,
  dbFieldName: id,
  isComputed: true,
  cellValueType,
  ...(multiple ? { isMultipleCellValue: true } : {}),
});

const manyOne = { relationship: 'manyOne', foreignTableId: FOREIGN };
const manyMany = { relationship: 'manyMany', foreignTableId: FOREIGN };
const choices = { choices: [{ name: 'todo' }, { name: 'done' }] };

const TEXT_OPS = ['is', 'isNot', 'contains', 'doesNotContain', 'isEmpty', 'isNotEmpty'];
const NUMBER_OPS = [
  'is',
  'isNot',
  'isGreater',
  'isGreaterEqual',
  'isLess',
  'isLessEqual',
  'isEmpty',
  'isNotEmpty',
];
const DATE_OPS = [
  'is',
  'isNot',
  'isWithIn',
  'isBefore',
  'isAfter',
  'isOnOrBefore',
  'isOnOrAfter',
  'isEmpty',
  'isNotEmpty',
];

describe('operator sets (computed.md 7, first paragraph)', () => {
  it.each<[string, Field, FilterKind]>([
    ['text formula', resultOf('formula', 'string', false), 'text'],
    ['multiple text formula', resultOf('formula', 'string', true), 'text'],
    ['number formula', resultOf('formula', 'number', false), 'number'],
    ['multiple number rollup', resultOf('rollup', 'number', true), 'number'],
    ['date formula', resultOf('formula', 'dateTime', false), 'date'],
    ['multiple date rollup', resultOf('rollup', 'dateTime', true), 'date'],
    ['boolean rollup', resultOf('rollup', 'boolean', false), 'checkbox'],
    ['multiple boolean formula', resultOf('formula', 'boolean', true), 'checkbox'],
    ['lookup of singleLineText', lookupOf('singleLineText', undefined, true), 'text'],
    ['single lookup of longText', lookupOf('longText', undefined, false), 'text'],
    ['lookup of number', lookupOf('number', undefined, true), 'number'],
    ['lookup of rating', lookupOf('rating', undefined, true), 'number'],
    ['lookup of autoNumber', lookupOf('autoNumber', undefined, true), 'number'],
    ['lookup of checkbox', lookupOf('checkbox', undefined, true), 'checkbox'],
    ['lookup of date', lookupOf('date', undefined, true), 'date'],
    ['lookup of createdTime', lookupOf('createdTime', undefined, false), 'date'],
    ['lookup of lastModifiedTime', lookupOf('lastModifiedTime', undefined, true), 'date'],
    ['lookup of a number formula', { ...resultOf('formula', 'number', true), isLookup: true }, 'number'],
    ['lookup of a text rollup', { ...resultOf('rollup', 'string', false), isLookup: true }, 'text'],
    ['single lookup of singleSelect', lookupOf('singleSelect', choices, false), 'singleSelect'],
    ['multiple lookup of singleSelect', lookupOf('singleSelect', choices, true), 'multipleSelect'],
    ['lookup of multipleSelect', lookupOf('multipleSelect', choices, true), 'multipleSelect'],
    ['single lookup of user', lookupOf('user', undefined, false), 'singleUser'],
    ['multiple lookup of user', lookupOf('user', undefined, true), 'multipleUser'],
    ['lookup of a multiple user', lookupOf('user', { isMultiple: true }, true), 'multipleUser'],
    ['single lookup of createdBy', lookupOf('createdBy', undefined, false), 'singleUser'],
    ['multiple lookup of lastModifiedBy', lookupOf('lastModifiedBy', undefined, true), 'multipleUser'],
    ['single lookup of a manyOne link', lookupOf('link', manyOne, false), 'singleLink'],
    ['multiple lookup of a manyOne link', lookupOf('link', manyOne, true), 'multipleLink'],
    ['lookup of a manyMany link', lookupOf('link', manyMany, true), 'multipleLink'],
    ['lookup of attachment', lookupOf('attachment', undefined, true), 'attachment'],
  ])('%s → %s', (_name, field, kind) => {
    expect(filterKindOf(field)).toBe(kind);
  });

  it('the sets are the text, number, date, checkbox, select, user and link sets; attachment only emptiness', () => {
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('singleLineText', undefined, true))]).toEqual(TEXT_OPS);
    expect(OPERATORS_BY_KIND[filterKindOf(resultOf('rollup', 'number', true))]).toEqual(NUMBER_OPS);
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('date', undefined, true))]).toEqual(DATE_OPS);
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('checkbox', undefined, true))]).toEqual(['is']);
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('singleSelect', choices, false))]).toEqual(
      OPERATORS_BY_KIND.singleSelect,
    );
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('singleSelect', choices, true))]).toEqual([
      'hasAnyOf',
      'hasAllOf',
      'isExactly',
      'hasNoneOf',
      'isEmpty',
      'isNotEmpty',
    ]);
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('link', manyMany, true))]).toContain('contains');
    expect(OPERATORS_BY_KIND[filterKindOf(lookupOf('attachment', undefined, true))]).toEqual([
      'isEmpty',
      'isNotEmpty',
    ]);
  });

  it('an operator outside the set is a 400 listing the allowed ones', () => {
    const field = lookupOf('number', undefined, true);
    const attempt = () =>
      resolveFilter({ conjunction: 'and', filterSet: [{ fieldId: F, operator: 'contains', value: '1' }] }, [
        field,
      ]);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/allowed: is, isNot, isGreater/);
    const attachments = lookupOf('attachment', undefined, true);
    expect(() =>
      resolveFilter({ conjunction: 'and', filterSet: [{ fieldId: F, operator: 'is', value: 'x' }] }, [
        attachments,
      ]),
    ).toThrow(/allowed: isEmpty, isNotEmpty/);
  });

  it('a lookup holds a list exactly when isMultipleCellValue says so', () => {
    expect(fieldQuery(lookupOf('singleSelect', choices, true)).isMultiple).toBe(true);
    expect(fieldQuery(lookupOf('singleSelect', choices, false)).isMultiple).toBe(false);
    expect(fieldQuery(lookupOf('number', undefined, true)).isMultiple).toBe(true);
    expect(fieldQuery(lookupOf('link', manyMany, false)).isMultiple).toBe(false);
  });
});

/** The row numbers (1-based) a one-item filter keeps. */
const keptBy = (
  field: Field,
  cells: (StoredCell | undefined)[],
  operator: string,
  value: unknown,
): number[] => {
  const filter = resolveFilter({ conjunction: 'and', filterSet: [{ fieldId: F, operator, value }] }, [field]);
  const keep = compileFilter(filter, contextOf([field], TITLES));
  return rowsOf(cells.map((c) => ({ [F]: c })))
    .filter(keep)
    .map((r) => r.autoNumber);
};

describe('multi-valued cells compare item by item (computed.md 7, second paragraph)', () => {
  describe.each([
    ['lookup of singleLineText', lookupOf('singleLineText', undefined, true)],
    ['multiple text formula', resultOf('formula', 'string', true)],
  ])('text: %s', (_name, field) => {
    const cells: (StoredCell | undefined)[] = [
      ['Apple', 'Banana'],
      ['a.c', 'xyz'],
      ['abc'],
      undefined,
      [],
      ['APPLE'],
    ];
    it.each<[string, unknown, number[]]>([
      ['is', 'apple', [1, 6]],
      // items are compared one by one, never the joined text
      ['is', 'apple, banana', []],
      ['isNot', 'apple', [2, 3, 4, 5]],
      ['contains', 'AN', [1]],
      ['contains', 'a.c', [2]],
      ['contains', 'a*', []],
      ['doesNotContain', 'a.c', [1, 3, 4, 5, 6]],
      ['doesNotContain', 'p', [2, 3, 4, 5]],
      ['isEmpty', null, [4, 5]],
      ['isNotEmpty', null, [1, 2, 3, 6]],
    ])('%s %j', (operator, value, expected) => {
      expect(keptBy(field, cells, operator, value)).toEqual(expected);
    });
  });

  it('a single lookup of text compares its one value', () => {
    const field = lookupOf('singleLineText', undefined, false);
    expect(keptBy(field, ['A2', 'b', undefined], 'is', 'a2')).toEqual([1]);
    expect(keptBy(field, ['A2', 'b', undefined], 'isNot', 'a2')).toEqual([2, 3]);
  });

  describe.each([
    ['lookup of number', lookupOf('number', undefined, true)],
    ['multiple number rollup', resultOf('rollup', 'number', true)],
  ])('number: %s', (_name, field) => {
    const cells: (StoredCell | undefined)[] = [[1, 5], [10], [], undefined, [3, 7]];
    it.each<[string, unknown, number[]]>([
      ['is', 5, [1]],
      ['is', '10', [2]],
      ['isNot', 5, [2, 3, 4, 5]],
      // a later item matches although the first does not
      ['isGreater', 4, [1, 2, 5]],
      ['isGreater', 6, [2, 5]],
      ['isGreaterEqual', 10, [2]],
      ['isLess', 2, [1]],
      ['isLessEqual', 3, [1, 5]],
      ['isEmpty', null, [3, 4]],
    ])('%s %j', (operator, value, expected) => {
      expect(keptBy(field, cells, operator, value)).toEqual(expected);
    });
  });

  describe.each([
    ['lookup of date', lookupOf('date', undefined, true)],
    ['multiple date rollup', resultOf('rollup', 'dateTime', true)],
  ])('date: %s (now 2026-03-01T12:00Z)', (_name, field) => {
    const cells: (StoredCell | undefined)[] = [
      ['2026-02-01T00:00:00.000Z', '2026-03-01T10:00:00.000Z'],
      ['2025-01-01T00:00:00.000Z'],
      undefined,
      [],
    ];
    const utc = (mode: string, extra: Record<string, unknown> = {}) => ({ mode, timeZone: 'UTC', ...extra });
    it.each<[string, unknown, number[]]>([
      ['is', utc('today'), [1]],
      ['isNot', utc('today'), [2, 3, 4]],
      ['isBefore', utc('today'), [1, 2]],
      ['isAfter', utc('exactDate', { exactDate: '2026-02-15' }), [1]],
      ['isOnOrAfter', utc('exactDate', { exactDate: '2026-03-01' }), [1]],
      ['isOnOrBefore', utc('exactDate', { exactDate: '2025-01-01' }), [2]],
      ['isWithIn', utc('pastYear'), [1]],
      ['isWithIn', utc('pastNumberOfDays', { numberOfDays: 10 }), [1]],
    ])('%s %j', (operator, value, expected) => {
      expect(keptBy(field, cells, operator, value)).toEqual(expected);
    });
  });

  describe.each([
    ['lookup of checkbox', lookupOf('checkbox', undefined, true)],
    ['multiple boolean formula', resultOf('formula', 'boolean', true)],
  ])('checkbox: %s', (_name, field) => {
    const cells: (StoredCell | undefined)[] = [[true, true], [true], undefined, []];
    it.each<[unknown, number[]]>([
      [true, [1, 2]],
      [false, [3, 4]],
      [null, [3, 4]],
    ])('is %j', (value, expected) => {
      expect(keptBy(field, cells, 'is', value)).toEqual(expected);
    });
  });

  it('lookups of selects, users and links compare as sets', () => {
    const tags = lookupOf('singleSelect', choices, true);
    const cells: (StoredCell | undefined)[] = [['todo', 'done'], ['done'], undefined];
    expect(keptBy(tags, cells, 'hasAnyOf', ['todo'])).toEqual([1]);
    expect(keptBy(tags, cells, 'hasNoneOf', ['todo'])).toEqual([2, 3]);
    expect(keptBy(tags, cells, 'isExactly', ['done'])).toEqual([2]);
    const status = lookupOf('singleSelect', choices, false);
    expect(keptBy(status, ['todo', 'done', undefined], 'isNoneOf', ['todo'])).toEqual([2, 3]);
    const people = lookupOf('user', undefined, true);
    expect(keptBy(people, [[alice, bob], [bob], undefined], 'hasAllOf', [alice.id, bob.id])).toEqual([1]);
    const links = lookupOf('link', manyOne, true);
    expect(keptBy(links, [[R1, R2], [R2], undefined], 'hasAnyOf', [R1])).toEqual([1]);
    expect(keptBy(links, [[R1, R2], [R2], undefined], 'contains', 'north')).toEqual([1]);
    expect(keptBy(links, [[R1, R2], [R2], undefined], 'doesNotContain', 'north')).toEqual([2, 3]);
    const single = lookupOf('link', manyOne, false);
    expect(keptBy(single, [[R1], [R2], undefined], 'is', R1)).toEqual([1]);
  });
});

/** Row numbers in the order a sort on the field gives. */
const sortedBy = (field: Field, cells: (StoredCell | undefined)[], order: 'asc' | 'desc'): number[] =>
  sortRows(rowsOf(cells.map((c) => ({ [F]: c }))), [{ fieldId: F, order }], contextOf([field], TITLES)).map(
    (r) => r.autoNumber,
  );

describe('sort (computed.md 7, third paragraph)', () => {
  it.each([
    ['lookup of number', lookupOf('number', undefined, true)],
    ['multiple number rollup', resultOf('rollup', 'number', true)],
    ['multiple number formula', resultOf('formula', 'number', true)],
  ])('%s: by first item as a number, then item count; empty first in asc, last in desc', (_n, field) => {
    const cells: (StoredCell | undefined)[] = [[10], [9, 1], undefined, [9], [100], [2, 50], []];
    // as text "100" < "2" < "9": numbers as numbers give 2, 9, 10, 100
    expect(sortedBy(field, cells, 'asc')).toEqual([3, 7, 6, 4, 2, 1, 5]);
    expect(sortedBy(field, cells, 'desc')).toEqual([5, 1, 2, 4, 6, 3, 7]);
  });

  it('multi-valued text: first item ignoring case, then count', () => {
    const field = lookupOf('singleLineText', undefined, true);
    expect(sortedBy(field, [['b'], ['A', 'z'], ['a'], undefined], 'asc')).toEqual([4, 3, 2, 1]);
  });

  it('multi-valued dates: first item by instant, then count', () => {
    const field = lookupOf('date', undefined, true);
    const cells: (StoredCell | undefined)[] = [
      ['2026-03-01T00:00:00.000Z'],
      ['2025-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2026-03-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z'],
      undefined,
    ];
    expect(sortedBy(field, cells, 'asc')).toEqual([4, 2, 1, 3]);
  });

  it('multi-valued checkbox: checked after empty in asc', () => {
    const field = lookupOf('checkbox', undefined, true);
    expect(sortedBy(field, [[true, true], undefined, [true]], 'asc')).toEqual([2, 3, 1]);
  });

  it('lookups of selects sort by choice position, of links by title', () => {
    const status = lookupOf('singleSelect', choices, true);
    expect(sortedBy(status, [['done'], ['todo', 'done'], ['todo']], 'asc')).toEqual([3, 2, 1]);
    const links = lookupOf('link', manyOne, true);
    expect(sortedBy(links, [[R2], [R1]], 'asc')).toEqual([2, 1]);
  });
});

describe('groups (computed.md 7: multi-valued cells by their JSON array text)', () => {
  const groupsOf = (field: Field, cells: (StoredCell | undefined)[]) =>
    runQuery(
      rowsOf(cells.map((c) => ({ [F]: c }))),
      query({ groupBy: [{ fieldId: F, order: 'asc' }] }),
      contextOf([field], TITLES),
    ).groupPoints;

  it.each<[string, Field, (StoredCell | undefined)[], unknown[]]>([
    [
      'lookup of number (items neither rounded nor formatted)',
      lookupOf('number', { formatting: { type: 'decimal', precision: 0 } }, true),
      [[1.25, 2], [3], [1.25, 2], undefined],
      [null, [1.25, 2], [3]],
    ],
    ['multiple number rollup', resultOf('rollup', 'number', true), [[5], [5, 5], [5]], [[5], [5, 5]]],
    [
      'lookup of singleLineText',
      lookupOf('singleLineText', undefined, true),
      [['a', 'b'], ['a']],
      [['a'], ['a', 'b']],
    ],
    ['multiple text formula', resultOf('formula', 'string', true), [['x']], [['x']]],
    [
      'lookup of date',
      lookupOf('date', undefined, true),
      [['2026-03-01T10:00:00.000Z'], ['2026-03-01T10:00:00.000Z']],
      [['2026-03-01T10:00:00.000Z']],
    ],
    [
      'lookup of checkbox',
      lookupOf('checkbox', undefined, true),
      [[true, true], [true]],
      [[true], [true, true]],
    ],
    [
      'multiple lookup of singleSelect',
      lookupOf('singleSelect', choices, true),
      [['done'], ['todo']],
      [['todo'], ['done']],
    ],
  ])('%s', (_name, field, cells, values) => {
    const points = groupsOf(field, cells) ?? [];
    const headers = points.filter((p) => p.type === 0);
    expect(headers.map((h) => h.value)).toEqual(values);
    expect(headers.map((h) => h.id)).toEqual(
      values.map((v) => headerId(`${F}_${v === null ? '' : JSON.stringify(v)}`)),
    );
  });

  it('a single lookup groups as the looked-up type (a choice by its bare name, a number rounded)', () => {
    const status = lookupOf('singleSelect', choices, false);
    expect((groupsOf(status, ['todo', 'done']) ?? []).filter((p) => p.type === 0)).toEqual([
      { id: headerId(`${F}_todo`), type: 0, depth: 0, value: 'todo', isCollapsed: false },
      { id: headerId(`${F}_done`), type: 0, depth: 0, value: 'done', isCollapsed: false },
    ]);
    const amount = lookupOf('number', { formatting: { type: 'decimal', precision: 0 } }, false);
    expect((groupsOf(amount, [1.4, 1.2]) ?? []).filter((p) => p.type === 0)).toEqual([
      { id: headerId(`${F}_1`), type: 0, depth: 0, value: 1, isCollapsed: false },
    ]);
  });
});

describe('search (computed.md 7: the text rendering; dateTime ones count as date fields)', () => {
  const N = 'fldLookupNumberAAAA';
  const L = 'fldLookupLinkAAAAAA';
  const S = 'fldLookupSelectAAAA';
  const U = 'fldLookupUserAAAAAA';
  const D = 'fldLookupDateAAAAAA';
  const R = 'fldRollupDateAAAAAA';
  const T = 'fldFormulaTextAAAAA';
  const fields = [
    lookupOf('number', { formatting: { type: 'currency', precision: 2, symbol: '$' } }, true, N),
    lookupOf('link', manyOne, true, L),
    lookupOf('multipleSelect', choices, true, S),
    lookupOf('user', undefined, true, U),
    lookupOf('date', undefined, true, D),
    resultOf('rollup', 'dateTime', false, {}, R),
    resultOf('formula', 'string', true, {}, T),
  ];
  const ctx = contextOf(fields, TITLES);
  const rows = rowsOf([
    { [N]: [1234.5, 2], [L]: [R1], [S]: ['todo'], [U]: [alice], [D]: ['2026-03-01T00:00:00.000Z'] },
    { [N]: [7], [L]: [R2, R_GONE], [S]: ['done', 'todo'], [U]: [bob], [T]: ['north', 'x'] },
  ]);
  const hits = (value: string, fieldIds: string[]) =>
    runQuery(rows, query({ search: { value, fieldIds, hide: true } }), ctx).searchHitIndex;

  it('a lookup of number matches its formatted items joined by ", "', () => {
    expect(hits('1,234.50', [N])).toEqual([{ recordId: recId(1), fieldId: N }]);
    expect(hits('.50, $2.00', [N])).toEqual([{ recordId: recId(1), fieldId: N }]);
    // the stored number text is not what is shown
    expect(hits('1234.5', [N])).toBeNull();
  });

  it('a lookup of link matches titles (not ids), of select choice names, of user titles', () => {
    expect(hits('NORTH', [L])).toEqual([{ recordId: recId(1), fieldId: L }]);
    expect(hits('recForeign', [L])).toBeNull();
    expect(hits('done', [S])).toEqual([{ recordId: recId(2), fieldId: S }]);
    expect(hits('ali', [U])).toEqual([{ recordId: recId(1), fieldId: U }]);
    expect(hits('north', [T])).toEqual([{ recordId: recId(2), fieldId: T }]);
  });

  it('a lookup of date matches its formatted day when named', () => {
    expect(hits('2026-03-01', [D])).toEqual([{ recordId: recId(1), fieldId: D }]);
  });

  it('dateTime lookups and results are left out of a search of all fields', () => {
    const all = fields.map((f) => f.id);
    expect(searchFieldIds(undefined, fields, all)).toEqual([N, L, S, U, T]);
  });
});

describe('lookupToJson / lookupToText for every looked-up type', () => {
  const attachmentA = {
    id: 'actAAAAAAAAAAAAAAAA',
    name: 'a.png',
    token: 'tokA',
    size: 3,
    mimetype: 'image/png',
    path: 'p/a',
  };
  const attachmentB = { id: 'actBBBBBBBBBBBBBBBB', name: 'b.txt', token: 'tokB' };
  it.each<[string, Field, StoredCell, unknown, string]>([
    ['singleLineText', lookupOf('singleLineText', undefined, true), ['a', 'b'], ['a', 'b'], 'a, b'],
    [
      'longText',
      lookupOf('longText', undefined, true),
      ['line 1\nline 2'],
      ['line 1\nline 2'],
      'line 1\nline 2',
    ],
    [
      'number (the lookup formatting)',
      lookupOf('number', { formatting: { type: 'currency', precision: 1, symbol: '€' } }, true),
      [1, 2.25],
      [1, 2.25],
      '€1.0, €2.3',
    ],
    ['number (default formatting)', lookupOf('number', undefined, true), [1, 2], [1, 2], '1.00, 2.00'],
    ['rating', lookupOf('rating', undefined, true), [3, 5], [3, 5], '3, 5'],
    ['autoNumber', lookupOf('autoNumber', undefined, true), [1, 2], [1, 2], '1, 2'],
    ['checkbox', lookupOf('checkbox', undefined, true), [true, true], [true, true], 'true, true'],
    [
      'singleSelect',
      lookupOf('singleSelect', choices, true),
      ['todo', 'done'],
      ['todo', 'done'],
      'todo, done',
    ],
    [
      'multipleSelect (flattened; a name with a comma quoted)',
      lookupOf('multipleSelect', { choices: [{ name: 'x' }, { name: 'y, z' }] }, true),
      ['x', 'y, z'],
      ['x', 'y, z'],
      'x, "y, z"',
    ],
    [
      'date (the lookup formatting)',
      lookupOf('date', { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Asia/Tokyo' } }, true),
      ['2026-03-01T00:00:00.000Z', '2026-03-02T15:30:00.000Z'],
      ['2026-03-01T00:00:00.000Z', '2026-03-02T15:30:00.000Z'],
      '2026-03-01 09:00, 2026-03-03 00:30',
    ],
    [
      'createdTime',
      lookupOf('createdTime', undefined, true),
      ['2026-03-01T00:00:00.000Z'],
      ['2026-03-01T00:00:00.000Z'],
      '2026-03-01',
    ],
    [
      'lastModifiedTime',
      lookupOf('lastModifiedTime', undefined, true),
      ['2026-03-01T00:00:00.000Z', '2026-03-04T00:00:00.000Z'],
      ['2026-03-01T00:00:00.000Z', '2026-03-04T00:00:00.000Z'],
      '2026-03-01, 2026-03-04',
    ],
    ['user', lookupOf('user', undefined, true), [alice, bob], [out(alice), out(bob)], 'Alice, bob'],
    [
      'a multiple user',
      lookupOf('user', { isMultiple: true }, true),
      [alice, bob],
      [out(alice), out(bob)],
      'Alice, bob',
    ],
    ['createdBy', lookupOf('createdBy', undefined, true), [alice], [out(alice)], 'Alice'],
    [
      'lastModifiedBy',
      lookupOf('lastModifiedBy', undefined, true),
      [bob, alice],
      [out(bob), out(alice)],
      'bob, Alice',
    ],
    [
      'a manyOne link (ids without a title left out)',
      lookupOf('link', manyOne, true),
      [R1, R_GONE, R2],
      [
        { id: R1, title: 'Invoice North' },
        { id: R2, title: 'Other' },
      ],
      'Invoice North, Other',
    ],
    [
      'a manyMany link',
      lookupOf('link', manyMany, true),
      [R2, R1],
      [
        { id: R2, title: 'Other' },
        { id: R1, title: 'Invoice North' },
      ],
      'Other, Invoice North',
    ],
    [
      'attachment (each item with its defaults)',
      lookupOf('attachment', undefined, true),
      [attachmentA, attachmentB] as unknown as StoredCell,
      [
        // the download URL is signed where the record is answered (records/model.ts)
        { ...attachmentA, presignedUrl: '' },
        { ...attachmentB, path: '', size: 0, mimetype: '', presignedUrl: '' },
      ],
      'a.png (tokA), b.txt (tokB)',
    ],
    [
      'a number formula',
      {
        ...resultOf('formula', 'number', true, { formatting: { type: 'percent', precision: 0 } }),
        isLookup: true,
      },
      [0.5, 1],
      [0.5, 1],
      '50%, 100%',
    ],
    [
      'a dateTime rollup',
      {
        ...resultOf('rollup', 'dateTime', true, {
          formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' },
        }),
        isLookup: true,
      },
      ['2026-03-01T10:00:00.000Z'],
      ['2026-03-01T10:00:00.000Z'],
      '2026-03-01',
    ],
  ])('%s', (_name, field, cell, json, text) => {
    expect(lookupToJson(cell, field, readCtx)).toEqual(json);
    expect(lookupToText(cell, field, readCtx)).toBe(text);
    expect(fieldQuery(field).toText(cell, field, readCtx)).toBe(text);
  });

  it.each<[string, Field, StoredCell, unknown, string]>([
    ['singleLineText', lookupOf('singleLineText', undefined, false), 'A2', 'A2', 'A2'],
    ['number', lookupOf('number', undefined, false), 3, 3, '3.00'],
    ['checkbox', lookupOf('checkbox', undefined, false), true, true, 'true'],
    ['singleSelect', lookupOf('singleSelect', choices, false), 'done', 'done', 'done'],
    ['user', lookupOf('user', undefined, false), alice, out(alice), 'Alice'],
    [
      'date',
      lookupOf('date', undefined, false),
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-01',
    ],
    [
      'a manyOne link',
      lookupOf('link', manyOne, false),
      [R1],
      { id: R1, title: 'Invoice North' },
      'Invoice North',
    ],
  ])('a single lookup of %s answers the single value', (_name, field, cell, json, text) => {
    expect(lookupToJson(cell, field, readCtx)).toEqual(json);
    expect(lookupToText(cell, field, readCtx)).toBe(text);
  });

  it('an empty cell (absent, empty list, only deleted links) is undefined and ""', () => {
    const text = lookupOf('singleLineText', undefined, true);
    const links = lookupOf('link', manyMany, true);
    for (const [field, cell] of [
      [text, undefined],
      [text, []],
      [links, [R_GONE]],
      [lookupOf('link', manyOne, false), [R_GONE]],
    ] as [Field, StoredCell | undefined][]) {
      expect(lookupToJson(cell, field, readCtx)).toBeUndefined();
      expect(lookupToText(cell, field, readCtx)).toBe('');
    }
  });

  it('link titles are asked for with the lookup field id', () => {
    const asked: string[] = [];
    const ctx: ReadContext = {
      linkTitle: (fieldId, recordId) => {
        asked.push(`${fieldId}:${recordId}`);
        return 'T';
      },
    };
    lookupToText([R1], lookupOf('link', manyMany, true, 'fldTheLookupAAAAAAA'), ctx);
    expect(asked).toEqual([`fldTheLookupAAAAAAA:${R1}`]);
  });
});
