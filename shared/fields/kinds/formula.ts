/**
 * formula (computed.md 1–3, 8): an expression over the fields of its table, stored per record
 * and typed by inference. What reads and renders its cells is here; checking and typing the
 * expression (a 400 for syntax, unknown fields or functions, argument counts, a reference to
 * itself) and evaluating it need the compiler, in `fields/formula-resolve.ts`, so routes that only
 * read records do not load it.
 */

import type { FieldKind } from '../field-types.ts';
import { isNothing, optionsError, readOptions } from '../kind-helpers.ts';
import { normalizeTimeZone, resultText } from '../result-options.ts';

/** A formula cell: the stored result, rendered per the inferred type. */
export const formula: FieldKind = {
  type: 'formula',
  defaultName: 'Calculation',
  isComputed: true,
  allowedAsPrimary: true,
  queryByResult: true,
  normalizeOptions(options) {
    const o = readOptions(options, 'formula');
    if (typeof o.expression !== 'string' || o.expression.trim() === '')
      throw optionsError('formula', 'expression is required');
    const timeZone = normalizeTimeZone(o.timeZone);
    return {
      expression: o.expression,
      ...(timeZone ? { timeZone } : {}),
      ...(isNothing(o.formatting) ? {} : { formatting: o.formatting }),
      ...(isNothing(o.showAs) ? {} : { showAs: o.showAs }),
    };
  },
  // the real type comes from `resolveFormula` (fields/formula-resolve.ts), which knows the referenced fields
  cellValueType: () => 'string',
  isMultipleCellValue: () => false,
  validate: () => ({ value: undefined }),
  typecast: () => ({ value: undefined }),
  defaultValue: () => undefined,
  toJson: (value) => value,
  toText: (value, field) => resultText(value, field),
  query: { valueClass: 'text', searchedByDefault: true, searchCost: 3 },
};
