/**
 * Column statistics (contract `teable-routes.md`, Aggregation): the functions Teable's grid
 * footer asks for, which of them a field allows, and their value over a column of cells. Pure.
 *
 * Decisions: `count` is the number of records; percentages are 0..100 of it; a list cell (a
 * lookup, a multiple select) counts once for empty/filled, and its items count singly for sums,
 * extremes and unique (as Teable counts a multiple select's distinct options: `percentUnique` of
 * a list column is its distinct items over all its items). `null` when there is nothing to measure (no records,
 * or no value for sum, average, min, max and the date functions).
 */
import type { Field, StoredCell } from '#shared/fields/field-types.ts';

export const STATISTIC_FUNCS = [
  'count',
  'empty',
  'filled',
  'unique',
  'percentEmpty',
  'percentFilled',
  'percentUnique',
  'sum',
  'average',
  'min',
  'max',
  'checked',
  'unChecked',
  'percentChecked',
  'percentUnChecked',
  'earliestDate',
  'latestDate',
  'dateRangeOfDays',
  'dateRangeOfMonths',
  'totalAttachmentSize',
] as const;
export type StatisticFunc = (typeof STATISTIC_FUNCS)[number];

const ANY: StatisticFunc[] = [
  'count',
  'empty',
  'filled',
  'unique',
  'percentEmpty',
  'percentFilled',
  'percentUnique',
];

/** The functions a field allows: any field the counting ones, then by its value class. */
export const allowedStatistics = (field: Field): StatisticFunc[] => {
  if (field.type === 'attachment') return [...ANY, 'totalAttachmentSize'];
  switch (field.cellValueType) {
    case 'number':
      return [...ANY, 'sum', 'average', 'min', 'max'];
    case 'boolean':
      return [...ANY, 'checked', 'unChecked', 'percentChecked', 'percentUnChecked'];
    case 'dateTime':
      return [...ANY, 'earliestDate', 'latestDate', 'dateRangeOfDays', 'dateRangeOfMonths'];
    default:
      return ANY;
  }
};

const isEmpty = (cell: StoredCell | undefined): boolean =>
  cell === undefined || cell === null || cell === '' || (Array.isArray(cell) && cell.length === 0);

const itemsOf = (cells: readonly (StoredCell | undefined)[]): unknown[] =>
  cells.flatMap((cell): unknown[] => (isEmpty(cell) ? [] : Array.isArray(cell) ? [...cell] : [cell]));

const percent = (part: number, whole: number): number | null => (whole === 0 ? null : (part / whole) * 100);

const numbers = (cells: readonly (StoredCell | undefined)[]): number[] =>
  itemsOf(cells).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

const times = (cells: readonly (StoredCell | undefined)[]): number[] =>
  itemsOf(cells)
    .map((v) => (typeof v === 'string' ? Date.parse(v) : Number.NaN))
    .filter((t) => !Number.isNaN(t));

const DAY_MS = 86_400_000;

/** The smallest and largest of a non-empty list (no spread: columns can be long). */
const extremes = (xs: readonly number[]): [number, number] =>
  xs.reduce<[number, number]>(([lo, hi], x) => [x < lo ? x : lo, x > hi ? x : hi], [Infinity, -Infinity]);

/** Whole calendar months from `a` to `b` (UTC), counting a partial month as none. */
const monthsBetween = (a: number, b: number): number => {
  const from = new Date(a);
  const to = new Date(b);
  let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  const shifted = new Date(from);
  shifted.setUTCMonth(from.getUTCMonth() + months);
  if (shifted.getTime() > to.getTime()) months--;
  return months;
};

/** One function's value over the cells of one column (one per record). */
export const statistic = (
  func: StatisticFunc,
  cells: readonly (StoredCell | undefined)[],
): number | string | null => {
  const total = cells.length;
  const filled = cells.filter((c) => !isEmpty(c)).length;
  // a column of lists measures its items; any other, its cells
  const listColumn = cells.some((c) => Array.isArray(c));
  const measured = () => (listColumn ? itemsOf(cells) : cells.filter((c) => !isEmpty(c)));
  const unique = () => new Set(measured().map((c) => JSON.stringify(c))).size;
  const checked = () =>
    cells.filter((c) => c === true || (Array.isArray(c) && c.some((v) => v === true))).length;
  switch (func) {
    case 'count':
      return total;
    case 'empty':
      return total - filled;
    case 'filled':
      return filled;
    case 'unique':
      return unique();
    case 'percentEmpty':
      return percent(total - filled, total);
    case 'percentFilled':
      return percent(filled, total);
    case 'percentUnique':
      return percent(unique(), listColumn ? measured().length : total);
    case 'sum': {
      const ns = numbers(cells);
      return ns.length ? ns.reduce((a, b) => a + b, 0) : null;
    }
    case 'average': {
      const ns = numbers(cells);
      return ns.length ? ns.reduce((a, b) => a + b, 0) / ns.length : null;
    }
    case 'min': {
      const ns = numbers(cells);
      return ns.length ? ns.reduce((a, b) => (b < a ? b : a)) : null;
    }
    case 'max': {
      const ns = numbers(cells);
      return ns.length ? ns.reduce((a, b) => (b > a ? b : a)) : null;
    }
    case 'checked':
      return checked();
    case 'unChecked':
      return total - checked();
    case 'percentChecked':
      return percent(checked(), total);
    case 'percentUnChecked':
      return percent(total - checked(), total);
    case 'earliestDate':
    case 'latestDate': {
      const ts = times(cells);
      if (!ts.length) return null;
      const [lo, hi] = extremes(ts);
      return new Date(func === 'earliestDate' ? lo : hi).toISOString();
    }
    case 'dateRangeOfDays':
    case 'dateRangeOfMonths': {
      const ts = times(cells);
      if (!ts.length) return null;
      const [lo, hi] = extremes(ts);
      return func === 'dateRangeOfDays' ? Math.floor((hi - lo) / DAY_MS) : monthsBetween(lo, hi);
    }
    case 'totalAttachmentSize':
      return itemsOf(cells).reduce<number>((sum, item) => {
        const size = (item as { size?: unknown } | null)?.size;
        return sum + (typeof size === 'number' ? size : 0);
      }, 0);
  }
};
