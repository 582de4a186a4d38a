/**
 * The options of a computed result (computed.md 3.2, 3.3): `timeZone`, and `formatting` and
 * `showAs` as they fit the result's type, and the text of a result cell. Shared by formula and
 * rollup fields (and the formatting a lookup may override). Pure.
 */
import { canonicalTimeZone, formatDate, formatNumber } from '#shared/core/format.ts';
import { COLORS } from './colors.ts';
import type { CellValueType, Field, StoredCell } from './field-types.ts';
import { isNothing, isRecord, optionsError } from './kind-helpers.ts';
import { dateFormattingOf, normalizeDateFormatting } from './kinds/date.ts';
import { DEFAULT_NUMBER_FORMATTING, normalizeNumberFormatting } from './kinds/number.ts';

/** What a result is: the inferred type and whether cells hold lists. */
export interface ResultType {
  cellValueType: CellValueType;
  isMultipleCellValue: boolean;
}

const HUES = ['blue', 'cyan', 'gray', 'green', 'orange', 'pink', 'purple', 'red', 'teal', 'yellow'];

/** `timeZone`: an IANA name or `utc` (any case); else the 400 of 3.2. */
export const normalizeTimeZone = (raw: unknown): string | undefined => {
  if (isNothing(raw)) return undefined;
  const zone =
    typeof raw === 'string' ? (raw.toLowerCase() === 'utc' ? 'UTC' : canonicalTimeZone(raw)) : undefined;
  if (!zone) throw optionsError('formula', `"${String(raw)}" is not a valid timezone`);
  return typeof raw === 'string' && raw.toLowerCase() === 'utc' ? raw : zone;
};

const SHOW_AS_NUMBER_SINGLE = ['bar', 'ring'];
const SHOW_AS_NUMBER_MULTIPLE = ['bar', 'line'];
const SHOW_AS_TEXT = ['url', 'email', 'phone'];

const color = (raw: unknown, type: string): string => {
  if (typeof raw !== 'string' || !(COLORS.includes(raw) || HUES.includes(raw)))
    throw optionsError(type, `showAs.color must be a color name such as blue or tealLight1`);
  return raw;
};

/** A `showAs` that fits the result, or a 400 (`type` names the field type in the message). */
const normalizeShowAs = (raw: unknown, result: ResultType, type: string): Record<string, unknown> => {
  if (!isRecord(raw)) throw optionsError(type, 'showAs must be an object');
  const kind = raw.type;
  if (result.cellValueType === 'number') {
    const allowed = result.isMultipleCellValue ? SHOW_AS_NUMBER_MULTIPLE : SHOW_AS_NUMBER_SINGLE;
    if (!allowed.includes(kind as string))
      throw optionsError(type, `showAs.type must be one of ${allowed.join(', ')} for this result`);
    const out: Record<string, unknown> = { type: kind, color: color(raw.color, type) };
    if (!result.isMultipleCellValue) {
      if (typeof raw.showValue !== 'boolean')
        throw optionsError(type, 'showAs.showValue must be true or false');
      if (typeof raw.maxValue !== 'number' || !Number.isFinite(raw.maxValue))
        throw optionsError(type, 'showAs.maxValue must be a number');
      out.showValue = raw.showValue;
      out.maxValue = raw.maxValue;
    }
    return out;
  }
  if (result.cellValueType === 'string') {
    if (!SHOW_AS_TEXT.includes(kind as string))
      throw optionsError(type, `showAs.type must be one of ${SHOW_AS_TEXT.join(', ')} for a text result`);
    return { type: kind };
  }
  throw optionsError(type, `showAs does not apply to a ${result.cellValueType} result`);
};

/** A `formatting` that fits the result, or a 400; the type's default when absent. */
const normalizeFormatting = (
  raw: unknown,
  result: ResultType,
  type: string,
): Record<string, unknown> | undefined => {
  if (result.cellValueType === 'number') return { ...normalizeNumberFormatting(raw, type) };
  if (result.cellValueType === 'dateTime') return { ...normalizeDateFormatting(raw, type) };
  if (!isNothing(raw))
    throw optionsError(type, `formatting does not apply to a ${result.cellValueType} result`);
  return undefined;
};

/**
 * `formatting` and `showAs` for a result type. `strict` (the request gave them): a misfit is a
 * 400; otherwise (the type changed under stored options) misfits are dropped and defaults filled.
 */
export const resultDisplayOptions = (
  raw: Record<string, unknown>,
  result: ResultType,
  type: string,
  strict: boolean,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  const attempt = <T>(fn: () => T, fallback: () => T): T => {
    if (strict) return fn();
    try {
      return fn();
    } catch {
      return fallback();
    }
  };
  const formatting = attempt(
    () => normalizeFormatting(raw.formatting, result, type),
    () => normalizeFormatting(undefined, result, type),
  );
  if (formatting) out.formatting = formatting;
  if (!isNothing(raw.showAs)) {
    const showAs = attempt<Record<string, unknown> | undefined>(
      () => normalizeShowAs(raw.showAs, result, type),
      () => undefined,
    );
    if (showAs) out.showAs = showAs;
  }
  return out;
};

/** One item of a result as text (3.3). */
const itemText = (value: unknown, field: Field): string => {
  if (value === null || value === undefined) return '';
  if (field.cellValueType === 'number' && typeof value === 'number')
    return formatNumber(
      value,
      (isRecord(field.options.formatting) ? field.options.formatting : DEFAULT_NUMBER_FORMATTING) as never,
    );
  if (field.cellValueType === 'dateTime' && typeof value === 'string')
    return formatDate(value, dateFormattingOf(field));
  if (isRecord(value) && typeof value.title === 'string') return value.title;
  return String(value);
};

/** A result cell as text: formatted per the result type; lists joined with `, `. */
export const resultText = (value: StoredCell, field: Field): string =>
  Array.isArray(value) ? value.map((v) => itemText(v, field)).join(', ') : itemText(value, field);
