import { describe, expect, it } from 'vitest';
import {
  andFilters,
  compileFilter,
  filterFieldIds,
  filterKindOf,
  resolveFilter,
} from '#shared/query/filter.ts';
import type { FilterGroup } from '#shared/query/query-types.ts';
import { validationError } from '../fields/support.ts';
import {
  ALL_IDS,
  ALPHA,
  alice,
  allBut,
  BETA,
  bob,
  CTX,
  F,
  FIELDS,
  GAMMA,
  ROWS,
  sam,
} from './filter-fixture.ts';

type Ref = { id: string; name: string };

/** The ids of the rows a filter keeps, checked by resolveFilter first (as the route does). */
const matching = (raw: unknown): string[] => {
  const filter = resolveFilter(raw, FIELDS);
  const keep = compileFilter(filter, CTX);
  return ROWS.filter(keep).map((r) => r.id);
};

const one = (field: Ref, operator: string, value: unknown) => ({
  conjunction: 'and',
  filterSet: [{ fieldId: field.name, operator, value }],
});

const utc = (mode: string, extra: Record<string, unknown> = {}) => ({ mode, timeZone: 'UTC', ...extra });
const tokyo = (mode: string, extra: Record<string, unknown> = {}) => ({
  mode,
  timeZone: 'Asia/Tokyo',
  ...extra,
});

const ids = (...n: number[]) => n.map((i) => `r${String(i).padStart(2, '0')}`);

describe('filterKindOf', () => {
  it.each([
    [F.name, 'text'],
    [F.notes, 'text'],
    [F.count, 'number'],
    [F.stars, 'number'],
    [F.id, 'number'],
    [F.done, 'checkbox'],
    [F.when, 'date'],
    [F.created, 'date'],
    [F.status, 'singleSelect'],
    [F.tags, 'multipleSelect'],
    [F.owner, 'singleUser'],
    [F.team, 'multipleUser'],
    [F.createdBy, 'singleUser'],
    [F.parent, 'singleLink'],
    [F.kids, 'multipleLink'],
    [F.files, 'attachment'],
  ])('%s.name classifies as %s', (field, kind) => {
    expect(filterKindOf(field)).toBe(kind);
  });

  it('one-to-one links are single, one-to-many links multiple; formulas go by their result type', () => {
    expect(filterKindOf({ ...F.parent, options: { ...F.parent.options, relationship: 'oneOne' } })).toBe(
      'singleLink',
    );
    expect(filterKindOf({ ...F.kids, options: { ...F.kids.options, relationship: 'oneMany' } })).toBe(
      'multipleLink',
    );
    expect(filterKindOf({ ...F.name, type: 'formula', cellValueType: 'number' })).toBe('number');
    expect(filterKindOf({ ...F.name, type: 'formula', cellValueType: 'dateTime' })).toBe('date');
    expect(filterKindOf({ ...F.name, type: 'rollup', cellValueType: 'boolean' })).toBe('checkbox');
    expect(filterKindOf({ ...F.name, type: 'formula', cellValueType: 'string' })).toBe('text');
  });
});

describe('operator × field kind on the fixed rows', () => {
  it.each<[string, Ref, string, unknown, string[]]>([
    // text: case-insensitive; empty cells only for isNot / doesNotContain
    ['text is ignores case', F.name, 'is', 'apple', ids(1, 11)],
    ['text is compares whole values', F.name, 'is', 'APPLE PIE', ids(2)],
    ['text isNot keeps empty cells', F.name, 'isNot', 'apple', allBut(...ids(1, 11))],
    ['text contains', F.name, 'contains', 'APP', ids(1, 2, 11)],
    ['text contains (2)', F.name, 'contains', 'err', ids(5, 6)],
    ['text doesNotContain keeps empty cells', F.name, 'doesNotContain', 'app', allBut(...ids(1, 2, 11))],
    ['text isEmpty', F.name, 'isEmpty', null, ids(4)],
    ['text isNotEmpty', F.name, 'isNotEmpty', null, allBut(...ids(4))],
    ['text with a null value matches all', F.name, 'is', null, ALL_IDS],
    ['text with an empty text matches all', F.name, 'contains', '', ALL_IDS],
    ['long text contains across lines', F.notes, 'contains', 'apple', ids(6)],
    ['long text is', F.notes, 'is', 'pie NOTES', ids(2)],
    ['long text isEmpty', F.notes, 'isEmpty', null, allBut(...ids(2, 6))],
    ['text is a number compares its text', F.name, 'is', 3, []],
    // number: empty cells fail all but isNot / isEmpty
    ['number is', F.count, 'is', 1, ids(1, 11)],
    ['number is numeric text', F.count, 'is', ' 2.5 ', ids(2)],
    ['number isNot keeps empty cells', F.count, 'isNot', 1, allBut(...ids(1, 11))],
    ['number isGreater', F.count, 'isGreater', 2.49, ids(2, 6, 7, 8, 10)],
    ['number isGreaterEqual', F.count, 'isGreaterEqual', '2.49', ids(2, 6, 7, 8, 9, 10)],
    ['number isLess', F.count, 'isLess', 0, ids(3, 12)],
    ['number isLessEqual', F.count, 'isLessEqual', 0, ids(3, 5, 12)],
    ['number isEmpty', F.count, 'isEmpty', null, ids(4, 13)],
    ['number isNotEmpty', F.count, 'isNotEmpty', null, allBut(...ids(4, 13))],
    ['number null matches all', F.count, 'isGreater', null, ALL_IDS],
    ['rating isGreaterEqual', F.stars, 'isGreaterEqual', 3, ids(5, 6, 8)],
    ['autoNumber isLess', F.id, 'isLess', 3, ids(1, 2)],
    ['autoNumber is numeric text', F.id, 'is', '12', ids(12)],
    // checkbox
    ['checkbox is true', F.done, 'is', true, ids(1, 6, 7)],
    ['checkbox is false = unchecked', F.done, 'is', false, allBut(...ids(1, 6, 7))],
    ['checkbox is null = unchecked', F.done, 'is', null, allBut(...ids(1, 6, 7))],
    // singleSelect: exact names, case matters
    ['singleSelect is', F.status, 'is', 'light', ids(1, 5)],
    ['singleSelect is (case matters)', F.status, 'is', 'Light', ids(10)],
    ['singleSelect isNot keeps empty cells', F.status, 'isNot', 'light', allBut(...ids(1, 5))],
    ['singleSelect isAnyOf', F.status, 'isAnyOf', ['light', 'heavy'], ids(1, 3, 5, 7)],
    [
      'singleSelect isNoneOf keeps empty cells',
      F.status,
      'isNoneOf',
      ['light', 'heavy'],
      allBut(...ids(1, 3, 5, 7)),
    ],
    ['singleSelect isEmpty', F.status, 'isEmpty', null, ids(4, 6, 9, 11, 12, 13)],
    ['singleSelect isNotEmpty', F.status, 'isNotEmpty', null, ids(1, 2, 3, 5, 7, 8, 10)],
    ['singleSelect unknown name matches nothing', F.status, 'is', 'nope', []],
    // multipleSelect: sets of names
    ['multipleSelect hasAnyOf', F.tags, 'hasAnyOf', ['a'], ids(1, 2, 3, 6, 10)],
    ['multipleSelect hasAnyOf (2)', F.tags, 'hasAnyOf', ['b', 'c'], ids(2, 3, 5, 6, 8)],
    ['multipleSelect hasAllOf', F.tags, 'hasAllOf', ['b', 'a'], ids(2, 3, 6)],
    ['multipleSelect isExactly ignores order', F.tags, 'isExactly', ['b', 'a'], ids(2, 3)],
    ['multipleSelect isExactly one', F.tags, 'isExactly', ['a'], ids(1, 10)],
    [
      'multipleSelect hasNoneOf keeps empty cells',
      F.tags,
      'hasNoneOf',
      ['a'],
      ids(4, 5, 7, 8, 9, 11, 12, 13),
    ],
    ['multipleSelect compares names exactly', F.tags, 'hasAnyOf', ['A'], []],
    ['multipleSelect isEmpty', F.tags, 'isEmpty', null, ids(4, 7, 9, 11, 12, 13)],
    ['multipleSelect isNotEmpty', F.tags, 'isNotEmpty', null, ids(1, 2, 3, 5, 6, 8, 10)],
    // single user (Me = alice)
    ['user is Me', F.owner, 'is', 'Me', ids(1, 6)],
    ['user is by id', F.owner, 'is', alice.id, ids(1, 6)],
    ['user isNot keeps empty cells', F.owner, 'isNot', bob.id, allBut(...ids(2, 8))],
    ['user isAnyOf', F.owner, 'isAnyOf', [bob.id, sam.id], ids(2, 5, 8)],
    ['user isNoneOf Me', F.owner, 'isNoneOf', ['me'], allBut(...ids(1, 6))],
    ['user isEmpty', F.owner, 'isEmpty', null, ids(3, 4, 7, 9, 10, 11, 12, 13)],
    // multiple user: sets of ids
    ['users hasAnyOf Me', F.team, 'hasAnyOf', ['Me'], ids(1, 3, 5)],
    ['users hasAllOf', F.team, 'hasAllOf', [alice.id, bob.id], ids(1, 5)],
    ['users isExactly', F.team, 'isExactly', [bob.id, 'Me'], ids(1, 5)],
    ['users hasNoneOf keeps empty cells', F.team, 'hasNoneOf', [bob.id], allBut(...ids(1, 2, 5))],
    ['users isNotEmpty', F.team, 'isNotEmpty', null, ids(1, 2, 3, 5, 7)],
    // createdBy: a single user
    ['createdBy is Me', F.createdBy, 'is', 'Me', ids(1, 3, 6, 8, 9, 11, 12, 13)],
    ['createdBy isAnyOf', F.createdBy, 'isAnyOf', [bob.id, sam.id], ids(2, 4, 5, 7, 10)],
    ['createdBy isNot', F.createdBy, 'isNot', 'Me', ids(2, 4, 5, 7, 10)],
    // single link: ids, titles for contains
    ['link is', F.parent, 'is', ALPHA, ids(1, 7)],
    ['link isNot keeps empty cells', F.parent, 'isNot', ALPHA, allBut(...ids(1, 7))],
    ['link isAnyOf', F.parent, 'isAnyOf', [BETA, GAMMA], ids(2, 5)],
    ['link isNoneOf', F.parent, 'isNoneOf', [BETA, GAMMA], allBut(...ids(2, 5))],
    ['link contains a title, ignoring case', F.parent, 'contains', 'ALP', ids(1, 7)],
    ['link contains (2)', F.parent, 'contains', 'a', ids(1, 2, 5, 7)],
    ['link doesNotContain keeps empty cells', F.parent, 'doesNotContain', 'beta', allBut(...ids(2))],
    ['link isEmpty', F.parent, 'isEmpty', null, allBut(...ids(1, 2, 5, 7))],
    // multiple link
    ['links hasAnyOf', F.kids, 'hasAnyOf', [ALPHA], ids(1, 6)],
    ['links hasAllOf', F.kids, 'hasAllOf', [BETA, ALPHA], ids(1, 6)],
    ['links isExactly', F.kids, 'isExactly', [BETA], ids(2, 8)],
    ['links hasNoneOf keeps empty cells', F.kids, 'hasNoneOf', [BETA], ids(3, 4, 5, 7, 9, 10, 11, 12, 13)],
    ['links contains', F.kids, 'contains', 'gam', ids(3, 6)],
    ['links doesNotContain', F.kids, 'doesNotContain', 'gam', allBut(...ids(3, 6))],
    ['links isNotEmpty', F.kids, 'isNotEmpty', null, ids(1, 2, 3, 6, 8)],
    // attachment
    ['attachment isEmpty', F.files, 'isEmpty', null, allBut(...ids(1, 5))],
    ['attachment isNotEmpty', F.files, 'isNotEmpty', null, ids(1, 5)],
  ])('%s', (_title, field, operator, value, expected) => {
    expect(matching(one(field, operator, value))).toEqual(expected);
  });
});

describe('date modes and operators (now: 2026-03-10 12:00 UTC)', () => {
  it.each<[string, string, unknown, string[]]>([
    ['is today (UTC)', 'is', utc('today'), ids(1, 2, 13)],
    ['is today (Tokyo: 9 March 15:00 to 10 March 15:00 UTC)', 'is', tokyo('today'), ids(1, 12)],
    ['is tomorrow (Tokyo)', 'is', tokyo('tomorrow'), ids(2, 5, 13)],
    [
      'is today (New York, daylight time since 8 March)',
      'is',
      { mode: 'today', timeZone: 'America/New_York' },
      ids(2, 5, 13),
    ],
    ['is yesterday', 'is', utc('yesterday'), ids(3, 12)],
    ['is tomorrow', 'is', utc('tomorrow'), ids(5)],
    ['is oneWeekAgo', 'is', utc('oneWeekAgo'), ids(6)],
    ['is oneWeekFromNow', 'is', utc('oneWeekFromNow'), ids(10)],
    ['is oneMonthAgo', 'is', utc('oneMonthAgo'), ids(7)],
    ['is oneMonthFromNow', 'is', utc('oneMonthFromNow'), ids(8)],
    ['is daysAgo 3', 'is', utc('daysAgo', { numberOfDays: 3 }), ids(11)],
    ['is daysFromNow 1', 'is', utc('daysFromNow', { numberOfDays: 1 }), ids(5)],
    ['is exactDate (plain day)', 'is', utc('exactDate', { exactDate: '2026-03-09' }), ids(3, 12)],
    [
      'is exactDate (an instant, its day in the zone)',
      'is',
      tokyo('exactDate', { exactDate: '2026-03-10T20:00:00.000Z' }),
      ids(2, 5, 13),
    ],
    ['isNot today keeps empty cells', 'isNot', utc('today'), allBut(...ids(1, 2, 13))],
    ['isBefore today', 'isBefore', utc('today'), ids(3, 6, 7, 9, 11, 12)],
    ['isAfter today', 'isAfter', utc('today'), ids(5, 8, 10)],
    ['isOnOrBefore today', 'isOnOrBefore', utc('today'), ids(1, 2, 3, 6, 7, 9, 11, 12, 13)],
    ['isOnOrAfter today', 'isOnOrAfter', utc('today'), ids(1, 2, 5, 8, 10, 13)],
    ['isWithIn pastWeek', 'isWithIn', utc('pastWeek'), ids(1, 2, 3, 6, 11, 12, 13)],
    ['isWithIn pastMonth', 'isWithIn', utc('pastMonth'), ids(1, 2, 3, 6, 7, 11, 12, 13)],
    ['isWithIn pastYear', 'isWithIn', utc('pastYear'), ids(1, 2, 3, 6, 7, 9, 11, 12, 13)],
    ['isWithIn nextWeek', 'isWithIn', utc('nextWeek'), ids(1, 2, 5, 10, 13)],
    ['isWithIn nextMonth', 'isWithIn', utc('nextMonth'), ids(1, 2, 5, 8, 10, 13)],
    ['isWithIn nextYear', 'isWithIn', utc('nextYear'), ids(1, 2, 5, 8, 10, 13)],
    [
      'isWithIn pastNumberOfDays 1',
      'isWithIn',
      utc('pastNumberOfDays', { numberOfDays: 1 }),
      ids(1, 2, 3, 12, 13),
    ],
    ['isWithIn nextNumberOfDays 0', 'isWithIn', utc('nextNumberOfDays', { numberOfDays: 0 }), ids(1, 2, 13)],
    ['isEmpty', 'isEmpty', null, ids(4)],
    ['isNotEmpty', 'isNotEmpty', null, allBut(...ids(4))],
    ['a null value matches all', 'isBefore', null, ALL_IDS],
  ])('When %s', (_title, operator, value, expected) => {
    expect(matching(one(F.when, operator, value))).toEqual(expected);
  });

  it('createdTime filters on the record stamp', () => {
    expect(matching(one(F.created, 'is', utc('today')))).toEqual(ids(10, 11, 12, 13));
    expect(matching(one(F.created, 'isBefore', utc('daysAgo', { numberOfDays: 5 })))).toEqual(
      ids(1, 2, 3, 4),
    );
  });

  it('a time written with an offset or without milliseconds compares as the instant', () => {
    const rows = [
      { id: 'x1', autoNumber: 1, cells: { [F.when.id]: '2026-03-10T01:00:00+02:00' } }, // 9 March 23:00 UTC
      { id: 'x2', autoNumber: 2, cells: { [F.when.id]: '2026-03-10T00:00:00Z' } },
      { id: 'x3', autoNumber: 3, cells: { [F.when.id]: 'garbage' } },
    ];
    const keep = compileFilter(resolveFilter(one(F.when, 'is', utc('today')), FIELDS), CTX);
    expect(rows.filter(keep).map((r) => r.id)).toEqual(['x2']);
  });
});

describe('groups', () => {
  it('nests and/or', () => {
    const filter = {
      conjunction: 'or',
      filterSet: [
        { fieldId: 'Status', operator: 'is', value: 'light' },
        {
          conjunction: 'and',
          filterSet: [
            { fieldId: 'Count', operator: 'isGreater', value: 2 },
            { fieldId: 'Tags', operator: 'hasAnyOf', value: ['b'] },
          ],
        },
      ],
    };
    expect(matching(filter)).toEqual(ids(1, 2, 5, 6, 8));
  });

  it('three or more members of either conjunction', () => {
    const items = [
      { fieldId: 'Name', operator: 'contains', value: 'e' },
      { fieldId: 'Count', operator: 'isGreater', value: 0 },
      { fieldId: 'Done', operator: 'is', value: null },
    ];
    expect(matching({ conjunction: 'and', filterSet: items })).toEqual(ids(2, 8, 10, 11));
    expect(matching({ conjunction: 'or', filterSet: items })).toEqual(allBut());
    expect(matching({ conjunction: 'or', filterSet: [...items.slice(0, 2), items[0]] })).toEqual(
      ids(1, 2, 5, 6, 7, 8, 9, 10, 11, 13),
    );
  });

  it('an empty filterSet, an empty nested group and no filter match everything', () => {
    expect(matching({ conjunction: 'and', filterSet: [] })).toEqual(ALL_IDS);
    expect(matching({ conjunction: 'or', filterSet: [] })).toEqual(ALL_IDS);
    expect(matching({ conjunction: 'and', filterSet: [{ conjunction: 'or', filterSet: [] }] })).toEqual(
      ALL_IDS,
    );
    expect(ROWS.filter(compileFilter(null, CTX))).toHaveLength(ROWS.length);
    expect(ROWS.filter(compileFilter(undefined, CTX))).toHaveLength(ROWS.length);
  });

  it('an item with a null value matches everything: dropped from and, whole or matches', () => {
    const nullItem = { fieldId: 'Count', operator: 'is', value: null };
    const light = { fieldId: 'Status', operator: 'is', value: 'light' };
    expect(matching({ conjunction: 'and', filterSet: [nullItem, light] })).toEqual(ids(1, 5));
    expect(matching({ conjunction: 'or', filterSet: [nullItem, light] })).toEqual(ALL_IDS);
  });
});

describe('resolveFilter', () => {
  it('answers field ids for names, normalised values, and drops unknown keys', () => {
    const resolved = resolveFilter(
      {
        conjunction: 'and',
        filterSet: [
          { fieldId: 'Count', operator: 'is', value: '2.5', extra: 1 },
          { fieldId: F.name.id, operator: 'is', value: 7 },
          { fieldId: 'Name', operator: 'is', value: '' },
          { fieldId: 'Done', operator: 'is' },
          {
            conjunction: 'or',
            filterSet: [
              { fieldId: 'When', operator: 'is', value: { mode: 'today', timeZone: 'utc', numberOfDays: 3 } },
            ],
          },
        ],
      },
      FIELDS,
    );
    expect(resolved).toEqual({
      conjunction: 'and',
      filterSet: [
        { fieldId: F.count.id, operator: 'is', value: 2.5 },
        { fieldId: F.name.id, operator: 'is', value: '7' },
        { fieldId: F.name.id, operator: 'is', value: null },
        { fieldId: F.done.id, operator: 'is', value: null },
        {
          conjunction: 'or',
          filterSet: [{ fieldId: F.when.id, operator: 'is', value: { mode: 'today', timeZone: 'UTC' } }],
        },
      ],
    });
  });

  it('null and undefined are no filter', () => {
    expect(resolveFilter(null, FIELDS)).toBeNull();
    expect(resolveFilter(undefined, FIELDS)).toBeNull();
  });

  it('a field id is preferred over a field of that name', () => {
    const trap = { ...F.notes, id: 'fldTrapAAAAAAAAAAAA', name: F.name.id };
    const fields = [...FIELDS, trap];
    const resolved = resolveFilter(one({ id: '', name: F.name.id }, 'isEmpty', null), fields);
    expect(resolved?.filterSet[0]).toMatchObject({ fieldId: F.name.id });
  });

  it.each<[string, Ref, string, unknown, Record<string, unknown>]>([
    ['= on text', F.name, '=', 'x', { operator: 'is', value: 'x' }],
    ['!= on text', F.name, '!=', 'x', { operator: 'isNot', value: 'x' }],
    ['LIKE on text', F.name, 'like', '%x%', { operator: 'contains', value: 'x' }],
    ['NOT LIKE on text', F.name, 'NOT  LIKE', 'x', { operator: 'doesNotContain', value: 'x' }],
    ['IS NULL on text', F.name, 'IS NULL', null, { operator: 'isEmpty', value: null }],
    ['IS NOT NULL on text', F.name, 'IS NOT NULL', 'ignored', { operator: 'isNotEmpty', value: null }],
    ['> on number', F.count, '>', 1, { operator: 'isGreater', value: 1 }],
    ['>= on number', F.count, '>=', 1, { operator: 'isGreaterEqual', value: 1 }],
    ['< on number', F.count, '<', 1, { operator: 'isLess', value: 1 }],
    ['<= on number', F.count, '<=', 1, { operator: 'isLessEqual', value: 1 }],
    [
      '> on date',
      F.when,
      '>',
      '2026-03-01',
      { operator: 'isAfter', value: { mode: 'exactDate', exactDate: '2026-03-01', timeZone: 'Asia/Tokyo' } },
    ],
    [
      '>= on date',
      F.when,
      '>=',
      utc('today'),
      { operator: 'isOnOrAfter', value: { mode: 'today', timeZone: 'UTC' } },
    ],
    ['< on date', F.when, '<', '2026-03-01', { operator: 'isBefore' }],
    ['<= on date', F.when, '<=', '2026-03-01', { operator: 'isOnOrBefore' }],
    ['= on checkbox', F.done, '=', true, { operator: 'is', value: true }],
    ['!= true on checkbox', F.done, '!=', true, { operator: 'is', value: false }],
    ['!= false on checkbox', F.done, '!=', false, { operator: 'is', value: true }],
    ['IS NULL on checkbox', F.done, 'IS NULL', null, { operator: 'is', value: null }],
    ['IS NOT NULL on checkbox', F.done, 'IS NOT NULL', null, { operator: 'is', value: true }],
    ['IN on singleSelect', F.status, 'IN', ['a'], { operator: 'isAnyOf', value: ['a'] }],
    ['NOT IN on singleSelect, one value', F.status, 'NOT IN', 'a', { operator: 'isNoneOf', value: ['a'] }],
    ['= on multipleSelect', F.tags, '=', 'a', { operator: 'isExactly', value: ['a'] }],
    ['HAS on multipleSelect', F.tags, 'HAS', 'a', { operator: 'hasAllOf', value: ['a'] }],
    ['IN on multipleSelect', F.tags, 'IN', ['a', 'b'], { operator: 'hasAnyOf', value: ['a', 'b'] }],
    ['NOT IN on multiple users', F.team, 'NOT IN', ['Me'], { operator: 'hasNoneOf', value: ['Me'] }],
    ['= on a user', F.owner, '=', 'Me', { operator: 'is', value: 'Me' }],
    ['LIKE on a single link', F.parent, 'LIKE', 'al', { operator: 'contains', value: 'al' }],
    ['NOT LIKE on links', F.kids, 'NOT LIKE', 'al', { operator: 'doesNotContain', value: 'al' }],
    ['IS NULL on attachment', F.files, 'IS NULL', null, { operator: 'isEmpty', value: null }],
  ])('maps the symbol of %s', (_title, field, symbol, value, expected) => {
    const resolved = resolveFilter(
      { conjunction: 'and', filterSet: [{ fieldId: field.name, operator: symbol, value, isSymbol: true }] },
      FIELDS,
    );
    expect(resolved?.filterSet[0]).toMatchObject({ fieldId: field.id, ...expected });
    expect(resolved?.filterSet[0]).not.toHaveProperty('isSymbol');
  });

  it('a symbol item filters like its operator', () => {
    const symbol = (fieldId: string, operator: string, value: unknown) => ({
      conjunction: 'and',
      filterSet: [{ fieldId, operator, value, isSymbol: true }],
    });
    expect(matching(symbol('Count', '>', 2.49))).toEqual(ids(2, 6, 7, 8, 10));
    expect(matching(symbol('Tags', 'HAS', ['a', 'b']))).toEqual(ids(2, 3, 6));
    expect(matching(symbol('Done', 'IS NULL', null))).toEqual(allBut(...ids(1, 6, 7)));
    expect(matching(symbol('Name', 'LIKE', '%app%'))).toEqual(ids(1, 2, 11));
  });
});

describe('every 400', () => {
  const item = (fieldId: string, operator: unknown, value?: unknown, more: Record<string, unknown> = {}) => ({
    conjunction: 'and',
    filterSet: [{ fieldId, operator, ...(value === undefined ? {} : { value }), ...more }],
  });
  const nested = (depth: number): unknown =>
    depth === 0
      ? { fieldId: 'Name', operator: 'isEmpty', value: null }
      : { conjunction: 'and', filterSet: [nested(depth - 1)] };

  it.each<[string, unknown, string]>([
    ['a top level that is not an object', 'Name', 'filter: must be an object {conjunction, filterSet}'],
    ['a top level list', [], 'filter: must be an object {conjunction, filterSet}'],
    [
      'a top-level bare item',
      { fieldId: 'Name', operator: 'isEmpty', value: null },
      'filter.conjunction: must be "and" or "or"',
    ],
    ['a bad conjunction', { conjunction: 'xor', filterSet: [] }, 'filter.conjunction: must be "and" or "or"'],
    ['a missing filterSet', { conjunction: 'and' }, 'filter.filterSet: must be a list'],
    [
      'a filterSet that is no list',
      { conjunction: 'and', filterSet: {} },
      'filter.filterSet: must be a list',
    ],
    [
      'a member that is no object',
      { conjunction: 'and', filterSet: [3] },
      'filter.filterSet.0: must be a filter item {fieldId, operator, value} or a group {conjunction, filterSet}',
    ],
    [
      'a nested bad conjunction',
      { conjunction: 'and', filterSet: [{ conjunction: 'nor', filterSet: [] }] },
      'filter.filterSet.0.conjunction: must be "and" or "or"',
    ],
    [
      'a missing fieldId',
      { conjunction: 'and', filterSet: [{ operator: 'is', value: 1 }] },
      'filter.filterSet.0.fieldId: must be a field id or name',
    ],
    ['a missing operator', item('Name', undefined, 'x'), 'filter.filterSet.0.operator: must be text'],
    ['an unknown field name', item('Nope', 'is', 'x'), 'filter.filterSet.0.fieldId: field "Nope" not found'],
    [
      'an unknown field id',
      item('fldAAAAAAAAAAAAAAAA', 'is', 'x'),
      'filter.filterSet.0.fieldId: field "fldAAAAAAAAAAAAAAAA" not found',
    ],
    [
      'an unknown operator',
      item('Name', 'startsWith', 'x'),
      'filter.filterSet.0.operator: "startsWith" is not allowed on text field "Name"; allowed: is, isNot, contains, doesNotContain, isEmpty, isNotEmpty',
    ],
    [
      'contains on a number',
      item('Count', 'contains', 1),
      'filter.filterSet.0.operator: "contains" is not allowed on number field "Count"; allowed: is, isNot, isGreater, isGreaterEqual, isLess, isLessEqual, isEmpty, isNotEmpty',
    ],
    [
      'isNot on a checkbox',
      item('Done', 'isNot', true),
      'filter.filterSet.0.operator: "isNot" is not allowed on checkbox field "Done"; allowed: is',
    ],
    [
      'isEmpty on a checkbox',
      item('Done', 'isEmpty', null),
      'filter.filterSet.0.operator: "isEmpty" is not allowed on checkbox field "Done"; allowed: is',
    ],
    [
      'isGreater on a date',
      item('When', 'isGreater', utc('today')),
      'filter.filterSet.0.operator: "isGreater" is not allowed on date field "When"; allowed: is, isNot, isWithIn, isBefore, isAfter, isOnOrBefore, isOnOrAfter, isEmpty, isNotEmpty',
    ],
    [
      'hasAnyOf on a singleSelect',
      item('Status', 'hasAnyOf', ['a']),
      'filter.filterSet.0.operator: "hasAnyOf" is not allowed on singleSelect field "Status"; allowed: is, isNot, isAnyOf, isNoneOf, isEmpty, isNotEmpty',
    ],
    [
      'is on a multipleSelect',
      item('Tags', 'is', 'a'),
      'filter.filterSet.0.operator: "is" is not allowed on multipleSelect field "Tags"; allowed: hasAnyOf, hasAllOf, isExactly, hasNoneOf, isEmpty, isNotEmpty',
    ],
    [
      'contains on multiple users',
      item('Team', 'contains', 'a'),
      'filter.filterSet.0.operator: "contains" is not allowed on multipleUser field "Team"; allowed: hasAnyOf, hasAllOf, isExactly, hasNoneOf, isEmpty, isNotEmpty',
    ],
    [
      'contains on a single user',
      item('Owner', 'contains', 'a'),
      'filter.filterSet.0.operator: "contains" is not allowed on singleUser field "Owner"; allowed: is, isNot, isAnyOf, isNoneOf, isEmpty, isNotEmpty',
    ],
    [
      'is on links',
      item('Kids', 'is', ALPHA),
      'filter.filterSet.0.operator: "is" is not allowed on multipleLink field "Kids"; allowed: hasAnyOf, hasAllOf, isExactly, hasNoneOf, isEmpty, isNotEmpty, contains, doesNotContain',
    ],
    [
      'hasAnyOf on a single link',
      item('Parent', 'hasAnyOf', [ALPHA]),
      'filter.filterSet.0.operator: "hasAnyOf" is not allowed on singleLink field "Parent"; allowed: is, isNot, isAnyOf, isNoneOf, contains, doesNotContain, isEmpty, isNotEmpty',
    ],
    [
      'is on an attachment',
      item('Files', 'is', 'x'),
      'filter.filterSet.0.operator: "is" is not allowed on attachment field "Files"; allowed: isEmpty, isNotEmpty',
    ],
    ['isEmpty with a value', item('Name', 'isEmpty', 'x'), 'filter.filterSet.0.value: isEmpty takes null'],
    [
      'isNotEmpty with a list',
      item('Tags', 'isNotEmpty', []),
      'filter.filterSet.0.value: isNotEmpty takes null',
    ],
    [
      'isAnyOf with one value',
      item('Status', 'isAnyOf', 'light'),
      'filter.filterSet.0.value: isAnyOf takes a non-empty list',
    ],
    [
      'hasAllOf with an empty list',
      item('Tags', 'hasAllOf', []),
      'filter.filterSet.0.value: hasAllOf takes a non-empty list',
    ],
    [
      'isExactly with an object',
      item('Tags', 'isExactly', { a: 1 }),
      'filter.filterSet.0.value: isExactly takes a non-empty list',
    ],
    [
      'a list holding null',
      item('Tags', 'hasAnyOf', ['a', null]),
      'filter.filterSet.0.value.1: expected text',
    ],
    [
      'a list holding a number for a select',
      item('Tags', 'hasAnyOf', [1]),
      'filter.filterSet.0.value.0: expected non-empty text',
    ],
    ['a list holding a list', item('Owner', 'isAnyOf', [['x']]), 'filter.filterSet.0.value.0: expected text'],
    [
      'is with a list',
      item('Name', 'is', ['a']),
      'filter.filterSet.0.value: is takes a single value, not a list',
    ],
    ['text with a boolean', item('Name', 'contains', true), 'filter.filterSet.0.value: expected text'],
    ['text with an object', item('Name', 'is', { a: 1 }), 'filter.filterSet.0.value: expected text'],
    [
      'number with non-numeric text',
      item('Count', 'isGreater', '12abc'),
      'filter.filterSet.0.value: expected a number or numeric text',
    ],
    [
      'number with a boolean',
      item('Count', 'is', true),
      'filter.filterSet.0.value: expected a number or numeric text',
    ],
    [
      'checkbox with text',
      item('Done', 'is', 'true'),
      'filter.filterSet.0.value: expected true, false or null',
    ],
    [
      'singleSelect with a number',
      item('Status', 'is', 1),
      'filter.filterSet.0.value: expected non-empty text',
    ],
    [
      'user with an object',
      item('Owner', 'is', { id: alice.id }),
      'filter.filterSet.0.value: expected non-empty text',
    ],
    [
      'date with text',
      item('When', 'is', '2026-03-01'),
      'filter.filterSet.0.value: a date filter takes {mode, timeZone, numberOfDays?, exactDate?}',
    ],
    [
      'date with an unknown mode',
      item('When', 'is', utc('someday')),
      'filter.filterSet.0.value.mode: must be one of today, tomorrow, yesterday, oneWeekAgo, oneWeekFromNow, oneMonthAgo, oneMonthFromNow, daysAgo, daysFromNow, exactDate with is',
    ],
    [
      'isWithIn with a day mode',
      item('When', 'isWithIn', utc('today')),
      'filter.filterSet.0.value.mode: must be one of pastWeek, pastMonth, pastYear, nextWeek, nextMonth, nextYear, pastNumberOfDays, nextNumberOfDays with isWithIn (today is not allowed with isWithIn)',
    ],
    [
      'is with a span mode',
      item('When', 'is', utc('pastWeek')),
      'filter.filterSet.0.value.mode: must be one of today, tomorrow, yesterday, oneWeekAgo, oneWeekFromNow, oneMonthAgo, oneMonthFromNow, daysAgo, daysFromNow, exactDate with is (pastWeek is not allowed with is)',
    ],
    [
      'daysAgo without numberOfDays',
      item('When', 'is', utc('daysAgo')),
      'filter.filterSet.0.value.numberOfDays: mode daysAgo needs numberOfDays',
    ],
    [
      'pastNumberOfDays without numberOfDays',
      item('When', 'isWithIn', utc('pastNumberOfDays', { numberOfDays: null })),
      'filter.filterSet.0.value.numberOfDays: mode pastNumberOfDays needs numberOfDays',
    ],
    [
      'a fractional numberOfDays',
      item('When', 'is', utc('daysFromNow', { numberOfDays: 1.5 })),
      'filter.filterSet.0.value.numberOfDays: must be a whole number from 0 to 100000',
    ],
    [
      'a negative numberOfDays',
      item('When', 'is', utc('daysFromNow', { numberOfDays: -1 })),
      'filter.filterSet.0.value.numberOfDays: must be a whole number from 0 to 100000',
    ],
    [
      'numberOfDays as text',
      item('When', 'isWithIn', utc('nextNumberOfDays', { numberOfDays: '2' })),
      'filter.filterSet.0.value.numberOfDays: must be a whole number from 0 to 100000',
    ],
    [
      'exactDate without exactDate',
      item('When', 'is', utc('exactDate')),
      'filter.filterSet.0.value.exactDate: mode exactDate needs exactDate',
    ],
    [
      'an unreadable exactDate',
      item('When', 'isBefore', utc('exactDate', { exactDate: '2026-02-30' })),
      'filter.filterSet.0.value.exactDate: must be a date (ISO 8601, e.g. 2026-03-01 or 2026-03-01T00:00:00.000Z)',
    ],
    [
      'exactDate now',
      item('When', 'isBefore', utc('exactDate', { exactDate: 'now' })),
      'filter.filterSet.0.value.exactDate: must be a date (ISO 8601, e.g. 2026-03-01 or 2026-03-01T00:00:00.000Z)',
    ],
    [
      'an unknown time zone',
      item('When', 'is', { mode: 'today', timeZone: 'Mars/Olympus' }),
      'filter.filterSet.0.value.timeZone: "Mars/Olympus" is not an IANA time zone',
    ],
    [
      'a missing time zone',
      item('When', 'is', { mode: 'today' }),
      'filter.filterSet.0.value.timeZone: must be an IANA time zone name',
    ],
    [
      'an empty time zone',
      item('When', 'is', { mode: 'today', timeZone: '' }),
      'filter.filterSet.0.value.timeZone: "" is not an IANA time zone',
    ],
    [
      'an unknown symbol',
      item('Count', '~', 1, { isSymbol: true }),
      'filter.filterSet.0.operator: "~" is not allowed on number field "Count"; allowed: =, !=, >, >=, <, <=, IS NULL, IS NOT NULL',
    ],
    [
      'LIKE on a date',
      item('When', 'LIKE', 'x', { isSymbol: true }),
      'filter.filterSet.0.operator: "LIKE" is not allowed on date field "When"; allowed: =, !=, >, >=, <, <=, IS NULL, IS NOT NULL',
    ],
    [
      '!= on a multipleSelect',
      item('Tags', '!=', 'a', { isSymbol: true }),
      'filter.filterSet.0.operator: "!=" is not allowed on multipleSelect field "Tags"; allowed: =, HAS, IN, NOT IN, IS NULL, IS NOT NULL',
    ],
    [
      'a checkbox symbol with text',
      item('Done', '=', 'yes', { isSymbol: true }),
      'filter.filterSet.0.value: expected true, false or null',
    ],
    [
      'a symbol date with unreadable text',
      item('When', '=', 'soon', { isSymbol: true }),
      'filter.filterSet.0.value.exactDate: must be a date (ISO 8601, e.g. 2026-03-01 or 2026-03-01T00:00:00.000Z)',
    ],
    [
      'groups nested too deep',
      nested(10),
      'filter.filterSet.0.filterSet.0.filterSet.0.filterSet.0.filterSet.0.filterSet.0.filterSet.0.filterSet.0.filterSet.0: nested too deep (at most 8 levels)',
    ],
    [
      'too many items',
      {
        conjunction: 'or',
        filterSet: Array.from({ length: 500 }, () => ({ fieldId: 'Name', operator: 'isEmpty', value: null })),
      },
      'filter.filterSet.499: a filter holds at most 500 items and groups',
    ],
    [
      'too long a list',
      item(
        'Tags',
        'hasAnyOf',
        Array.from({ length: 1001 }, (_, i) => `t${i}`),
      ),
      'filter.filterSet.0.value: at most 1000 values',
    ],
    [
      'too long a text',
      item('Name', 'contains', 'x'.repeat(10_001)),
      'filter.filterSet.0.value: at most 10000 characters',
    ],
  ])('%s', (_title, raw, message) => {
    const error = validationError(() => resolveFilter(raw, FIELDS));
    expect(error.status).toBe(400);
    expect(error.message).toBe(message);
  });

  it('names the parameter it was given', () => {
    expect(
      validationError(() => resolveFilter(one({ id: '', name: 'Nope' }, 'is', 1), FIELDS, 'viewFilter'))
        .message,
    ).toBe('viewFilter.filterSet.0.fieldId: field "Nope" not found');
  });

  it('accepts the limits themselves', () => {
    expect(() => resolveFilter(nested(9), FIELDS)).not.toThrow();
    const many = Array.from({ length: 499 }, () => ({ fieldId: 'Name', operator: 'isEmpty', value: null }));
    expect(() => resolveFilter({ conjunction: 'or', filterSet: many }, FIELDS)).not.toThrow();
    expect(() =>
      resolveFilter(
        item(
          'Tags',
          'hasAnyOf',
          Array.from({ length: 1000 }, (_, i) => `t${i}`),
        ),
        FIELDS,
      ),
    ).not.toThrow();
    expect(() =>
      resolveFilter(item('When', 'isWithIn', utc('nextNumberOfDays', { numberOfDays: 100_000 })), FIELDS),
    ).not.toThrow();
  });
});

describe('compileFilter on stale filters', () => {
  it('resolveFilter with dropInvalid leaves out the members that do not pass (stale view filters)', () => {
    const stale = {
      conjunction: 'and',
      filterSet: [
        { fieldId: 'Gone', operator: 'is', value: 'x' },
        { fieldId: 'Team', operator: 'is', value: 'Me' },
        {
          conjunction: 'or',
          filterSet: [
            { fieldId: 'Count', operator: 'contains', value: 1 },
            { fieldId: 'Count', operator: 'isGreater', value: 2 },
          ],
        },
        { fieldId: 'Status', operator: 'is', value: 'light' },
      ],
    };
    expect(validationError(() => resolveFilter(stale, FIELDS)).message).toBe(
      'filter.filterSet.0.fieldId: field "Gone" not found',
    );
    const pruned = resolveFilter(stale, FIELDS, 'view filter', { dropInvalid: true });
    expect(pruned).toEqual({
      conjunction: 'and',
      filterSet: [
        { conjunction: 'or', filterSet: [{ fieldId: F.count.id, operator: 'isGreater', value: 2 }] },
        { fieldId: F.status.id, operator: 'is', value: 'light' },
      ],
    });
    expect(ROWS.filter(compileFilter(pruned, CTX)).map((r) => r.id)).toEqual([]);
    expect(
      validationError(() =>
        resolveFilter({ conjunction: 'nor', filterSet: [] }, FIELDS, 'view filter', { dropInvalid: true }),
      ).message,
    ).toBe('view filter.conjunction: must be "and" or "or"');
  });

  it('an item on a field the table no longer has is a 400', () => {
    const filter: FilterGroup = {
      conjunction: 'and',
      filterSet: [{ fieldId: 'fldGoneAAAAAAAAAAAA', operator: 'is', value: 'x' }],
    };
    expect(validationError(() => compileFilter(filter, CTX)).message).toBe(
      'filter: field "fldGoneAAAAAAAAAAAA" not found',
    );
  });

  it('a user filter written while the field was single still evaluates on a multiple field', () => {
    const filter: FilterGroup = {
      conjunction: 'and',
      filterSet: [{ fieldId: F.team.id, operator: 'is', value: 'Me' }],
    };
    expect(ROWS.filter(compileFilter(filter, CTX)).map((r) => r.id)).toEqual(ids(1, 3, 5));
  });

  it('an operator the kind cannot evaluate is a 400', () => {
    const filter: FilterGroup = {
      conjunction: 'and',
      filterSet: [{ fieldId: F.count.id, operator: 'contains', value: 1 }],
    };
    expect(validationError(() => compileFilter(filter, CTX)).message).toMatch(
      /^filter: "contains" is not allowed on number field "Count"/,
    );
  });
});

describe('filterFieldIds and andFilters', () => {
  const a: FilterGroup = {
    conjunction: 'and',
    filterSet: [{ fieldId: F.name.id, operator: 'isEmpty', value: null }],
  };
  const b: FilterGroup = {
    conjunction: 'or',
    filterSet: [
      { fieldId: F.count.id, operator: 'is', value: 1 },
      { conjunction: 'and', filterSet: [{ fieldId: F.tags.id, operator: 'hasAnyOf', value: ['a'] }] },
      { fieldId: F.count.id, operator: 'isEmpty', value: null },
    ],
  };

  it('lists every field a filter reads, nested ones included', () => {
    expect(filterFieldIds(b)).toEqual(new Set([F.count.id, F.tags.id]));
    expect(filterFieldIds(null)).toEqual(new Set());
  });

  it('ands the filters given, leaving out absent and empty ones', () => {
    expect(andFilters(null, undefined, { conjunction: 'or', filterSet: [] })).toBeNull();
    expect(andFilters(a, null)).toBe(a);
    expect(andFilters(a, b)).toEqual({ conjunction: 'and', filterSet: [a, b] });
    expect(ROWS.filter(compileFilter(andFilters(a, b), CTX)).map((r) => r.id)).toEqual(ids(4));
  });
});
