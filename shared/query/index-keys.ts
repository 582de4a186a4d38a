/**
 * Index keys: a record's place in a view's order written as one string whose plain byte order
 * (DynamoDB's order of sort keys) is the engine's order (`sort.ts`, `engine.ts`), so an index
 * kept sorted by DynamoDB can answer a view's page without the engine. Pure: no AWS import.
 *
 * A key is the concatenation of self-delimiting parts, so no key is a prefix of another:
 * - per group level, the group's place among the level's groups (`groupOrderCell`: a number's
 *   rounded value, a day's midnight; any other class's cell as it is, since every record of one
 *   group has the same keys there), with the group text last;
 * - per group level and per sort item, the cell's keys as the engine compares them (main key,
 *   length of a list, exact text, and for group levels the group text), each reversed for `desc`
 *   (left out for a group level placed by its cell itself: it would repeat its group part);
 * - the manual order key (a record with one before one without), autoNumber and id.
 *
 * Encoding: characters of one alphabet (`!`…`~`, printable ASCII, so byte order is character
 * order). A number is 11 characters of its order-preserving 64-bit pattern; a text is its UTF-16
 * code units, each 2 or 3 characters (order-preserving, prefix-free), then `!`; a `desc` part is
 * complemented character by character (`c → '!' + '~' − c`), which reverses the order of
 * prefix-free parts. An empty number cell is the engine's -Infinity (it ties with it, as there).
 *
 * Views the index cannot answer exactly (`indexBlocker`): a search, collapsed groups (which its
 * order alone does not answer: `listing/list.ts` serves them from a grouped index's counts), a filter
 * on the caller ("Me") or on dates relative to now, a link (its titles live in another table),
 * and grouping by a date that shows the time (around a clock change, minute groups are not
 * intervals of time, and the engine orders them by an arbitrary member).
 */

import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import { fieldQuery } from '#shared/fields/query-facts.ts';
import { effectiveSort, queryFieldIds } from './engine.ts';
import { groupValueOf } from './groups.ts';
import type { Query, QueryContext, Row, SortSpec } from './query-types.ts';
import { cellKeysOf, fieldOf, orderedBits } from './sort.ts';

const LOW = 0x21; // '!'
const HIGH = 0x7e; // '~'
/** Code characters: '"'…'}' (92), leaving '!' and '~' for a text's end and its complement. */
const BASE = 92;
const FIRST = 0x22;
/** Code units below this take two characters; the rest three. */
const TWO_CHAR_UNITS = 80 * BASE;

const chr = (digit: number): string => String.fromCharCode(FIRST + digit);

/** A text, order-preserving and prefix-free: 2 or 3 characters per UTF-16 code unit, then '!'. */
export const encodeText = (text: string): string => {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u < TWO_CHAR_UNITS) out += chr(Math.floor(u / BASE)) + chr(u % BASE);
    else {
      const r = u - TWO_CHAR_UNITS;
      out += chr(80 + Math.floor(r / (BASE * BASE))) + chr(Math.floor(r / BASE) % BASE) + chr(r % BASE);
    }
  }
  return `${out}!`;
};

/** A number, order-preserving, fixed width (11 characters: 64 bits, 6 a character); -0 is 0. */
export const encodeNumber = (n: number): string => {
  const [hi, lo] = orderedBits(n);
  // 66 bits as 11 digits of 6 bits: the top digit holds hi's first 4 bits (2 zero bits above)
  let out = chr(hi >>> 28);
  let bits = hi & 0x0fffffff; // 28 bits left of hi
  out += chr(bits >>> 22) + chr((bits >>> 16) & 63) + chr((bits >>> 10) & 63) + chr((bits >>> 4) & 63);
  // hi's last 4 bits and lo's first 2 make the next digit
  bits = ((hi & 15) << 2) | (lo >>> 30);
  out += chr(bits);
  for (let shift = 24; shift >= 0; shift -= 6) out += chr((lo >>> shift) & 63);
  return out;
};

/** A count (a list's length, below 92³), fixed width: 3 characters. */
const encodeCount = (n: number): string => {
  const c = Math.min(Math.max(0, Math.floor(n)), BASE ** 3 - 1);
  return chr(Math.floor(c / (BASE * BASE))) + chr(Math.floor(c / BASE) % BASE) + chr(c % BASE);
};

/**
 * The version of the key format: part of every index's id (`records/view-indexes/upkeep.ts`), so a
 * change of format makes new indexes instead of mixing formats in one.
 */
export const INDEX_KEY_FORMAT = 3;

/** The part reversed: every character complemented (reverses the order of prefix-free parts). */
export const complement = (part: string): string => {
  let out = '';
  for (let i = 0; i < part.length; i++) out += String.fromCharCode(LOW + HIGH - part.charCodeAt(i));
  return out;
};

/** The value classes whose main key is a number (the others compare texts). */
const NUMERIC = new Set(['number', 'dateTime', 'boolean', 'select']);

/** Why the engine's order of a query cannot be kept in an index; undefined when it can. */
export const indexBlocker = (query: Query, ctx: Pick<QueryContext, 'fields'>): string | undefined => {
  if (query.search) return 'a search';
  if (query.collapsedGroupIds.length > 0) return 'collapsed groups';
  const filterText = JSON.stringify(query.filter ?? null);
  if (filterText.toLowerCase().includes('"me"')) return 'a filter on the caller';
  if (filterText.includes('"mode"')) return 'a filter on dates relative to now';
  for (const id of queryFieldIds(query)) {
    const field = fieldOf(id, ctx);
    if (fieldQuery(field).valueClass === 'link') return `a link field (${field.name})`;
  }
  for (const spec of query.groupBy) {
    const field = fieldOf(spec.fieldId, ctx);
    const time = (field.options.formatting as { time?: unknown } | undefined)?.time;
    if (fieldQuery(field).valueClass === 'dateTime' && time !== undefined && time !== 'None')
      return `grouping by a date with time (${field.name})`;
  }
  return undefined;
};

/** Writes one cell's keys for one spec; `groupText` is set for a group level. */
type PartWriter = (cell: StoredCell | undefined) => string;

const partWriter = (field: Field, spec: SortSpec, ctx: QueryContext, group: boolean): PartWriter => {
  const keys = cellKeysOf(field, ctx);
  const numeric = NUMERIC.has(fieldQuery(field).valueClass);
  const groupValue = group ? groupValueOf(field, ctx) : undefined;
  const desc = spec.order === 'desc';
  return (cell) => {
    const { a, b, c } = keys(cell);
    let part = numeric
      ? encodeNumber(typeof a === 'number' ? a : Number.NEGATIVE_INFINITY)
      : a === null
        ? '"'
        : `#${encodeText(String(a))}`;
    part += encodeCount(b) + encodeText(c);
    if (groupValue) part += encodeText(groupValue.text(cell) ?? '');
    return desc ? complement(part) : part;
  };
};

/**
 * The cell that places a record's group among its level's groups: a single number's rounded
 * value and a single date's day (their groups are intervals, ordered by any member); any other
 * cell as it is (every record of a group has the same keys).
 */
const groupOrderCell = (field: Field, ctx: QueryContext) => {
  const groupValue = groupValueOf(field, ctx);
  const valueClass = fieldQuery(field).valueClass;
  return (cell: StoredCell | undefined): StoredCell | undefined => {
    if (Array.isArray(cell) && valueClass !== 'dateTime') return cell;
    const text = groupValue.text(cell);
    if (text === null) return cell;
    if (valueClass === 'number') {
      const n = Number(text);
      return Number.isNaN(n) ? cell : n;
    }
    if (valueClass === 'dateTime' && /^\d{4}-\d\d-\d\d$/.test(text)) return `${text}T00:00:00.000Z`;
    return cell;
  };
};

/**
 * Compiles the group key of a record: the first part of its index key, the same for every record
 * of one group tuple (all levels), and ordered as the engine orders the tuples ('' without groups).
 */
export const compileGroupKey = (query: Query, ctx: QueryContext): ((row: Row) => string) => {
  const levels = query.groupBy.map((spec) => {
    const field = fieldOf(spec.fieldId, ctx);
    return { spec, order: groupOrderCell(field, ctx), write: partWriter(field, spec, ctx, true) };
  });
  return (row) => {
    let key = '';
    for (const level of levels) key += level.write(level.order(row.cells[level.spec.fieldId]));
    return key;
  };
};

/**
 * Whether a group level's place among its groups is its cell itself (every class but numbers and
 * dates, whose groups are rounded): its sort part would repeat the group part, so it is left out.
 */
const placedByCell = (field: Field): boolean => !ROUNDED.has(fieldQuery(field).valueClass);
const ROUNDED = new Set(['number', 'dateTime']);

/** The most characters of a sort key kept as a bound that splits an index's reads. */
const BOUND_LENGTH = 100;

/**
 * A bound that splits an index's reads just before the entry of sort key `sortKey`: its first
 * characters, never longer than a key is before it is cut, so a bound never falls inside a run of
 * cut keys (whose members share a longer start). Any string is a bound: reads are by sort key.
 */
export const splitBoundOf = (sortKey: string): string => sortKey.slice(0, BOUND_LENGTH);

/** Whether a record's (whole) index key is of the group tuple of `groupKey`: the group key begins it. */
export const isOfGroup = (key: string, groupKey: string): boolean => key.startsWith(groupKey);

/** Compiles the key of a record in a query's order (see the file comment). */
export const compileIndexKey = (query: Query, ctx: QueryContext): ((row: Row) => string) => {
  const specs = effectiveSort(query);
  const groupKey = compileGroupKey(query, ctx);
  const items = specs
    .map((spec, i) => ({ spec, field: fieldOf(spec.fieldId, ctx), group: i < query.groupBy.length }))
    .filter((item) => !(item.group && placedByCell(item.field)))
    .map(({ spec, field, group }) => ({ spec, write: partWriter(field, spec, ctx, group) }));
  return (row) => {
    let key = groupKey(row);
    for (const item of items) key += item.write(row.cells[item.spec.fieldId]);
    key += row.orderKey === undefined ? '$' : `#${encodeText(row.orderKey)}`;
    return key + encodeNumber(row.autoNumber) + encodeText(row.id);
  };
};

/**
 * The most characters of a key a DynamoDB sort key holds here (its limit is 1,024 bytes; the
 * rest is the marker and the record id).
 */
export const SORT_KEY_BUDGET = 960;

/**
 * The sort key of an index entry: the key itself, or, when longer than the budget, its first
 * `SORT_KEY_BUDGET` characters, '~' and the record id. Entries whose cut keys are equal are then
 * in id order, not in key order: a reader sorts such a run by the whole key, which the entry
 * holds (`isCut`).
 */
export const sortKeyOf = (key: string, recordId: string): string =>
  key.length <= SORT_KEY_BUDGET ? key : `${key.slice(0, SORT_KEY_BUDGET)}~${recordId}`;

/** Whether a sort key was cut (the entry must then hold the whole key). */
export const isCut = (sortKey: string): boolean => sortKey.length > SORT_KEY_BUDGET;

/** The run a cut sort key is in (sort keys cut to the same prefix), undefined for a key not cut. */
export const cutRunOf = (sortKey: string): string | undefined =>
  isCut(sortKey) ? sortKey.slice(0, SORT_KEY_BUDGET) : undefined;
