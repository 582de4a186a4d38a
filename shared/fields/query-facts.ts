/**
 * A field's query facts (what its kind declares in `FieldKind.query`, resolved for the field's
 * options), for the query engine to ask instead of knowing field types. Pure: no AWS import.
 *
 * A computed result (a formula or rollup, whose kind says `queryByResult`, or a type without a
 * kind) resolves by its cell value type and whether it holds a list (`resultQuery`): the query
 * engine then treats it as it treats a kind of that value class. A lookup takes its looked-up
 * type's facts with its own multiplicity and rendering (`fieldQuery`).
 */

import type {
  CellValueType,
  Field,
  KindQuery,
  QueryValueClass,
  ReadContext,
  StoredCell,
} from './field-types.ts';
import { textOf } from './kind-helpers.ts';
import { lookupToText } from './lookup-cells.ts';
import { kindOf } from './registry.ts';

/** A field's query facts. */
export interface FieldQuery {
  valueClass: QueryValueClass;
  /** True when a cell holds a list (select, user and link filter and group differently then). */
  isMultiple: boolean;
  /** See `KindQuery.groupPrecision`. */
  groupPrecision?: number;
  /** False when a search of all fields leaves the field out. */
  searchedByDefault: boolean;
  /** See `KindQuery.searchCost`. */
  searchCost: number;
  /** See `KindQuery.textAlphabet`: the characters the field's text can hold, undefined for any. */
  textAlphabet: () => string | undefined;
  /** The text of a cell (`cellFormat=text`), which search matches. */
  toText: (value: StoredCell, field: Field, ctx: ReadContext) => string;
}

const RESULT_CLASSES: Readonly<Record<CellValueType, QueryValueClass>> = {
  string: 'text',
  number: 'number',
  boolean: 'boolean',
  dateTime: 'dateTime',
};

/** Teable types with no kind here that a search of all fields leaves out, as Teable does. */
const UNSEARCHED_UNBUILT_TYPES: readonly string[] = ['button'];

/**
 * The query facts of a computed result with no kind of its own: by its cell value type (an
 * unknown one reads as text), rendered as generic text, searched last.
 */
export const resultQuery = (cellValueType: CellValueType, isMultiple: boolean): FieldQuery => ({
  valueClass: Object.hasOwn(RESULT_CLASSES, cellValueType) ? RESULT_CLASSES[cellValueType] : 'text',
  isMultiple,
  searchedByDefault: cellValueType !== 'dateTime',
  searchCost: 5,
  textAlphabet: () => undefined,
  toText: (value) => textOf(value),
});

/** The query facts of a field's own kind, or for a type without a kind, `resultQuery`'s. */
const ownQuery = (field: Field): FieldQuery => {
  const kind = kindOf(field.type);
  if (kind?.queryByResult) {
    // a formula filters, sorts and groups as a field of its result's class, shown its own way
    const result = resultQuery(field.cellValueType, field.isMultipleCellValue === true);
    const precision = (field.options.formatting as { precision?: unknown } | undefined)?.precision;
    return {
      ...result,
      ...(field.cellValueType === 'number' && typeof precision === 'number'
        ? { groupPrecision: precision }
        : {}),
      toText: kind.toText,
    };
  }
  if (!kind) {
    const result = resultQuery(field.cellValueType, field.isMultipleCellValue === true);
    if (UNSEARCHED_UNBUILT_TYPES.includes(field.type)) result.searchedByDefault = false;
    return result;
  }
  const query: KindQuery = kind.query;
  return {
    valueClass: query.valueClass,
    isMultiple: kind.isMultipleCellValue(field.options),
    ...(query.groupPrecision === undefined ? {} : { groupPrecision: query.groupPrecision }),
    // a field whose cells are times (a lookup of one too) is left out whatever its kind
    searchedByDefault: query.searchedByDefault && field.cellValueType !== 'dateTime',
    searchCost: query.searchCost,
    textAlphabet: () => query.textAlphabet?.(field),
    toText: kind.toText,
  };
};

/**
 * The query facts of a field: its kind's, or for a type without a kind, `resultQuery`'s. A lookup
 * (computed.md 7) takes the facts of the type it looks up (a lookup of a select filters as a
 * select, of a number as a number…), but holds a list exactly when `isMultipleCellValue` says so,
 * renders item by item (`lookupToText`) and may hold any character (items joined by `, `).
 */
export const fieldQuery = (field: Field): FieldQuery => {
  const own = ownQuery(field);
  if (!field.isLookup) return own;
  return {
    ...own,
    isMultiple: field.isMultipleCellValue === true,
    textAlphabet: () => undefined,
    toText: lookupToText,
  };
};
