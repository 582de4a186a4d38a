/**
 * Dates inside formulas (computed.md 1.5): reading text as an instant in the formula's zone.
 * Owned by the date-time functions' author; the evaluator converts text arguments with it.
 */
import { EvalError } from './types.ts';

/**
 * The instant a text names, as ISO UTC: ISO-8601 with `Z` or an offset is that instant; other
 * text (`2023-09-08`, `2023-09-08 18:28:38`) is local time in `timeZone`. Unreadable: EvalError.
 */
export const readDate = (text: string, timeZone: string): string => {
  void timeZone;
  throw new EvalError(`"${text}" is not a date`);
};
