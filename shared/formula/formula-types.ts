/**
 * The formula language's values and the shape of its functions (contract `computed.md` sections
 * 1–3). Pure: no AWS import, nothing from the field layer (field kinds build on this, not the
 * other way round).
 */

/** The four value types of a result (a field's `cellValueType`). */
export type ValueType = 'string' | 'number' | 'boolean' | 'dateTime';

/** What inference knows of an expression: its type and whether it yields a list. */
export interface Typed {
  type: ValueType;
  multiple: boolean;
  /** True only for `BLANK()`: IF and SWITCH ignore its type when inferring theirs (3.1). */
  blank?: boolean;
}

/**
 * A value during evaluation. `null` is empty. dateTime values are ISO-8601 UTC texts
 * (`2024-03-01T00:00:00.000Z`); which texts are dates is known from the static type (`Typed`).
 * A list holds items of its expression's type, empties (`null`) included, nested one level deep
 * at most.
 */
export type Value = string | number | boolean | null | readonly Value[];

/**
 * An evaluation error (ERROR(), a bad regex, too many items for a scalar argument, an unreadable
 * date…): the cell becomes empty and the write still succeeds; IS_ERROR detects it (1.6).
 */
export class FormulaEvalError extends Error {
  override readonly name = 'FormulaEvalError';
}

/** What evaluating one record's formula knows besides its field values. */
export interface EvalContext {
  /** The formula's `options.timeZone` (canonical IANA name), `UTC` when absent. */
  timeZone: string;
  /** The moment of the recalculation (NOW, TODAY, FROMNOW, TONOW). */
  now: Date;
  /** The record (RECORD_ID, AUTO_NUMBER, CREATED_TIME, LAST_MODIFIED_TIME). */
  record: { id: string; autoNumber: number; createdTime: string; lastModifiedTime: string };
}

/**
 * Evaluation steps one record's formula may take: one per node of the expression (each is
 * evaluated at most once a record: the language has no loops) and one per list item prepared for a
 * function. Past it the evaluation fails (the cell is empty, as for any evaluation error), so no
 * formula over lists of any size holds a write or a backfill up for long.
 */
export const MAX_EVAL_STEPS = 100_000;

/** The steps one record's evaluation may still take (reset by the compiled formula each run). */
export interface Meter {
  left: number;
}

/** Takes `n` steps from the record's budget; a FormulaEvalError when it is spent. */
export const charge = (meter: Meter, n: number): void => {
  meter.left -= n;
  if (meter.left < 0) throw new FormulaEvalError(`the formula took more than ${MAX_EVAL_STEPS} steps`);
};

/**
 * How the evaluator prepares one argument before the function sees it (1.4):
 * - `accepts`: the value types the function takes; a value of another type is converted to the
 *   **first** one (`'any'`: passed as it is).
 * - `arrays`: `undefined` — a scalar argument (a list of 0 items → empty, 1 → that item, more →
 *   FormulaEvalError); `'items'` — a list is passed whole, each item converted; `'join'` — a list is
 *   joined with `", "` into one text first (text functions).
 */
export interface ArgSpec {
  accepts: readonly ValueType[] | 'any';
  arrays?: 'items' | 'join';
}

/** One function of section 2. */
export interface FunctionSpec {
  /** Upper-case name (calls are case-insensitive). */
  name: string;
  /** Fewest arguments; fewer is a 400 at create/convert. */
  minArgs: number;
  /** True for "=n" functions (exactly `minArgs`); "≥n" functions ignore extra arguments. */
  exact?: boolean;
  /**
   * The 400 message when the argument count is wrong, when it differs from the default
   * (`NAME needs at least n param(s)` for ≥n; `NAME needs n param(s)` / `NAME only allow n
   * param(s)` for =n with too few / too many).
   */
  countMessage?: string;
  /** The position of a regular-expression argument, checked at create when it is a literal. */
  patternArg?: number;
  /** Argument preparation by position; the last entry applies to every further argument. */
  args: readonly ArgSpec[];
  /** The result type from the arguments' types (3.1). */
  result(args: readonly Typed[]): Typed;
  /**
   * Evaluates with the arguments prepared per `args`. `types` are the arguments' static types
   * after preparation (a converted argument has its target type). Throws FormulaEvalError.
   */
  evaluate?(args: readonly Value[], ctx: EvalContext, types: readonly Typed[]): Value;
  /**
   * For functions that choose what to evaluate (IF, SWITCH, IS_ERROR): each argument is a thunk
   * that evaluates and prepares it on demand (may throw FormulaEvalError). Used instead of `evaluate`.
   */
  lazy?(args: readonly (() => Value)[], ctx: EvalContext, types: readonly Typed[]): Value;
}

/** Helpers for specs. */
export const single = (type: ValueType): Typed => ({ type, multiple: false });
export const TEXT: ArgSpec = { accepts: ['string'] };
export const TEXTS: ArgSpec = { accepts: ['string'], arrays: 'join' };
export const NUMBER: ArgSpec = { accepts: ['number'] };
export const NUMBERS: ArgSpec = { accepts: ['number'], arrays: 'items' };
export const DATE: ArgSpec = { accepts: ['dateTime'] };
export const ANY: ArgSpec = { accepts: 'any' };
export const ANY_ITEMS: ArgSpec = { accepts: 'any', arrays: 'items' };
