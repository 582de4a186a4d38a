/**
 * Argument conversion (computed.md 1.4), truthiness and the plain text of values. Pure.
 */
import { readDate } from './dates.ts';
import { FormulaEvalError, type Value, type ValueType } from './formula-types.ts';

/** A numeric text as a number (`" 12.5 "` → 12.5), `""` → 0, anything else undefined. */
const numericText = (text: string): number | undefined => {
  const t = text.trim();
  if (t === '') return 0;
  // decimal notation only: "0x10" or "Infinity" are texts, not numbers
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * One scalar (not a list) of type `from` converted to `to` per the table of 1.4. Empty stays
 * empty; a text that is not a date, converted to dateTime, is an FormulaEvalError.
 */
export const convertScalar = (value: Value, from: ValueType, to: ValueType, timeZone: string): Value => {
  if (value === null || Array.isArray(value) || from === to) return value;
  switch (to) {
    case 'number':
      if (from === 'string') return numericText(String(value)) ?? null;
      if (from === 'boolean') return value ? 1 : 0;
      return null;
    case 'dateTime':
      return from === 'string' ? readDate(String(value), timeZone) : null;
    case 'boolean':
      if (from === 'string') return value !== '';
      if (from === 'number') return value !== 0;
      return true;
    case 'string':
      return plainText(value);
  }
};

/** A value converted item by item (a list stays a list). */
export const convertValue = (value: Value, from: ValueType, to: ValueType, timeZone: string): Value =>
  Array.isArray(value)
    ? value.map((item: Value) => convertValue(item, from, to, timeZone))
    : convertScalar(value, from, to, timeZone);

/** The one item a scalar argument takes from a list: 0 items → empty, 1 → it, more → FormulaEvalError. */
export const scalarOf = (value: Value): Value => {
  if (!Array.isArray(value)) return value;
  const flat = value.flat();
  if (flat.length === 0) return null;
  if (flat.length === 1) return flat[0] ?? null;
  throw new FormulaEvalError(`expected one value, got ${flat.length}`);
};

/** Truthiness (1.2): non-empty text, a non-zero number, true, a non-empty list. */
export const truthy = (value: Value): boolean => {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  return value === true || (typeof value === 'string' && value !== '');
};

/** A scalar as plain text: numbers in JS form (`3`, `0.5`), booleans `true`/`false`, empty `""`. */
export const plainText = (value: Value): string => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(plainText).join(', ');
  return String(value);
};

/** Every item of a value, lists flattened (one level is all a list holds). */
export const itemsOf = (value: Value): Value[] =>
  Array.isArray(value) ? (value as Value[]).flat() : [value];
