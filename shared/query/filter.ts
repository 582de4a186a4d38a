/**
 * Record filters (contract `listing.md` section 2): validation of a request's or a view's filter
 * (`resolveFilter`) and a compiled evaluator over in-memory rows (`compileFilter`). Pure: no AWS
 * import.
 *
 * Decisions the contract leaves open:
 * - The top level must be a group `{conjunction, filterSet}`; groups nest at most 8 deep below it,
 *   a filter holds at most 500 items and groups, a list value at most 1,000 elements and a text
 *   value at most 10,000 characters. Beyond that: 400.
 * - A missing `value` counts as `null`. An empty text (`""`) on a text or number field also counts
 *   as `null` (an input not filled in yet), so it matches everything.
 * - An item with a `null` value matches everything, also inside an `or` group (so that group
 *   matches everything), as the contract says.
 * - Text values may be numbers (compared as their text); number values may be numeric text;
 *   select, user and link values must be text (choice names, user ids or `"Me"` in any case,
 *   record ids). Values naming no choice, user or record are not an error: they match nothing.
 * - Date fields take a `DateValue`; `isWithIn` takes only the span modes (`pastWeek`…), every
 *   other date operator only the single-day modes. An `isSymbol` item may give a date as text: it
 *   becomes `{mode: "exactDate", exactDate, timeZone: <the field's zone>}`.
 * - Symbols on multi-valued fields: `=` is `isExactly`, `HAS` is `hasAllOf`, `IN` `hasAnyOf`,
 *   `NOT IN` `hasNoneOf`; a single value is taken as a one-element list. On a checkbox `!=`
 *   negates (`!= true` is `is false`), `IS NULL` is `is null` and `IS NOT NULL` is `is true`.
 * - `LIKE '%text%'` drops the `%` at either end (SQL habit): it means contains "text".
 * - A field's kind gives its filter kind (`FieldKind.query`); formula and rollup fields classify by
 *   `cellValueType` (`resultQuery`), lookups as the type they look up with their own
 *   multiplicity (`fieldQuery`).
 * - Multi-valued cells under text, number, date and checkbox operators compare item by item
 *   (computed.md 7): `is`, `contains`, comparisons and date ranges match when some item does,
 *   `isNot` and `doesNotContain` when no item does (empty cells too), checkbox `is true` when
 *   some item is true. Text items compare ignoring case, `contains` as a literal substring.
 * - Single and multiple user/link cells are both read as lists of ids, so a filter written while
 *   a user field was single still evaluates after it became multiple (and the reverse).
 */

import { ValidationError } from '#shared/core/errors.ts';
import { canonicalTimeZone, isoOf } from '#shared/core/format.ts';
import { fieldByRef } from '#shared/fields/field-names.ts';
import type { Field, QueryValueClass } from '#shared/fields/field-types.ts';
import { isRecord } from '#shared/fields/kind-helpers.ts';
import { type FieldQuery, fieldQuery } from '#shared/fields/query-facts.ts';
import {
  DAY_MODES,
  dateRange,
  exactDayOf,
  isDayMode,
  isRangeMode,
  MAX_NUMBER_OF_DAYS,
  NUMBER_OF_DAYS_MODES,
  RANGE_MODES,
} from './date-ranges.ts';
import type {
  DateValue,
  FilterGroup,
  FilterItem,
  FilterScalar,
  FilterValue,
  QueryContext,
  Row,
} from './query-types.ts';

/** How a field filters: which operators it allows and how its cells compare. */
export type FilterKind =
  | 'text'
  | 'number'
  | 'checkbox'
  | 'date'
  | 'singleSelect'
  | 'multipleSelect'
  | 'singleUser'
  | 'multipleUser'
  | 'singleLink'
  | 'multipleLink'
  | 'attachment';

/** The filter kind of each value class, for a single and for a multiple cell. */
const FILTER_KINDS: Readonly<Record<QueryValueClass, readonly [single: FilterKind, multiple: FilterKind]>> = {
  text: ['text', 'text'],
  number: ['number', 'number'],
  boolean: ['checkbox', 'checkbox'],
  dateTime: ['date', 'date'],
  select: ['singleSelect', 'multipleSelect'],
  user: ['singleUser', 'multipleUser'],
  link: ['singleLink', 'multipleLink'],
  attachment: ['attachment', 'attachment'],
};

/** The filter kind of a field's query facts (its value class, and for select, user and link whether it is multiple). */
export const filterKindFor = (query: Pick<FieldQuery, 'valueClass' | 'isMultiple'>): FilterKind =>
  FILTER_KINDS[query.valueClass][query.isMultiple ? 1 : 0];

/** The filter kind of a field (contract table in section 2), as its kind's query facts say. */
export const filterKindOf = (field: Field): FilterKind => filterKindFor(fieldQuery(field));

const EMPTINESS = ['isEmpty', 'isNotEmpty'] as const;
const SET_OPERATORS = ['hasAnyOf', 'hasAllOf', 'isExactly', 'hasNoneOf', ...EMPTINESS] as const;
const SINGLE_OPERATORS = ['is', 'isNot', 'isAnyOf', 'isNoneOf', ...EMPTINESS] as const;

/** The operators each kind allows (contract section 2), in the order error messages list them. */
export const OPERATORS_BY_KIND: Readonly<Record<FilterKind, readonly string[]>> = {
  text: ['is', 'isNot', 'contains', 'doesNotContain', ...EMPTINESS],
  number: ['is', 'isNot', 'isGreater', 'isGreaterEqual', 'isLess', 'isLessEqual', ...EMPTINESS],
  checkbox: ['is'],
  date: ['is', 'isNot', 'isWithIn', 'isBefore', 'isAfter', 'isOnOrBefore', 'isOnOrAfter', ...EMPTINESS],
  singleSelect: SINGLE_OPERATORS,
  multipleSelect: SET_OPERATORS,
  singleUser: SINGLE_OPERATORS,
  multipleUser: SET_OPERATORS,
  singleLink: ['is', 'isNot', 'isAnyOf', 'isNoneOf', 'contains', 'doesNotContain', ...EMPTINESS],
  multipleLink: [...SET_OPERATORS, 'contains', 'doesNotContain'],
  attachment: EMPTINESS,
};

/** Operators that take `null`. */
export const NULL_OPERATORS: readonly string[] = EMPTINESS;
/** Operators that take a non-empty list. */
export const LIST_OPERATORS: readonly string[] = [
  'isAnyOf',
  'isNoneOf',
  'hasAnyOf',
  'hasAllOf',
  'hasNoneOf',
  'isExactly',
];

/** The symbols of `isSymbol` items (query-language operators). */
export const FILTER_SYMBOLS = [
  '=',
  '!=',
  '>',
  '>=',
  '<',
  '<=',
  'LIKE',
  'NOT LIKE',
  'IN',
  'NOT IN',
  'HAS',
  'IS NULL',
  'IS NOT NULL',
] as const;
export type FilterSymbol = (typeof FILTER_SYMBOLS)[number];

const COMPARE_SYMBOLS: Partial<Record<FilterSymbol, string>> = { '=': 'is', '!=': 'isNot' };
const EMPTY_SYMBOLS: Partial<Record<FilterSymbol, string>> = {
  'IS NULL': 'isEmpty',
  'IS NOT NULL': 'isNotEmpty',
};
const SINGLE_SYMBOLS = { ...COMPARE_SYMBOLS, IN: 'isAnyOf', 'NOT IN': 'isNoneOf', ...EMPTY_SYMBOLS };
const SET_SYMBOLS = {
  '=': 'isExactly',
  HAS: 'hasAllOf',
  IN: 'hasAnyOf',
  'NOT IN': 'hasNoneOf',
  ...EMPTY_SYMBOLS,
};
const LIKE_SYMBOLS = { LIKE: 'contains', 'NOT LIKE': 'doesNotContain' };

/** Symbol → operator per kind (checkbox is special-cased: `!=` and `IS NULL` change the value). */
const SYMBOL_OPERATORS: Readonly<Record<FilterKind, Partial<Record<FilterSymbol, string>>>> = {
  text: { ...COMPARE_SYMBOLS, ...LIKE_SYMBOLS, ...EMPTY_SYMBOLS },
  number: {
    ...COMPARE_SYMBOLS,
    '>': 'isGreater',
    '>=': 'isGreaterEqual',
    '<': 'isLess',
    '<=': 'isLessEqual',
    ...EMPTY_SYMBOLS,
  },
  checkbox: { '=': 'is', '!=': 'is', 'IS NULL': 'is', 'IS NOT NULL': 'is' },
  date: {
    ...COMPARE_SYMBOLS,
    '>': 'isAfter',
    '>=': 'isOnOrAfter',
    '<': 'isBefore',
    '<=': 'isOnOrBefore',
    ...EMPTY_SYMBOLS,
  },
  singleSelect: SINGLE_SYMBOLS,
  multipleSelect: SET_SYMBOLS,
  singleUser: SINGLE_SYMBOLS,
  multipleUser: SET_SYMBOLS,
  singleLink: { ...SINGLE_SYMBOLS, ...LIKE_SYMBOLS },
  multipleLink: { ...SET_SYMBOLS, ...LIKE_SYMBOLS },
  attachment: EMPTY_SYMBOLS,
};

/** Groups nest at most this deep below the top level. */
export const MAX_FILTER_DEPTH = 8;
/** Items and groups in one filter, all levels together. */
export const MAX_FILTER_NODES = 500;
/** Elements of one list value. */
export const MAX_FILTER_LIST = 1000;
/** Characters of one text value. */
export const MAX_FILTER_TEXT = 10_000;

const fail = (path: string, message: string) => new ValidationError(`${path}: ${message}`);

const describeField = (field: Field, kind: FilterKind) => `${kind} field ${JSON.stringify(field.name)}`;

/** Text or a number as text (text fields); `""` counts as no value. */
const textValue = (value: unknown, path: string): string | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw fail(path, 'expected text');
  if (value.length > MAX_FILTER_TEXT) throw fail(path, `at most ${MAX_FILTER_TEXT} characters`);
  return value === '' ? null : value;
};

/** The number a value stands for: a number or numeric text; `""` counts as no value. */
const numberValue = (value: unknown, path: string): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    if (value.trim() === '') return null;
    const n = Number(value.trim());
    if (Number.isFinite(n)) return n;
  }
  throw fail(path, 'expected a number or numeric text');
};

/** Text naming a choice, user or record. */
const keyValue = (value: unknown, path: string): string => {
  if (typeof value !== 'string' || value === '') throw fail(path, 'expected non-empty text');
  if (value.length > MAX_FILTER_TEXT) throw fail(path, `at most ${MAX_FILTER_TEXT} characters`);
  return value;
};

const dateZoneOf = (field: Field): string => {
  const formatting = field.options.formatting;
  const zone = isRecord(formatting) && typeof formatting.timeZone === 'string' ? formatting.timeZone : 'UTC';
  return canonicalTimeZone(zone) ?? 'UTC';
};

/** A checked DateValue with the zone's canonical name and only the keys its mode uses. */
const dateValue = (value: unknown, operator: string, path: string): DateValue => {
  if (!isRecord(value)) throw fail(path, 'a date filter takes {mode, timeZone, numberOfDays?, exactDate?}');
  const { mode } = value;
  const allowed: readonly string[] = operator === 'isWithIn' ? RANGE_MODES : DAY_MODES;
  if (!allowed.includes(mode as string)) {
    const hint =
      isDayMode(mode) || isRangeMode(mode) ? ` (${String(mode)} is not allowed with ${operator})` : '';
    throw fail(`${path}.mode`, `must be one of ${allowed.join(', ')} with ${operator}${hint}`);
  }
  if (typeof value.timeZone !== 'string') throw fail(`${path}.timeZone`, 'must be an IANA time zone name');
  const timeZone = canonicalTimeZone(value.timeZone);
  if (!timeZone)
    throw fail(
      `${path}.timeZone`,
      `${JSON.stringify(value.timeZone.slice(0, 100))} is not an IANA time zone`,
    );
  const out: DateValue = { mode: mode as string, timeZone };
  if (NUMBER_OF_DAYS_MODES.includes(mode as never)) {
    const n = value.numberOfDays;
    if (n === undefined || n === null)
      throw fail(`${path}.numberOfDays`, `mode ${String(mode)} needs numberOfDays`);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_NUMBER_OF_DAYS)
      throw fail(`${path}.numberOfDays`, `must be a whole number from 0 to ${MAX_NUMBER_OF_DAYS}`);
    out.numberOfDays = n;
  }
  if (mode === 'exactDate') {
    const d = value.exactDate;
    if (d === undefined || d === null || d === '')
      throw fail(`${path}.exactDate`, 'mode exactDate needs exactDate');
    if (typeof d !== 'string' || d.length > 100 || !exactDayOf(d, timeZone))
      throw fail(
        `${path}.exactDate`,
        'must be a date (ISO 8601, e.g. 2026-03-01 or 2026-03-01T00:00:00.000Z)',
      );
    out.exactDate = d;
  }
  return out;
};

/** One scalar of a value for the field kind and operator, normalised; null = no value. */
const scalarValue = (
  kind: FilterKind,
  operator: string,
  value: unknown,
  path: string,
): FilterScalar | DateValue | null => {
  if (Array.isArray(value)) throw fail(path, `${operator} takes a single value, not a list`);
  switch (kind) {
    case 'text':
      return textValue(value, path);
    case 'number':
      return numberValue(value, path);
    case 'checkbox':
      if (typeof value !== 'boolean') throw fail(path, 'expected true, false or null');
      return value;
    case 'date':
      return dateValue(value, operator, path);
    case 'singleLink':
    case 'multipleLink':
      // contains takes a title fragment, every other operator a record id
      return operator === 'contains' || operator === 'doesNotContain'
        ? textValue(value, path)
        : keyValue(value, path);
    default:
      return keyValue(value, path);
  }
};

/** The value of an item, checked against its operator's shape and the field kind. */
const checkValue = (kind: FilterKind, operator: string, value: unknown, path: string): FilterValue => {
  if (NULL_OPERATORS.includes(operator)) {
    if (value !== null && value !== undefined) throw fail(path, `${operator} takes null`);
    return null;
  }
  if (value === null || value === undefined) return null;
  if (LIST_OPERATORS.includes(operator)) {
    if (!Array.isArray(value) || value.length === 0) throw fail(path, `${operator} takes a non-empty list`);
    if (value.length > MAX_FILTER_LIST) throw fail(path, `at most ${MAX_FILTER_LIST} values`);
    return value.map((v, i) => {
      if (Array.isArray(v) || isRecord(v) || v === null) throw fail(`${path}.${i}`, 'expected text');
      return scalarValue(kind, operator, v, `${path}.${i}`) as FilterScalar;
    });
  }
  return scalarValue(kind, operator, value, path);
};

/** An `isSymbol` item's operator and value for the field kind, or a 400 listing the symbols allowed. */
const fromSymbol = (
  field: Field,
  kind: FilterKind,
  symbol: string,
  value: unknown,
  path: string,
): { operator: string; value: unknown } => {
  const upper = symbol.trim().replace(/\s+/g, ' ').toUpperCase() as FilterSymbol;
  const map = SYMBOL_OPERATORS[kind];
  const operator = map[upper];
  if (!operator)
    throw fail(
      `${path}.operator`,
      `${JSON.stringify(symbol)} is not allowed on ${describeField(field, kind)}; allowed: ${Object.keys(map).join(', ')}`,
    );
  if (upper === 'IS NULL' || upper === 'IS NOT NULL')
    return { operator, value: kind === 'checkbox' ? (upper === 'IS NOT NULL' ? true : null) : null };
  if (kind === 'checkbox') {
    if (value !== null && typeof value !== 'boolean')
      throw fail(`${path}.value`, 'expected true, false or null');
    return { operator, value: upper === '!=' ? value !== true : value };
  }
  // SQL habit: LIKE '%text%' means contains "text"
  if ((upper === 'LIKE' || upper === 'NOT LIKE') && typeof value === 'string')
    return { operator, value: value.replace(/^%+|%+$/g, '') };
  if (LIST_OPERATORS.includes(operator) && value !== null && value !== undefined && !Array.isArray(value))
    return { operator, value: [value] };
  if (kind === 'date' && typeof value === 'string')
    return { operator, value: { mode: 'exactDate', exactDate: value, timeZone: dateZoneOf(field) } };
  return { operator, value };
};

interface Walk {
  fields: readonly Field[];
  nodes: number;
  dropInvalid: boolean;
}

const resolveItem = (raw: Record<string, unknown>, walk: Walk, path: string): FilterItem => {
  if (typeof raw.fieldId !== 'string') throw fail(`${path}.fieldId`, 'must be a field id or name');
  if (typeof raw.operator !== 'string') throw fail(`${path}.operator`, 'must be text');
  const field = fieldByRef(walk.fields, raw.fieldId);
  if (!field) throw fail(`${path}.fieldId`, `field ${JSON.stringify(raw.fieldId.slice(0, 200))} not found`);
  const kind = filterKindOf(field);
  let operator = raw.operator;
  let value = raw.value;
  if (raw.isSymbol === true) ({ operator, value } = fromSymbol(field, kind, operator, value, path));
  const allowed = OPERATORS_BY_KIND[kind];
  if (!allowed.includes(operator))
    throw fail(
      `${path}.operator`,
      `${JSON.stringify(operator.slice(0, 100))} is not allowed on ${describeField(field, kind)}; allowed: ${allowed.join(', ')}`,
    );
  return { fieldId: field.id, operator, value: checkValue(kind, operator, value, `${path}.value`) };
};

const resolveNode = (raw: unknown, walk: Walk, path: string, depth: number): FilterItem | FilterGroup => {
  if (!isRecord(raw))
    throw fail(path, 'must be a filter item {fieldId, operator, value} or a group {conjunction, filterSet}');
  if (++walk.nodes > MAX_FILTER_NODES)
    throw fail(path, `a filter holds at most ${MAX_FILTER_NODES} items and groups`);
  if ('filterSet' in raw || 'conjunction' in raw) return resolveGroup(raw, walk, path, depth);
  return resolveItem(raw, walk, path);
};

const resolveGroup = (raw: Record<string, unknown>, walk: Walk, path: string, depth: number): FilterGroup => {
  if (depth > MAX_FILTER_DEPTH) throw fail(path, `nested too deep (at most ${MAX_FILTER_DEPTH} levels)`);
  if (raw.conjunction !== 'and' && raw.conjunction !== 'or')
    throw fail(`${path}.conjunction`, 'must be "and" or "or"');
  if (!Array.isArray(raw.filterSet)) throw fail(`${path}.filterSet`, 'must be a list');
  const filterSet: (FilterItem | FilterGroup)[] = [];
  raw.filterSet.forEach((node, i) => {
    try {
      filterSet.push(resolveNode(node, walk, `${path}.filterSet.${i}`, depth + 1));
    } catch (error) {
      if (!(walk.dropInvalid && error instanceof ValidationError)) throw error;
    }
  });
  return { conjunction: raw.conjunction, filterSet };
};

/** How `resolveFilter` treats problems. */
export interface ResolveFilterOptions {
  /**
   * Leave out members (items or groups) that do not pass instead of answering a 400: for a saved
   * view filter that a later field change made stale (a user field switched to multiple, a type
   * that no longer allows the operator), so the view still lists. The top level must still be a
   * group.
   */
  dropInvalid?: boolean;
}

/**
 * Checks a request's or a view's filter against the table's fields and answers it with field ids
 * (never names), operators of the field kinds (symbols mapped) and normalised values; `null` for
 * no filter. Every problem is a 400 whose message starts with the path, e.g.
 * `filter.filterSet.0.operator: …`.
 */
export const resolveFilter = (
  raw: unknown,
  fields: readonly Field[],
  param = 'filter',
  options: ResolveFilterOptions = {},
): FilterGroup | null => {
  if (raw === null || raw === undefined) return null;
  if (!isRecord(raw)) throw fail(param, 'must be an object {conjunction, filterSet}');
  const walk: Walk = { fields, nodes: 1, dropInvalid: options.dropInvalid === true };
  return resolveGroup(raw, walk, param, 0);
};

/**
 * Checks one item the way `resolveFilter` does (the query-language parser reports errors at the
 * item's position). Returns the resolved item.
 */
export const resolveFilterItem = (
  raw: Record<string, unknown>,
  fields: readonly Field[],
  path: string,
): FilterItem => resolveItem(raw, { fields, nodes: 0, dropInvalid: false }, path);

const isGroup = (node: FilterItem | FilterGroup): node is FilterGroup => 'filterSet' in node;

/** The ids of the fields a filter reads (the loader projects only these). */
export const filterFieldIds = (filter: FilterGroup | null | undefined): Set<string> => {
  const ids = new Set<string>();
  const visit = (node: FilterItem | FilterGroup) => {
    if (isGroup(node)) for (const child of node.filterSet) visit(child);
    else ids.add(node.fieldId);
  };
  if (filter) visit(filter);
  return ids;
};

/** Filters AND-ed together (view and request); absent and empty ones are left out; null when none is left. */
export const andFilters = (...filters: (FilterGroup | null | undefined)[]): FilterGroup | null => {
  const present = filters.filter((f): f is FilterGroup => !!f && f.filterSet.length > 0);
  if (present.length === 0) return null;
  if (present.length === 1) return present[0] as FilterGroup;
  return { conjunction: 'and', filterSet: present };
};

// ---------------------------------------------------------------------------------------------
// Evaluation

type Predicate = (row: Row) => boolean;

const ALL: Predicate = () => true;

const not =
  (p: Predicate): Predicate =>
  (row) =>
    !p(row);

/** One text item lower-cased (text kinds); undefined when empty. */
const lowerText = (item: unknown): string | undefined => {
  if (item === undefined || item === null) return undefined;
  if (typeof item === 'string') return item === '' ? undefined : item.toLowerCase();
  return String(item).toLowerCase();
};

/** One number item: a number or numeric text. */
const numberOf = (item: unknown): number | undefined => {
  if (typeof item === 'number') return Number.isFinite(item) ? item : undefined;
  if (typeof item === 'string' && item.trim() !== '') {
    const n = Number(item);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
};

/**
 * A predicate over field `id` that passes when the cell passes `test`, or for a multi-valued cell
 * (a list) when some item does (computed.md 7); an empty list passes nothing.
 */
const someItem =
  (id: string, test: (item: unknown) => boolean): Predicate =>
  (row) => {
    const cell = row.cells[id];
    if (!Array.isArray(cell)) return test(cell);
    for (const item of cell) if (test(item)) return true;
    return false;
  };

const isCanonicalIso = (text: string): boolean => text.length === 24 && text.charCodeAt(23) === 90; // 'Z'

/** The key of one element of a set-like cell: a choice name, a record id, or a user's id. */
const keyOfItem = (item: unknown): string | undefined =>
  typeof item === 'string' ? item : isRecord(item) && typeof item.id === 'string' ? item.id : undefined;

/** The keys of a set-like cell: choice names, user ids, record ids. */
const keysOf = (cell: unknown): string[] => {
  const out: string[] = [];
  for (const item of Array.isArray(cell) ? cell : [cell]) {
    const key = keyOfItem(item);
    if (key !== undefined) out.push(key);
  }
  return out;
};

/** True when a set-like cell holds a key the test accepts (no list built: the common, hot path). */
const cellHasKey = (cell: unknown, test: (key: string) => boolean): boolean => {
  if (Array.isArray(cell)) {
    for (const item of cell) {
      const key = keyOfItem(item);
      if (key !== undefined && test(key)) return true;
    }
    return false;
  }
  const key = keyOfItem(cell);
  return key !== undefined && test(key);
};

const isEmptyCell = (cell: unknown): boolean =>
  cell === undefined || cell === null || cell === '' || (Array.isArray(cell) && cell.length === 0);

const unsupported = (field: Field, kind: FilterKind, operator: string) =>
  new ValidationError(
    `filter: ${JSON.stringify(operator)} is not allowed on ${describeField(field, kind)}; allowed: ${OPERATORS_BY_KIND[kind].join(', ')}`,
  );

const compileText = (id: string, operator: string, value: FilterValue, field: Field): Predicate => {
  const needle = String(value).toLowerCase();
  const is = someItem(id, (item) => lowerText(item) === needle);
  // a literal substring (never a pattern)
  const contains = someItem(id, (item) => lowerText(item)?.includes(needle) === true);
  switch (operator) {
    case 'is':
      return is;
    case 'isNot':
      return not(is);
    case 'contains':
      return contains;
    case 'doesNotContain':
      return not(contains);
    default:
      throw unsupported(field, 'text', operator);
  }
};

const compileNumber = (id: string, operator: string, value: FilterValue, field: Field): Predicate => {
  const n = typeof value === 'number' ? value : Number(value);
  const test = (cmp: (x: number) => boolean): Predicate =>
    someItem(id, (item) => {
      const x = numberOf(item);
      return x !== undefined && cmp(x);
    });
  switch (operator) {
    case 'is':
      return test((x) => x === n);
    case 'isNot':
      return not(test((x) => x === n));
    case 'isGreater':
      return test((x) => x > n);
    case 'isGreaterEqual':
      return test((x) => x >= n);
    case 'isLess':
      return test((x) => x < n);
    case 'isLessEqual':
      return test((x) => x <= n);
    default:
      throw unsupported(field, 'number', operator);
  }
};

const compileDate = (id: string, operator: string, value: DateValue, field: Field, now: Date): Predicate => {
  const [start, end] = dateRange(value, now);
  // Stored times are canonical UTC ISO text, which orders like the instants it names: compare the
  // text and parse only what is written otherwise.
  const startIso = isoOf(start);
  const endIso = isoOf(end);
  const test = (inMs: (t: number) => boolean, inIso: (t: string) => boolean): Predicate => {
    const fast = startIso !== undefined && endIso !== undefined;
    return someItem(id, (item) => {
      if (typeof item !== 'string') return false;
      if (fast && isCanonicalIso(item)) return inIso(item);
      const t = Date.parse(item);
      return !Number.isNaN(t) && inMs(t);
    });
  };
  const s = startIso ?? '';
  const e = endIso ?? '';
  const inside = test(
    (t) => t >= start && t <= end,
    (t) => t >= s && t <= e,
  );
  switch (operator) {
    case 'is':
    case 'isWithIn':
      return inside;
    case 'isNot':
      return not(inside);
    case 'isBefore':
      return test(
        (t) => t < start,
        (t) => t < s,
      );
    case 'isAfter':
      return test(
        (t) => t > end,
        (t) => t > e,
      );
    case 'isOnOrBefore':
      return test(
        (t) => t <= end,
        (t) => t <= e,
      );
    case 'isOnOrAfter':
      return test(
        (t) => t >= start,
        (t) => t >= s,
      );
    default:
      throw unsupported(field, 'date', operator);
  }
};

/** Select, user and link cells as sets of keys (names or ids); links also by title. */
const compileSet = (
  id: string,
  operator: string,
  value: FilterValue,
  field: Field,
  kind: FilterKind,
  ctx: QueryContext,
): Predicate => {
  const isUser = kind === 'singleUser' || kind === 'multipleUser';
  const key = (v: FilterScalar): string => {
    const text = String(v);
    return isUser && text.toLowerCase() === 'me' ? ctx.userId : text;
  };
  const wanted = Array.isArray(value) ? [...new Set(value.map(key))] : [key(value as FilterScalar)];
  const one = wanted[0] as string;
  const set = new Set(wanted);
  const isOne = (k: string) => k === one;
  const inSet = (k: string) => set.has(k);
  const is: Predicate = (row) => cellHasKey(row.cells[id], isOne);
  const anyOf: Predicate = set.size === 1 ? is : (row) => cellHasKey(row.cells[id], inSet);
  switch (operator) {
    case 'is':
      return is;
    case 'isNot':
      return not(is);
    case 'isAnyOf':
    case 'hasAnyOf':
      return anyOf;
    case 'isNoneOf':
    case 'hasNoneOf':
      return not(anyOf);
    case 'hasAllOf':
      return (row) => {
        const keys = keysOf(row.cells[id]);
        return keys.length > 0 && wanted.every((k) => keys.includes(k));
      };
    case 'isExactly':
      return (row) => {
        const keys = new Set(keysOf(row.cells[id]));
        return keys.size === set.size && wanted.every((k) => keys.has(k));
      };
    case 'contains':
    case 'doesNotContain': {
      if (kind !== 'singleLink' && kind !== 'multipleLink') throw unsupported(field, kind, operator);
      const needle = String(value).toLowerCase();
      const contains: Predicate = (row) =>
        keysOf(row.cells[id]).some(
          (recordId) => ctx.linkTitle(id, recordId)?.toLowerCase().includes(needle) === true,
        );
      return operator === 'contains' ? contains : not(contains);
    }
    default:
      throw unsupported(field, kind, operator);
  }
};

const compileItem = (item: FilterItem, ctx: QueryContext): Predicate => {
  const field = ctx.fields.get(item.fieldId);
  if (!field) throw new ValidationError(`filter: field ${JSON.stringify(item.fieldId)} not found`);
  const kind = filterKindOf(field);
  const id = field.id;
  const { operator, value } = item;
  if (operator === 'isEmpty') return (row) => isEmptyCell(row.cells[id]);
  if (operator === 'isNotEmpty') return (row) => !isEmptyCell(row.cells[id]);
  if (kind === 'checkbox') {
    if (operator !== 'is') throw unsupported(field, kind, operator);
    const checked = someItem(id, (item) => item === true);
    return value === true ? checked : not(checked);
  }
  if (value === null || value === undefined) return ALL;
  switch (kind) {
    case 'text':
      return compileText(id, operator, value, field);
    case 'number':
      return compileNumber(id, operator, value, field);
    case 'date':
      return compileDate(id, operator, value as DateValue, field, ctx.now);
    case 'attachment':
      throw unsupported(field, kind, operator);
    default:
      return compileSet(id, operator, value, field, kind, ctx);
  }
};

const compileNode = (node: FilterItem | FilterGroup, ctx: QueryContext): Predicate => {
  if (!isGroup(node)) return compileItem(node, ctx);
  const children = node.filterSet.map((child) => compileNode(child, ctx));
  if (node.conjunction === 'or') {
    // an empty group, or any member matching everything, matches everything
    if (children.length === 0 || children.includes(ALL)) return ALL;
    if (children.length === 1) return children[0] as Predicate;
    const [a, b] = children as [Predicate, Predicate];
    if (children.length === 2) return (row) => a(row) || b(row);
    return (row) => {
      for (const p of children) if (p(row)) return true;
      return false;
    };
  }
  const kept = children.filter((p) => p !== ALL);
  if (kept.length === 0) return ALL;
  if (kept.length === 1) return kept[0] as Predicate;
  const [a, b] = kept as [Predicate, Predicate];
  if (kept.length === 2) return (row) => a(row) && b(row);
  return (row) => {
    for (const p of kept) if (!p(row)) return false;
    return true;
  };
};

/**
 * A predicate over rows for a filter checked by `resolveFilter` (no filter: every row). Work that
 * does not depend on the row (lower-cased needles, numbers, date ranges at `ctx.now`, value sets,
 * `"Me"`) is done once here.
 */
export const compileFilter = (
  filter: FilterGroup | null | undefined,
  ctx: QueryContext,
): ((row: Row) => boolean) => (filter ? compileNode(filter, ctx) : ALL);
