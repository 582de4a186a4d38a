/**
 * Small helpers shared by the field kinds: error messages that name the field, option readers and
 * the loose text conversions typecast relies on. Pure.
 */
import { ValidationError } from '#shared/core/errors.ts';
import type { Field } from './field-types.ts';

/** `Field "Name" (fldXXX)`, the way every cell error names its field. */
export const describeField = (field: Pick<Field, 'id' | 'name'>): string =>
  `Field "${field.name}" (${field.id})`;

/** A 400 for a written cell value, naming the field (contract: "a 400 naming the field"). */
export const cellError = (field: Pick<Field, 'id' | 'name'>, message: string): ValidationError =>
  new ValidationError(`${describeField(field)}: ${message}`);

/** A 400 for bad options of a field type. */
export const optionsError = (type: string, message: string): ValidationError =>
  new ValidationError(`Invalid options for a ${type} field: ${message}`);

/** True when a stored cell counts as empty (absent, null, empty text or empty list: never stored). */
export const isEmptyCell = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** True for a plain JSON object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True for the values that clear a cell when written (`null`, or a key given as undefined). */
export const isNothing = (value: unknown): value is null | undefined => value === null || value === undefined;

/** The options object of a create or update body: absent is `{}`, anything but an object is a 400. */
export const readOptions = (options: unknown, type: string): Record<string, unknown> => {
  if (isNothing(options)) return {};
  if (!isRecord(options)) throw optionsError(type, 'options must be an object');
  return options;
};

/** An optional boolean option: absent stays absent, anything but a boolean is a 400. */
export const optionalBoolean = (
  options: Record<string, unknown>,
  key: string,
  type: string,
): boolean | undefined => {
  const value = options[key];
  if (isNothing(value)) return undefined;
  if (typeof value !== 'boolean') throw optionsError(type, `${key} must be true or false`);
  return value;
};

/**
 * The text of any JSON value, as typecast to text sees it: strings as they are, numbers and
 * booleans via `String`, lists item by item joined by `, `, objects by their `title` or `name`
 * (users, links, choices) and otherwise as JSON (never `[object Object]`).
 */
export const textOf = (value: unknown): string => {
  if (isNothing(value)) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value))
    return value
      .map(textOf)
      .filter((t) => t !== '')
      .join(', ');
  if (isRecord(value)) {
    if (typeof value.title === 'string') return value.title;
    if (typeof value.name === 'string') return value.name;
    return JSON.stringify(value);
  }
  return '';
};

/** Keeps the first occurrence of every item, in order. */
export const unique = <T>(items: Iterable<T>): T[] => [...new Set(items)];

/**
 * Splits comma-separated text into trimmed, non-empty items. A double-quoted item may hold commas
 * (`"a, b"`, with `""` for a quote), which is how list cells render names holding a comma, so
 * rendered text typecasts back to the same list.
 */
export const splitList = (text: string): string[] => {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"' && current.trim() === '') {
      quoted = true;
      wasQuoted = true;
      current = '';
    } else if (ch === ',') {
      items.push(wasQuoted ? current : current.trim());
      current = '';
      wasQuoted = false;
    } else if (!(wasQuoted && /\s/.test(ch ?? ''))) current += ch;
  }
  items.push(wasQuoted ? current : current.trim());
  return items.filter((item) => item.trim() !== '');
};

/** One item of a list rendered as text: quoted (CSV style) when it holds a comma. */
export const quoteListItem = (item: string): string =>
  item.includes(',') ? `"${item.replaceAll('"', '""')}"` : item;
