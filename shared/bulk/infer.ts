/**
 * The column types an import proposes (data-flow.md 7, Teable's analyze): read from a sample of the
 * first rows, a column is the first of these that every non-empty value fits — number (plain
 * decimals, an optional sign, thousands separators `,` between groups of three), date (ISO 8601
 * dates and date-times, `YYYY/MM/DD`), checkbox (true/false), single select (at most 50 distinct
 * values, each used twice on average, in at least 10 values), long text (a value with a line break
 * or over 255 characters), text. A column with no value is text. Pure.
 *
 * Not inferred (left as text, to change after): currencies and percentages (`$5`, `5%`), dates in
 * day-first or month-first forms (`03/04/2024` is ambiguous), times alone, multiple selects,
 * emails, URLs, phone numbers, ratings, users and links.
 *
 * A number column imported into a new table also gets the formatting that shows its values as the
 * file wrote them (`inferredOptions`, used by the import: the analysis answers Teable's `{type,
 * name}` alone): an export writes every number of a column with its field's precision (`1.00`,
 * `1`, `1.250`), so the decimals the file shows are the precision the column had.
 * A checkbox column is `true` where checked and empty where not (as exports, ours and Teable's,
 * write it), or `true`/`false`: its empty cells are unchecked boxes. A column every cell of which
 * is empty cannot be told from an empty text column and stays text.
 */
import { MAX_NUMBER_PRECISION } from '#shared/fields/kinds/number.ts';

export type InferredType = 'number' | 'date' | 'checkbox' | 'singleSelect' | 'longText' | 'singleLineText';

const NUMBER = /^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?\.\d+$/;
const DATE =
  /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$|^\d{4}\/\d{1,2}\/\d{1,2}$/;
const BOOLEAN = /^(true|false)$/i;

const isDate = (v: string) => DATE.test(v) && !Number.isNaN(Date.parse(v.replaceAll('/', '-')));

/** The type of one column from its sampled values. */
export const inferType = (values: readonly string[]): InferredType => {
  const present = values.map((v) => v.trim()).filter((v) => v !== '');
  if (!present.length) return 'singleLineText';
  if (present.every((v) => NUMBER.test(v))) return 'number';
  if (present.every(isDate)) return 'date';
  if (present.every((v) => BOOLEAN.test(v))) return 'checkbox';
  if (values.some((v) => v.includes('\n') || v.includes('\r') || v.length > 255)) return 'longText';
  const distinct = new Set(present).size;
  if (present.length >= 10 && distinct <= 50 && distinct * 2 <= present.length) return 'singleSelect';
  return 'singleLineText';
};

/** A number as an import reads it (thousands separators dropped); NaN when it is none. */
export const numberOf = (text: string): number =>
  NUMBER.test(text.trim()) ? Number(text.trim().replaceAll(',', '')) : Number.NaN;

/** The digits after the point a number's text shows (`1.50` → 2, `1,234` → 0). */
const decimalsOf = (text: string): number => text.trim().split('.')[1]?.length ?? 0;

/**
 * The precision that shows a column's numbers as the file wrote them: the most digits after the
 * point any of them shows (an integer column: 0), at most what a field allows; text that is no
 * number is left out. Undefined when the column holds no number.
 */
export const numberPrecisionOf = (values: readonly string[]): number | undefined => {
  const numbers = values.filter((v) => !Number.isNaN(numberOf(v)));
  if (!numbers.length) return undefined;
  return Math.min(MAX_NUMBER_PRECISION, Math.max(...numbers.map(decimalsOf)));
};

/** Whether a column of this type gets options from its values (`inferredOptions`). */
export const hasInferredOptions = (type: string): boolean => type === 'number';

/** Options of a column's field inferred from its values: a number's formatting; undefined for the defaults. */
export const inferredOptions = (
  type: string,
  values: readonly string[],
): { formatting: { type: 'decimal'; precision: number } } | undefined => {
  if (!hasInferredOptions(type)) return undefined;
  const precision = numberPrecisionOf(values);
  return precision === undefined ? undefined : { formatting: { type: 'decimal', precision } };
};

/** The columns of a sheet: names from the header row (or `Column n`), types from the sample. */
export const inferColumns = (
  header: readonly string[] | undefined,
  sample: readonly (readonly string[])[],
  width: number,
): { name: string; type: InferredType }[] => {
  const seen = new Set<string>();
  return Array.from({ length: width }, (_, i) => {
    const base = header?.[i]?.trim() || `Column ${i + 1}`;
    let name = base;
    for (let n = 2; seen.has(name.toLowerCase()); n++) name = `${base} ${n}`;
    seen.add(name.toLowerCase());
    return { name, type: inferType(sample.map((row) => row[i] ?? '')) };
  });
};
