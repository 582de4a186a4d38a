/**
 * Record order (contract `listing.md` section 3). Pure: no AWS import.
 *
 * Sorting is decorate-sort-undecorate: every sort item's key is worked out once per row into
 * plain columns (`orderColumnOf`), then row indexes are ordered with `<` comparisons on those
 * columns (no `localeCompare`, text lower-cased once), which keeps 100,000 rows fast;
 * `sortedWindow` orders only as much as a page needs.
 *
 * Each sort item's key has up to four parts compared in turn, all reversed for `desc`: the main
 * key (a number, or lower-cased text; an empty cell is smaller than any value, so empty cells
 * come first in `asc` and last in `desc`), the length of a multi-valued cell, the exact text (the
 * stable tiebreak of case-insensitive text), and for group keys the group value text, so records
 * of one group stay together even where the sort rules tie two different group values (two users
 * with the same title). After the items: the view's manual order (`Row.orderKey`, plain text
 * compare; a row with a key before one without; none → autoNumber), then autoNumber, then id.
 *
 * How a field's cells compare follows the value class its kind declares (`FieldKind.query`).
 *
 * Decisions where the contract is silent: a select name that is not (or no longer) a choice sorts
 * after every choice, by name; attachments sort by their first file name then count; formula and
 * rollup cells sort by their `cellValueType`, lookups as the type they look up (computed.md 7),
 * lists by their first element (a number as a number) then length; a list of numbers (a lookup of
 * numbers) as Teable orders it: its first number rounded to the field's precision, its length,
 * then its other numbers; link ids whose record has no title (deleted) are ignored.
 */

import { ValidationError } from '#shared/core/errors.ts';
import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { fieldQuery } from '#shared/fields/query-facts.ts';
import type { QueryContext, Row, SortSpec } from './query-types.ts';

/** The field of a query reference; an id that names no field is a 400. */
export const fieldOf = (fieldId: string, ctx: Pick<QueryContext, 'fields'>): Field => {
  const field = ctx.fields.get(fieldId);
  if (!field) throw new ValidationError(`Field ${fieldId} not found`);
  return field;
};

type Key = number | string | null;

/** The keys the writers fill for one sort item, before `orderColumn` packs them for comparing. */
interface RawKeys {
  /** Main key; null for an empty cell. */
  a: Key[];
  /** Length of a multi-valued cell (0 otherwise). */
  b: number[];
  /** Exact text tiebreak ('' when the kind has none). */
  c: string[];
}

/**
 * One sort item's keys for a list of rows (index-aligned with that list), packed for fast
 * comparing: the main key is either `num` (numbers with the direction folded in: negated for
 * desc, empty cells -Infinity in asc and +Infinity in desc) or `str` (texts, null for empty);
 * the tiebreak parts are present only where they vary.
 */
export interface OrderColumn {
  num?: Float64Array;
  str?: (string | null)[];
  /** Length of a multi-valued cell. */
  b?: number[];
  /** Exact text tiebreak. */
  c?: string[];
  /** Group value text (group keys only; '' for empty). */
  d?: string[];
  /** 1 for asc, -1 for desc. */
  dir: 1 | -1;
}

/** The text of a user-like value: its title. */
const titleOf = (value: unknown): string =>
  typeof value === 'object' && value !== null && typeof (value as { title?: unknown }).title === 'string'
    ? (value as { title: string }).title
    : typeof value === 'string'
      ? value
      : '';

const textOfScalar = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : titleOf(value);

/** Writes the key of one cell into position i of the column. */
type KeyWriter = (cell: StoredCell | undefined, i: number, col: RawKeys) => void;

const setEmpty = (i: number, col: RawKeys): void => {
  col.a[i] = null;
  col.b[i] = 0;
  col.c[i] = '';
};

/** Case-insensitive text with the exact text as tiebreak; lists by first item, then length. */
const textKey = (texts: string[], i: number, col: RawKeys): void => {
  const first = texts[0];
  if (first === undefined) {
    setEmpty(i, col);
    return;
  }
  col.a[i] = first.toLowerCase();
  col.b[i] = texts.length;
  col.c[i] = first;
};

const numberOfCell = (cell: unknown): number | null => {
  const v = Array.isArray(cell) ? cell[0] : cell;
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isNaN(n) ? null : n;
  }
  return null;
};

/** Rounds half away from zero to `digits` decimals, as Postgres's ROUND of a numeric does. */
const roundTo =
  (digits: number) =>
  (n: number): number => {
    const f = 10 ** Math.max(0, Math.min(10, digits));
    return (Math.sign(n) * Math.round(Math.abs(n) * f)) / f;
  };

const bitsView = new DataView(new ArrayBuffer(8));

/**
 * A number's 64-bit pattern made order-preserving as two unsigned 32-bit halves: the sign bit
 * flipped for positives, every bit for negatives (-0 is 0); compared half by half as unsigned
 * integers they order as the numbers do. Shared with the index keys (`index-keys.ts`).
 */
export const orderedBits = (n: number): [hi: number, lo: number] => {
  bitsView.setFloat64(0, n === 0 ? 0 : n);
  const hi = bitsView.getUint32(0);
  const lo = bitsView.getUint32(4);
  return hi & 0x80000000 ? [~hi >>> 0, ~lo >>> 0] : [(hi | 0x80000000) >>> 0, lo];
};

/** A number as 16 hex digits whose text order is the numbers' order. */
const sortableNumber = (n: number): string => {
  const [hi, lo] = orderedBits(n);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
};

const dateOfCell = (cell: unknown): number | null => {
  const v = Array.isArray(cell) ? cell[0] : cell;
  if (typeof v === 'number') return Number.isNaN(v) ? null : v;
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
};

/** The linked records' titles in cell order; ids without a title are left out. */
export const linkTitlesOf = (cell: unknown, field: Field, ctx: Pick<QueryContext, 'linkTitle'>): string[] => {
  const ids = Array.isArray(cell) ? cell : typeof cell === 'string' ? [cell] : [];
  const titles: string[] = [];
  for (const id of ids) {
    if (typeof id !== 'string') continue;
    const title = ctx.linkTitle(field.id, id);
    if (title !== undefined) titles.push(title);
  }
  return titles;
};

const choiceIndexes = (field: Field): Map<string, number> => {
  const choices = Array.isArray(field.options.choices) ? field.options.choices : [];
  const map = new Map<string, number>();
  choices.forEach((choice: unknown, index) => {
    const name = (choice as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && !map.has(name)) map.set(name, index);
  });
  return map;
};

/**
 * How one cell's key is written, by the value class of the field's kind (formula and rollup by
 * their cell value type); text and anything else compare as text.
 */
const keyWriterOf = (field: Field, ctx: QueryContext): KeyWriter => {
  switch (fieldQuery(field).valueClass) {
    case 'number': {
      const precision = (field.options.formatting as { precision?: unknown } | undefined)?.precision;
      const round = typeof precision === 'number' ? roundTo(precision) : (n: number) => n;
      return (cell, i, col) => {
        if (!Array.isArray(cell)) {
          col.a[i] = numberOfCell(cell);
          col.b[i] = 0;
          col.c[i] = '';
          return;
        }
        // a list as Teable orders it: its first number rounded to the field's precision, then
        // its length, then its other numbers (rounded) one by one
        const numbers = cell.map(numberOfCell);
        const first = numbers[0];
        col.a[i] = first === null || first === undefined ? null : round(first);
        col.b[i] = cell.length;
        col.c[i] = numbers
          .slice(1)
          .map((n) => (n === null ? '' : sortableNumber(round(n))))
          .join(' ');
      };
    }
    case 'dateTime':
      return (cell, i, col) => {
        col.a[i] = dateOfCell(cell);
        col.b[i] = Array.isArray(cell) ? cell.length : 0;
        col.c[i] = '';
      };
    case 'boolean':
      // unchecked is the empty cell, so it sorts before checked in asc
      return (cell, i, col) => {
        const v = Array.isArray(cell) ? cell[0] : cell;
        col.a[i] = v === true || v === 'true' || v === 1 ? 1 : null;
        col.b[i] = Array.isArray(cell) ? cell.length : 0;
        col.c[i] = '';
      };
    case 'select': {
      const indexes = choiceIndexes(field);
      const unknownIndex = indexes.size;
      return (cell, i, col) => {
        const names = Array.isArray(cell) ? cell : isEmptyCell(cell) ? [] : [cell];
        const first = names[0];
        if (first === undefined) {
          setEmpty(i, col);
          return;
        }
        const name = textOfScalar(first);
        const index = indexes.get(name);
        col.a[i] = index ?? unknownIndex;
        col.b[i] = names.length;
        col.c[i] = index === undefined ? name : '';
      };
    }
    case 'user':
      return (cell, i, col) => {
        if (isEmptyCell(cell)) {
          setEmpty(i, col);
          return;
        }
        textKey(Array.isArray(cell) ? cell.map(titleOf) : [titleOf(cell)], i, col);
      };
    case 'link':
      return (cell, i, col) => textKey(linkTitlesOf(cell, field, ctx), i, col);
    case 'attachment':
      return (cell, i, col) => {
        const items = Array.isArray(cell) ? cell : [];
        textKey(
          items.map((item) => {
            const name = (item as { name?: unknown } | null)?.name;
            return typeof name === 'string' ? name : '';
          }),
          i,
          col,
        );
      };
    default:
      return (cell, i, col) => {
        if (isEmptyCell(cell)) {
          setEmpty(i, col);
          return;
        }
        if (typeof cell === 'string') {
          col.a[i] = cell.toLowerCase();
          col.b[i] = 0;
          col.c[i] = cell;
          return;
        }
        textKey(Array.isArray(cell) ? cell.map(textOfScalar) : [textOfScalar(cell)], i, col);
      };
  }
};

/** The raw keys of one cell of a field (main key, length, exact text), as a sort item compares them before `pack`. */
export const cellKeysOf = (
  field: Field,
  ctx: QueryContext,
): ((cell: StoredCell | undefined) => { a: Key; b: number; c: string }) => {
  const write = keyWriterOf(field, ctx);
  return (cell) => {
    const raw: RawKeys = { a: [null], b: [0], c: [''] };
    write(cell, 0, raw);
    return { a: raw.a[0] ?? null, b: raw.b[0] ?? 0, c: raw.c[0] ?? '' };
  };
};

const isAll = <T>(values: readonly T[], value: T): boolean => {
  for (const v of values) if (v !== value) return false;
  return true;
};

/** Packs raw keys for comparing (see `OrderColumn`). */
const pack = (raw: RawKeys, dir: 1 | -1): OrderColumn => {
  const n = raw.a.length;
  const col: OrderColumn = { dir };
  let texts = false;
  for (let i = 0; i < n; i++) {
    if (typeof raw.a[i] === 'string') {
      texts = true;
      break;
    }
  }
  if (texts) {
    // a number among texts never comes from the key writers; as text it still compares consistently
    col.str = raw.a.map((v) => (v === null ? null : String(v)));
  } else {
    const num = new Float64Array(n);
    const empty = dir === 1 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const v = raw.a[i];
      num[i] = typeof v === 'number' ? v * dir : empty;
    }
    col.num = num;
  }
  if (!isAll(raw.b, 0)) col.b = raw.b;
  if (!isAll(raw.c, '')) col.c = raw.c;
  return col;
};

/** The keys of one sort item for a list of cells of its field (one per row). */
export const orderColumnOf = (
  cells: readonly (StoredCell | undefined)[],
  spec: SortSpec,
  ctx: QueryContext,
): OrderColumn => {
  const field = fieldOf(spec.fieldId, ctx);
  const n = cells.length;
  const raw: RawKeys = { a: new Array<Key>(n), b: new Array<number>(n), c: new Array<string>(n) };
  const write = keyWriterOf(field, ctx);
  for (let i = 0; i < n; i++) write(cells[i], i, raw);
  return pack(raw, spec.order === 'desc' ? -1 : 1);
};

/** The keys of one sort item for every row of `rows`. */
export const orderColumn = (rows: readonly Row[], spec: SortSpec, ctx: QueryContext): OrderColumn =>
  orderColumnOf(
    rows.map((row) => row.cells[spec.fieldId]),
    spec,
    ctx,
  );

/** Compares rows x and y (indexes) by one column: -1, 0 or 1 in final order. */
const compareColumn = (col: OrderColumn, x: number, y: number): number => {
  const dir = col.dir;
  if (col.num) {
    const nx = col.num[x] as number;
    const ny = col.num[y] as number;
    if (nx !== ny) return nx < ny ? -1 : 1;
  } else if (col.str) {
    const sx = col.str[x] as string | null;
    const sy = col.str[y] as string | null;
    if (sx !== sy) {
      if (sx === null) return -dir;
      if (sy === null) return dir;
      return sx < sy ? -dir : dir;
    }
  }
  if (col.b) {
    const bx = col.b[x] as number;
    const by = col.b[y] as number;
    if (bx !== by) return bx < by ? -dir : dir;
  }
  if (col.c) {
    const cx = col.c[x] as string;
    const cy = col.c[y] as string;
    if (cx !== cy) return cx < cy ? -dir : dir;
  }
  if (col.d) {
    const dx = col.d[x] as string;
    const dy = col.d[y] as string;
    if (dx !== dy) return dx < dy ? -dir : dir;
  }
  return 0;
};

/**
 * A comparator of row indexes (into `rows`, index-aligned with the columns) in final order: the
 * columns in turn, then the manual order, autoNumber and id.
 */
export const compareIndexes = (
  rows: readonly Row[],
  columns: readonly OrderColumn[],
): ((x: number, y: number) => number) => {
  const n = rows.length;
  const orderKeys = new Array<string | undefined>(n);
  const autoNumbers = new Float64Array(n);
  let anyOrderKey = false;
  for (let i = 0; i < n; i++) {
    const row = rows[i] as Row;
    orderKeys[i] = row.orderKey;
    if (row.orderKey !== undefined) anyOrderKey = true;
    autoNumbers[i] = row.autoNumber;
  }
  const cols = columns.slice();
  const k = cols.length;
  return (x, y) => {
    for (let j = 0; j < k; j++) {
      const r = compareColumn(cols[j] as OrderColumn, x, y);
      if (r !== 0) return r;
    }
    if (anyOrderKey) {
      const ox = orderKeys[x];
      const oy = orderKeys[y];
      if (ox !== oy) {
        if (ox === undefined) return 1;
        if (oy === undefined) return -1;
        return ox < oy ? -1 : 1;
      }
    }
    const nx = autoNumbers[x] as number;
    const ny = autoNumbers[y] as number;
    if (nx !== ny) return nx < ny ? -1 : 1;
    const ix = (rows[x] as Row).id;
    const iy = (rows[y] as Row).id;
    return ix < iy ? -1 : ix > iy ? 1 : 0;
  };
};

/** The permutation of `rows` (indexes into it) in final order (see `compareIndexes`). */
export const sortIndexes = (rows: readonly Row[], columns: readonly OrderColumn[]): number[] => {
  const order = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) order[i] = i;
  return order.sort(compareIndexes(rows, columns));
};

/**
 * Rearranges `a[lo..hi]` so that `a[k]` holds the item of rank k, items before it compare lower
 * and items after it higher (quickselect, median-of-three pivot). `compare` must be a total order.
 */
const selectRank = <T>(a: T[], k: number, lo: number, hi: number, compare: (x: T, y: T) => number): void => {
  const swap = (i: number, j: number) => {
    const t = a[i] as T;
    a[i] = a[j] as T;
    a[j] = t;
  };
  let left = lo;
  let right = hi;
  while (right > left) {
    if (right - left < 16) {
      for (let i = left + 1; i <= right; i++) {
        for (let j = i; j > left && compare(a[j - 1] as T, a[j] as T) > 0; j--) swap(j - 1, j);
      }
      return;
    }
    const mid = (left + right) >> 1;
    if (compare(a[mid] as T, a[left] as T) < 0) swap(mid, left);
    if (compare(a[right] as T, a[left] as T) < 0) swap(right, left);
    if (compare(a[right] as T, a[mid] as T) < 0) swap(right, mid);
    const pivot = a[mid] as T;
    let i = left;
    let j = right;
    while (i <= j) {
      while (compare(a[i] as T, pivot) < 0) i++;
      while (compare(a[j] as T, pivot) > 0) j--;
      if (i <= j) {
        swap(i, j);
        i++;
        j--;
      }
    }
    // now a[left..j] ≤ pivot ≤ a[i..right], j < i
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
};

/**
 * The items at sorted positions [from, to) of `items` under `compare` (a total order), without
 * sorting all of them: a window near the start keeps the `to` smallest items in a bounded max-heap
 * (one comparison for most items) and sorts only those; a deep window is cut out with two
 * quickselects (a few comparisons per item, instead of a full sort's ~17 at 100,000 items) and
 * only the window is sorted.
 */
export const sortedWindow = <T>(
  items: readonly T[],
  compare: (x: T, y: T) => number,
  from: number,
  to: number,
): T[] => {
  const end = Math.min(to, items.length);
  if (from >= end) return [];
  if (end * 8 > items.length) {
    const all = items.slice();
    if (from > 0) selectRank(all, from, 0, all.length - 1, compare);
    if (end < all.length) selectRank(all, end - 1, from, all.length - 1, compare);
    return all.slice(from, end).sort(compare);
  }
  const heap: T[] = [];
  const siftDown = (start: number) => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && compare(heap[l] as T, heap[top] as T) > 0) top = l;
      if (r < heap.length && compare(heap[r] as T, heap[top] as T) > 0) top = r;
      if (top === i) return;
      const t = heap[i] as T;
      heap[i] = heap[top] as T;
      heap[top] = t;
      i = top;
    }
  };
  for (const item of items) {
    if (heap.length < end) {
      heap.push(item);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (compare(heap[i] as T, heap[parent] as T) <= 0) break;
        const t = heap[i] as T;
        heap[i] = heap[parent] as T;
        heap[parent] = t;
        i = parent;
      }
    } else if (compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return heap.sort(compare).slice(from, end);
};

/** The rows in final order for the sort items (section 3), manual order and autoNumber. */
export const sortRows = (rows: readonly Row[], specs: readonly SortSpec[], ctx: QueryContext): Row[] =>
  sortIndexes(
    rows,
    specs.map((spec) => orderColumn(rows, spec, ctx)),
  ).map((i) => rows[i] as Row);

/**
 * A comparator of two rows for the sort items, manual order and autoNumber (section 3). It works
 * the keys out on every call: for many rows `sortRows` is much faster.
 */
export const compileSort = (specs: readonly SortSpec[], ctx: QueryContext): ((x: Row, y: Row) => number) => {
  for (const spec of specs) fieldOf(spec.fieldId, ctx);
  return (x, y) => {
    if (x === y) return 0;
    const pair = [x, y];
    return compareIndexes(
      pair,
      specs.map((spec) => orderColumn(pair, spec, ctx)),
    )(0, 1);
  };
};
