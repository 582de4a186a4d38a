/** date (fields.md "Types", "Writing values"), and the formatting shared with the time stamps. */

import {
  canonicalTimeZone,
  DATE_FORMATS,
  type DateFormatting,
  DEFAULT_DATE_FORMATTING,
  formatDate,
  parseDate,
  parseIsoWithOffset,
  TIME_FORMATS,
} from '#shared/core/format.ts';
import type { Field, FieldKind, KindQuery } from '../field-types.ts';
import { cellError, isNothing, isRecord, optionsError, readOptions } from '../kind-helpers.ts';

/** Checks a date `formatting` and fills the defaults (`YYYY-MM-DD`, `None`, `UTC`); a bad zone is a 400. */
export const normalizeDateFormatting = (raw: unknown, type: string): DateFormatting => {
  if (isNothing(raw)) return { ...DEFAULT_DATE_FORMATTING };
  if (!isRecord(raw)) throw optionsError(type, 'formatting must be an object');
  const date = raw.date ?? DEFAULT_DATE_FORMATTING.date;
  if (!DATE_FORMATS.includes(date as never))
    throw optionsError(type, `formatting.date must be one of ${DATE_FORMATS.join(', ')}`);
  const time = raw.time ?? DEFAULT_DATE_FORMATTING.time;
  if (!TIME_FORMATS.includes(time as never))
    throw optionsError(type, `formatting.time must be one of ${TIME_FORMATS.join(', ')}`);
  const zone = raw.timeZone ?? DEFAULT_DATE_FORMATTING.timeZone;
  const timeZone = typeof zone === 'string' ? canonicalTimeZone(zone) : undefined;
  if (!timeZone) throw optionsError(type, `formatting.timeZone "${String(zone)}" is not an IANA time zone`);
  return { date: date as DateFormatting['date'], time: time as DateFormatting['time'], timeZone };
};

/** The field's formatting as stored, or the default for a field stored without one. */
export const dateFormattingOf = (field: Field): DateFormatting =>
  isRecord(field.options.formatting)
    ? { ...DEFAULT_DATE_FORMATTING, ...(field.options.formatting as Partial<DateFormatting>) }
    : DEFAULT_DATE_FORMATTING;

/** A stored time as the field shows it. */
export const dateText = (value: unknown, field: Field): string =>
  typeof value === 'string' ? formatDate(value, dateFormattingOf(field)) : String(value);

/** The characters a time's text can hold in any of the date and time formats. */
export const DATE_TEXT_CHARS = '0123456789-/: apm';

/** The query facts of a time (date and the time stamps): a search of all fields leaves times out. */
export const TIME_QUERY: KindQuery = {
  valueClass: 'dateTime',
  searchedByDefault: false,
  searchCost: 2,
  textAlphabet: () => DATE_TEXT_CHARS,
};

const EXAMPLE = '2026-03-01T00:00:00.000Z';

/** A point in time, stored as UTC ISO with milliseconds. */
export const date: FieldKind = {
  type: 'date',
  defaultName: 'Date',
  isComputed: false,
  allowedAsPrimary: true,
  normalizeOptions(options) {
    const o = readOptions(options, 'date');
    const out: Record<string, unknown> = { formatting: normalizeDateFormatting(o.formatting, 'date') };
    if (!isNothing(o.defaultValue)) {
      if (o.defaultValue !== 'now') throw optionsError('date', 'defaultValue must be "now"');
      out.defaultValue = 'now';
    }
    return out;
  },
  cellValueType: () => 'dateTime',
  isMultipleCellValue: () => false,
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    // any offset is fine even without typecast (fields.md); the cell is kept in UTC
    const iso = typeof value === 'string' ? parseIsoWithOffset(value) : undefined;
    if (!iso) throw cellError(field, `expected an ISO 8601 time with an offset, like ${EXAMPLE}`);
    return { value: iso };
  },
  typecast(value, field, ctx) {
    const formatting = dateFormattingOf(field);
    const first = Array.isArray(value) && value.length === 1 ? value[0] : value;
    const dayFirst = formatting.date.startsWith('D');
    return { value: parseDate(first, { timeZone: formatting.timeZone, now: ctx.now, dayFirst }) };
  },
  defaultValue: (field, ctx) => (field.options.defaultValue === 'now' ? ctx.now.toISOString() : undefined),
  toJson: (value) => value,
  toText: (value, field) => dateText(value, field),
  query: TIME_QUERY,
};
