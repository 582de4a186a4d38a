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
 */

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
