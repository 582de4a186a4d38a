/**
 * Typed reads of stored attributes, for the entity modules' `…Of` functions: an attribute of the
 * wrong type reads as absent, never as the text `undefined`.
 */

/** A text attribute; `''` when absent. */
export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** An optional text attribute; `undefined` when absent. */
export const optionalText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A nullable text attribute; `null` when absent. */
export const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A list of texts; `null` when absent (other members are dropped). */
export const textsOrNull = (value: unknown): string[] | null =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null;

/** A number attribute; `0` when absent. */
export const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** A map attribute (an object that is not a list). */
export const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
