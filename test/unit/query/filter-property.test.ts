/**
 * Random filters over random rows: the compiled filter must agree with a deliberately simple
 * reference evaluator written here from the contract's words (listing.md section 2). The
 * reference compares dates as calendar days (`YYYY-MM-DD` text in the value's zone), the engine as
 * instants: two ways of saying the same thing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { compileFilter, resolveFilter } from '#shared/query/filter.ts';
import type { Row } from '#shared/query/query-types.ts';
import { parseTql } from '#shared/query/tql.ts';
import { ALPHA, alice, BETA, bob, CTX, F, FIELDS, GAMMA, NOW, sam } from './filter-fixture.ts';

// ---------------------------------------------------------------------------------------------
// The reference evaluator

type Kind =
  | 'text'
  | 'number'
  | 'checkbox'
  | 'date'
  | 'select'
  | 'multi'
  | 'user'
  | 'users'
  | 'link'
  | 'links'
  | 'file';

const KIND: Record<string, Kind> = {
  [F.name.id]: 'text',
  [F.notes.id]: 'text',
  [F.count.id]: 'number',
  [F.stars.id]: 'number',
  [F.id.id]: 'number',
  [F.done.id]: 'checkbox',
  [F.when.id]: 'date',
  [F.created.id]: 'date',
  [F.status.id]: 'select',
  [F.tags.id]: 'multi',
  [F.owner.id]: 'user',
  [F.team.id]: 'users',
  [F.createdBy.id]: 'user',
  [F.parent.id]: 'link',
  [F.kids.id]: 'links',
  [F.files.id]: 'file',
};

/** The operators of listing.md's table, per kind. */
const OPERATORS: Record<Kind, string[]> = {
  text: ['is', 'isNot', 'contains', 'doesNotContain', 'isEmpty', 'isNotEmpty'],
  number: ['is', 'isNot', 'isGreater', 'isGreaterEqual', 'isLess', 'isLessEqual', 'isEmpty', 'isNotEmpty'],
  checkbox: ['is'],
  date: [
    'is',
    'isNot',
    'isWithIn',
    'isBefore',
    'isAfter',
    'isOnOrBefore',
    'isOnOrAfter',
    'isEmpty',
    'isNotEmpty',
  ],
  select: ['is', 'isNot', 'isAnyOf', 'isNoneOf', 'isEmpty', 'isNotEmpty'],
  multi: ['hasAnyOf', 'hasAllOf', 'isExactly', 'hasNoneOf', 'isEmpty', 'isNotEmpty'],
  user: ['is', 'isNot', 'isAnyOf', 'isNoneOf', 'isEmpty', 'isNotEmpty'],
  users: ['hasAnyOf', 'hasAllOf', 'isExactly', 'hasNoneOf', 'isEmpty', 'isNotEmpty'],
  link: ['is', 'isNot', 'isAnyOf', 'isNoneOf', 'contains', 'doesNotContain', 'isEmpty', 'isNotEmpty'],
  links: [
    'hasAnyOf',
    'hasAllOf',
    'isExactly',
    'hasNoneOf',
    'contains',
    'doesNotContain',
    'isEmpty',
    'isNotEmpty',
  ],
  file: ['isEmpty', 'isNotEmpty'],
};

const TITLES: Record<string, string> = { [ALPHA]: 'Alpha', [BETA]: 'Beta', [GAMMA]: 'Gamma' };

const blank = (cell: unknown) => cell === undefined || (Array.isArray(cell) && cell.length === 0);

/** "YYYY-MM-DD" of an instant in a zone. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
const dayText = (ms: number, timeZone: string): string => {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(timeZone, format);
  }
  return format.format(ms);
};

const parts = (day: string) => day.split('-').map(Number) as [number, number, number];
const text = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(y, m - 1, d);
  return date.toISOString().slice(0, 10);
};
const plusDays = (day: string, n: number) => {
  const [y, m, d] = parts(day);
  return text(y, m, d + n);
};
const plusMonths = (day: string, n: number) => {
  const [y, m, d] = parts(day);
  const lastDay = new Date(Date.UTC(y, m - 1 + n + 1, 0)).getUTCDate();
  return text(y, m + n, Math.min(d, lastDay));
};

/** The first and last day a date value names, as "YYYY-MM-DD". */
const days = (v: {
  mode: string;
  timeZone: string;
  numberOfDays?: number;
  exactDate?: string;
}): [string, string] => {
  const today = dayText(NOW.getTime(), v.timeZone);
  const n = v.numberOfDays ?? 0;
  const one = (d: string): [string, string] => [d, d];
  switch (v.mode) {
    case 'today':
      return one(today);
    case 'tomorrow':
      return one(plusDays(today, 1));
    case 'yesterday':
      return one(plusDays(today, -1));
    case 'oneWeekAgo':
      return one(plusDays(today, -7));
    case 'oneWeekFromNow':
      return one(plusDays(today, 7));
    case 'oneMonthAgo':
      return one(plusMonths(today, -1));
    case 'oneMonthFromNow':
      return one(plusMonths(today, 1));
    case 'daysAgo':
      return one(plusDays(today, -n));
    case 'daysFromNow':
      return one(plusDays(today, n));
    case 'exactDate':
      return one(v.exactDate as string);
    case 'pastWeek':
      return [plusDays(today, -7), today];
    case 'pastMonth':
      return [plusMonths(today, -1), today];
    case 'pastYear':
      return [plusMonths(today, -12), today];
    case 'nextWeek':
      return [today, plusDays(today, 7)];
    case 'nextMonth':
      return [today, plusMonths(today, 1)];
    case 'nextYear':
      return [today, plusMonths(today, 12)];
    case 'pastNumberOfDays':
      return [plusDays(today, -n), today];
    default:
      return [today, plusDays(today, n)];
  }
};

/** Names (select), ids (users, links) of a cell. */
const keysOf = (kind: Kind, cell: unknown): string[] => {
  if (cell === undefined) return [];
  const list = Array.isArray(cell) ? cell : [cell];
  return list.map((x) => (kind === 'user' || kind === 'users' ? (x as { id: string }).id : (x as string)));
};

type RawItem = { fieldId: string; operator: string; value: unknown };
type RawGroup = { conjunction: 'and' | 'or'; filterSet: (RawItem | RawGroup)[] };

const fieldOf = (ref: string): Field =>
  FIELDS.find((f) => f.id === ref) ?? (FIELDS.find((f) => f.name === ref) as Field);

const referenceItem = (item: RawItem, row: Row): boolean => {
  const field = fieldOf(item.fieldId);
  const kind = KIND[field.id] as Kind;
  const cell = row.cells[field.id];
  const op = item.operator;
  let value = item.value;
  if (op === 'isEmpty') return blank(cell);
  if (op === 'isNotEmpty') return !blank(cell);
  if (kind === 'checkbox') return value === true ? cell === true : cell !== true;
  if (value === '' && (kind === 'text' || kind === 'number' || op === 'contains' || op === 'doesNotContain'))
    value = null;
  if (value === null || value === undefined) return true;
  const negate = (o: string) => !referenceItem({ ...item, operator: o, value }, row);
  switch (kind) {
    case 'text': {
      const have = cell === undefined ? undefined : String(cell).toLowerCase();
      const want = String(value).toLowerCase();
      if (op === 'is') return have === want;
      if (op === 'isNot') return negate('is');
      if (op === 'contains') return have?.includes(want) === true;
      return negate('contains');
    }
    case 'number': {
      if (op === 'isNot') return negate('is');
      if (typeof cell !== 'number') return false;
      const want = Number(value);
      if (op === 'is') return cell === want;
      if (op === 'isGreater') return cell > want;
      if (op === 'isGreaterEqual') return cell >= want;
      if (op === 'isLess') return cell < want;
      return cell <= want;
    }
    case 'date': {
      if (op === 'isNot') return negate('is');
      if (cell === undefined) return false;
      const v = value as { mode: string; timeZone: string };
      const [first, last] = days(v);
      const day = dayText(Date.parse(cell as string), v.timeZone);
      if (op === 'is' || op === 'isWithIn') return day >= first && day <= last;
      if (op === 'isBefore') return day < first;
      if (op === 'isAfter') return day > last;
      if (op === 'isOnOrBefore') return day <= last;
      return day >= first;
    }
    default: {
      const me = (x: unknown) =>
        String(x).toLowerCase() === 'me' && (kind === 'user' || kind === 'users') ? alice.id : String(x);
      const have = keysOf(kind, cell);
      const want = (Array.isArray(value) ? value : [value]).map(me);
      switch (op) {
        case 'is':
          return have.includes(want[0] as string);
        case 'isNot':
          return negate('is');
        case 'isAnyOf':
        case 'hasAnyOf':
          return have.some((k) => want.includes(k));
        case 'isNoneOf':
        case 'hasNoneOf':
          return negate('hasAnyOf');
        case 'hasAllOf':
          return have.length > 0 && want.every((w) => have.includes(w));
        case 'isExactly':
          return (
            have.length > 0 && want.every((w) => have.includes(w)) && have.every((h) => want.includes(h))
          );
        case 'contains':
          return have.some((id) => (TITLES[id] ?? '').toLowerCase().includes(String(value).toLowerCase()));
        default:
          return negate('contains');
      }
    }
  }
};

const reference = (node: RawItem | RawGroup, row: Row): boolean => {
  if (!('filterSet' in node)) return referenceItem(node, row);
  if (node.filterSet.length === 0) return true;
  return node.conjunction === 'and'
    ? node.filterSet.every((child) => reference(child, row))
    : node.filterSet.some((child) => reference(child, row));
};

// ---------------------------------------------------------------------------------------------
// Random rows and filters

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const someOf = <T>(items: T[]) => fc.subarray(items, { minLength: 1 });

/** An instant at a midnight of a test zone (UTC, New York, Tokyo, Berlin, Kiritimati) within 8 days of now, or the ms before. */
const edge = fc
  .tuple(fc.integer({ min: -8, max: 8 }), fc.constantFrom(0, 4, 5, 10, 15, 23), fc.constantFrom(0, -1))
  .map(([d, h, ms]) => new Date(Date.UTC(2026, 2, 10 + d, h) + ms).toISOString());

/** Instants mostly within 8 days of now, at a midnight of a test zone (UTC, New York, Tokyo, Kiritimati) or its last ms. */
const instant = fc
  .tuple(
    fc.oneof(fc.integer({ min: -8, max: 8 }), fc.integer({ min: -400, max: 400 })),
    fc.constantFrom(0, 4, 5, 10, 15, 23),
    fc.constantFrom(0, -1, 1234567),
  )
  .map(([d, h, ms]) => new Date(Date.UTC(2026, 2, 10 + d, h) + ms).toISOString());

const rowArb = (n: number, when = instant) =>
  fc
    .record({
      name: maybe(fc.constantFrom('Apple', 'apple pie', 'APPLE', 'banana', 'x', 'Ñandú')),
      notes: maybe(fc.constantFrom('one\ntwo', 'Apple')),
      count: maybe(fc.constantFrom(-2, -0.5, 0, 1, 1.5, 2, 10)),
      stars: maybe(fc.integer({ min: 1, max: 5 })),
      done: maybe(fc.constant(true)),
      when: maybe(when),
      created: when,
      status: maybe(fc.constantFrom('light', 'medium', 'heavy', 'Light')),
      tags: maybe(someOf(['a', 'b', 'c'])),
      owner: maybe(fc.constantFrom(alice, bob, sam)),
      team: maybe(someOf([alice, bob, sam])),
      createdBy: fc.constantFrom(alice, bob, sam),
      parent: maybe(fc.constantFrom(ALPHA, BETA, GAMMA).map((id) => [id])),
      kids: maybe(someOf([ALPHA, BETA, GAMMA])),
      files: maybe(fc.constant([{ id: 'actAAAAAAAAAAAAAAAA', name: 'a.png', token: 't' }])),
    })
    .map((cells): Row => {
      const row: Row = { id: `r${n}`, autoNumber: n, cells: { [F.id.id]: n } };
      for (const [key, value] of Object.entries(cells)) {
        if (value !== undefined) row.cells[F[key as keyof typeof F].id] = value as Row['cells'][string];
      }
      return row;
    });

const rowsArb = fc
  .integer({ min: 0, max: 25 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => rowArb(i + 1))));

const ZONES = ['UTC', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin', 'Pacific/Kiritimati'];
const DAY_MODES = [
  'today',
  'tomorrow',
  'yesterday',
  'oneWeekAgo',
  'oneWeekFromNow',
  'oneMonthAgo',
  'oneMonthFromNow',
  'daysAgo',
  'daysFromNow',
  'exactDate',
];
const RANGE_MODES = [
  'pastWeek',
  'pastMonth',
  'pastYear',
  'nextWeek',
  'nextMonth',
  'nextYear',
  'pastNumberOfDays',
  'nextNumberOfDays',
];

const NEEDS_DAYS = ['daysAgo', 'daysFromNow', 'pastNumberOfDays', 'nextNumberOfDays'];

const dateValueArb = (operator: string, spread = 40) =>
  fc
    .record({
      mode: fc.constantFrom(...(operator === 'isWithIn' ? RANGE_MODES : DAY_MODES)),
      timeZone: fc.constantFrom(...ZONES),
      numberOfDays: fc.integer({ min: 0, max: spread }),
      exactDate: fc.integer({ min: -spread, max: spread }).map((d) => plusDays('2026-03-10', d)),
    })
    .map((v) => ({
      mode: v.mode,
      timeZone: v.timeZone,
      ...(NEEDS_DAYS.includes(v.mode) ? { numberOfDays: v.numberOfDays } : {}),
      ...(v.mode === 'exactDate' ? { exactDate: v.exactDate } : {}),
    }));

const LIST = ['isAnyOf', 'isNoneOf', 'hasAnyOf', 'hasAllOf', 'hasNoneOf', 'isExactly'];

const valueArb = (kind: Kind, operator: string): fc.Arbitrary<unknown> => {
  if (operator === 'isEmpty' || operator === 'isNotEmpty') return fc.constant(null);
  if (kind === 'checkbox') return fc.constantFrom(true, false, null);
  const scalar: fc.Arbitrary<unknown> =
    kind === 'text'
      ? fc.constantFrom('app', 'APPLE', 'an', '', 'x', 'pie', 7, 'ñan')
      : kind === 'number'
        ? fc.constantFrom(-1, 0, 1, 1.5, '2', ' 10 ', 2, '')
        : kind === 'date'
          ? dateValueArb(operator)
          : kind === 'select'
            ? fc.constantFrom('light', 'Light', 'heavy', 'nope')
            : kind === 'multi'
              ? fc.constantFrom('a', 'b', 'c', 'A')
              : kind === 'user' || kind === 'users'
                ? fc.constantFrom('Me', 'me', alice.id, bob.id, sam.id)
                : operator === 'contains' || operator === 'doesNotContain'
                  ? fc.constantFrom('al', 'A', 'ta', 'zz', '')
                  : fc.constantFrom(ALPHA, BETA, GAMMA, 'recNopeNNNNNNNNNNNN');
  const value = LIST.includes(operator) ? fc.array(scalar, { minLength: 1, maxLength: 3 }) : scalar;
  return fc.option(value, { nil: null, freq: 20 });
};

const itemArb: fc.Arbitrary<RawItem> = fc
  .tuple(fc.constantFrom(...FIELDS), fc.boolean(), fc.nat())
  .chain(([field, byName, pick]) => {
    const kind = KIND[field.id] as Kind;
    const operators = OPERATORS[kind];
    const operator = operators[pick % operators.length] as string;
    return valueArb(kind, operator).map((value) => ({
      fieldId: byName ? field.name : field.id,
      operator,
      value,
    }));
  });

const { filter: filterArb } = fc.letrec<{ filter: RawGroup; node: RawItem | RawGroup }>((tie) => ({
  filter: fc.record({
    conjunction: fc.constantFrom('and' as const, 'or' as const),
    // mostly non-empty: an empty group matches everything and says little
    filterSet: fc.oneof(
      { weight: 9, arbitrary: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constant<(RawItem | RawGroup)[]>([]) },
    ),
  }),
  node: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'filter', withCrossShrink: true },
    itemArb,
    itemArb,
    itemArb,
    tie('filter'),
  ),
}));

describe('compileFilter agrees with the reference evaluator', () => {
  it('on random filters over random rows', () => {
    fc.assert(
      fc.property(rowsArb, filterArb, (rows, raw) => {
        const keep = compileFilter(resolveFilter(raw, FIELDS), CTX);
        const got = rows.filter(keep).map((r) => r.id);
        const want = rows.filter((r) => reference(raw, r)).map((r) => r.id);
        expect(got).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });

  it('on date items over instants at the edges of days', () => {
    const dateItem = fc
      .tuple(fc.constantFrom(F.when, F.created), fc.constantFrom(...OPERATORS.date))
      .chain(([field, operator]) =>
        (operator === 'isEmpty' || operator === 'isNotEmpty'
          ? fc.constant(null)
          : dateValueArb(operator, 8)
        ).map(
          (value): RawGroup => ({ conjunction: 'and', filterSet: [{ fieldId: field.id, operator, value }] }),
        ),
      );
    fc.assert(
      fc.property(fc.array(rowArb(1, edge), { minLength: 20, maxLength: 40 }), dateItem, (rows, raw) => {
        const keep = compileFilter(resolveFilter(raw, FIELDS), CTX);
        expect(rows.map((r) => keep(r))).toEqual(rows.map((r) => reference(raw, r)));
      }),
      { numRuns: 400 },
    );
  });

  it('resolving a resolved filter changes nothing (views store resolved filters)', () => {
    fc.assert(
      fc.property(filterArb, (raw) => {
        const once = resolveFilter(raw, FIELDS);
        expect(resolveFilter(once, FIELDS)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });
});

const ROW_ZERO: Row = { id: 'r0', autoNumber: 0, cells: {} };

describe('bad input is a 400, never anything else', () => {
  const only400 = (act: () => unknown) => {
    try {
      act();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
    }
  };

  it('any JSON as a filter', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const shaped = fc.record({
      conjunction: fc.oneof(fc.constantFrom('and', 'or'), json),
      filterSet: fc.array(
        fc.oneof(
          json,
          fc.record({
            fieldId: fc.oneof(fc.constantFrom(...FIELDS.map((f) => f.name)), json),
            operator: fc.oneof(
              fc.constantFrom(...new Set(Object.values(OPERATORS).flat())),
              fc.constantFrom('=', 'IN', 'HAS', 'IS NULL'),
              json,
            ),
            value: json,
            isSymbol: fc.boolean(),
          }),
        ),
        { maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(fc.oneof(json, shaped), (raw) => {
        only400(() => compileFilter(resolveFilter(raw, FIELDS), CTX)(ROW_ZERO));
      }),
      { numRuns: 1000 },
    );
  });

  it('any text, and any soup of query-language tokens, as filterByTql', () => {
    const token = fc.constantFrom(
      '{Name}',
      '{Count}',
      '{Tags}',
      '{When}',
      '{Done}',
      '{Nope}',
      '{',
      '}',
      '(',
      ')',
      ',',
      "'x'",
      '"y"',
      "'",
      '1',
      '-2.5',
      'AND',
      'OR',
      'NOT',
      'LIKE',
      'IN',
      'HAS',
      'IS',
      'NULL',
      'true',
      '=',
      '!=',
      '>=',
      '<',
      '\\',
    );
    const soup = fc.array(token, { maxLength: 12 }).map((t) => t.join(' '));
    fc.assert(
      fc.property(fc.oneof(fc.string(), soup), (text) => {
        only400(() => compileFilter(parseTql(text, FIELDS), CTX)(ROW_ZERO));
      }),
      { numRuns: 1000 },
    );
  });
});
