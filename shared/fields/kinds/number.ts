/** number and rating (fields.md "Types", "Writing values"). */

import {
  formatNumber,
  NUMBER_FORMAT_TYPES,
  type NumberFormatting,
  parseNumberText,
} from '#shared/core/format.ts';
import { COLORS } from '../colors.ts';
import type { Converted, Field, FieldKind } from '../field-types.ts';
import { cellError, isNothing, isRecord, optionsError, readOptions } from '../kind-helpers.ts';

/** A number field's formatting when none is given: decimal, 2 digits. */
export const DEFAULT_NUMBER_FORMATTING: NumberFormatting = { type: 'decimal', precision: 2 };

/** The most digits after the point a number's formatting shows (Teable's limit). */
export const MAX_NUMBER_PRECISION = 5;

/** The number a typecast value stands for: numbers as they are, text per `parseNumberText`. */
export const numberOf = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') return parseNumberText(value);
  // a one-item list (what a lookup or a copied multi-value cell looks like) counts as its item
  if (Array.isArray(value)) return value.length === 1 ? numberOf(value[0]) : undefined;
  return undefined;
};

/** Checks `formatting` and fills the default (decimal, precision 2; `$` for currency). */
export const normalizeNumberFormatting = (raw: unknown, type: string): NumberFormatting => {
  if (isNothing(raw)) return { ...DEFAULT_NUMBER_FORMATTING };
  if (!isRecord(raw)) throw optionsError(type, 'formatting must be an object');
  const kind = raw.type ?? 'decimal';
  if (!NUMBER_FORMAT_TYPES.includes(kind as never))
    throw optionsError(type, `formatting.type must be one of ${NUMBER_FORMAT_TYPES.join(', ')}`);
  const precision = raw.precision ?? 2;
  if (
    typeof precision !== 'number' ||
    !Number.isInteger(precision) ||
    precision < 0 ||
    precision > MAX_NUMBER_PRECISION
  )
    throw optionsError(type, `formatting.precision must be an integer from 0 to ${MAX_NUMBER_PRECISION}`);
  const formatting: NumberFormatting = { type: kind as NumberFormatting['type'], precision };
  if (kind === 'currency') {
    const symbol = raw.symbol ?? '$';
    if (typeof symbol !== 'string' || symbol.length > 10)
      throw optionsError(type, 'formatting.symbol must be text of at most 10 characters');
    formatting.symbol = symbol;
  }
  return formatting;
};

const DIGITS = '0123456789';

/** The characters a plain number's text can hold (`String(n)`: sign, point, exponent). */
export const PLAIN_NUMBER_CHARS = `${DIGITS}-.e+`;

/** The characters a formatted number's text can hold; undefined for a formatting this does not know. */
const formattedNumberChars = (field: Field): string | undefined => {
  const formatting = field.options.formatting as { type?: unknown; symbol?: unknown } | undefined;
  if (formatting && !NUMBER_FORMAT_TYPES.includes(formatting.type as never)) return undefined;
  const symbol = typeof formatting?.symbol === 'string' ? formatting.symbol.toLowerCase() : '$';
  return `${DIGITS}.,-%${symbol}`;
};

const formattingOf = (field: Field): NumberFormatting =>
  isRecord(field.options.formatting)
    ? (field.options.formatting as unknown as NumberFormatting)
    : DEFAULT_NUMBER_FORMATTING;

/** A number cell (`12.5`), shown as decimal, percent or currency. */
export const number: FieldKind = {
  type: 'number',
  defaultName: 'Number',
  isComputed: false,
  allowedAsPrimary: true,
  normalizeOptions(options) {
    const o = readOptions(options, 'number');
    const out: Record<string, unknown> = { formatting: normalizeNumberFormatting(o.formatting, 'number') };
    if (!isNothing(o.defaultValue)) {
      if (typeof o.defaultValue !== 'number' || !Number.isFinite(o.defaultValue))
        throw optionsError('number', 'defaultValue must be a number');
      out.defaultValue = o.defaultValue;
    }
    return out;
  },
  cellValueType: () => 'number',
  isMultipleCellValue: () => false,
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    if (typeof value !== 'number' || !Number.isFinite(value)) throw cellError(field, 'expected a number');
    return { value };
  },
  typecast: (value) => ({ value: numberOf(value) }),
  defaultValue: (field) =>
    typeof field.options.defaultValue === 'number' && Number.isFinite(field.options.defaultValue)
      ? field.options.defaultValue
      : undefined,
  toJson: (value) => value,
  toText: (value, field) =>
    typeof value === 'number' ? formatNumber(value, formattingOf(field)) : String(value),
  query: {
    valueClass: 'number',
    // a field stored without formatting shows the default's digits, so it groups by them too
    groupPrecision: DEFAULT_NUMBER_FORMATTING.precision,
    searchedByDefault: true,
    searchCost: 1,
    textAlphabet: formattedNumberChars,
  },
};

/** The rating icons (Teable's). */
export const RATING_ICONS = ['star', 'moon', 'sun', 'zap', 'flame', 'heart', 'apple', 'thumb-up'] as const;
/** A rating's options when none are given: 5 yellow stars. */
export const DEFAULT_RATING_OPTIONS = { icon: 'star', color: 'yellowBright', max: 5 } as const;

const maxOf = (field: Field): number =>
  typeof field.options.max === 'number' ? field.options.max : DEFAULT_RATING_OPTIONS.max;

/** A rating cell: an integer from 1 to the field's max (1..10). */
export const rating: FieldKind = {
  type: 'rating',
  defaultName: 'Rating',
  isComputed: false,
  allowedAsPrimary: true,
  normalizeOptions(options) {
    const o = readOptions(options, 'rating');
    const icon = o.icon ?? DEFAULT_RATING_OPTIONS.icon;
    if (!RATING_ICONS.includes(icon as never))
      throw optionsError('rating', `icon must be one of ${RATING_ICONS.join(', ')}`);
    const color = o.color ?? DEFAULT_RATING_OPTIONS.color;
    if (!COLORS.includes(color as never))
      throw optionsError('rating', `color must be one of ${COLORS.join(', ')}`);
    const max = o.max ?? DEFAULT_RATING_OPTIONS.max;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 10)
      throw optionsError('rating', 'max must be an integer from 1 to 10');
    return { icon, color, max };
  },
  cellValueType: () => 'number',
  isMultipleCellValue: () => false,
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    const max = maxOf(field);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
      throw cellError(field, `expected an integer from 1 to ${max}`);
    return { value };
  },
  typecast(value, field): Converted {
    const n = numberOf(value);
    if (n === undefined) return { value: undefined };
    const rounded = Math.min(Math.round(n), maxOf(field));
    return { value: rounded >= 1 ? rounded : undefined };
  },
  defaultValue: () => undefined,
  toJson: (value) => value,
  toText: (value) => String(value),
  query: {
    valueClass: 'number',
    searchedByDefault: true,
    searchCost: 0,
    textAlphabet: () => PLAIN_NUMBER_CHARS,
  },
};
