/**
 * formula (computed.md 1–3, 8): an expression over the fields of its table, stored per record
 * and typed by inference. The expression is checked here (a 400 for syntax, unknown fields or
 * functions, argument counts, a reference to itself); evaluation is the record layer's, through
 * `compileFieldFormula`.
 */
import { ValidationError } from '#shared/core/errors.ts';
import { type CompiledFormula, compileFormula, FormulaError } from '#shared/formula/compile.ts';
import type { Typed } from '#shared/formula/types.ts';
import { isNothing, optionsError, readOptions } from '../cells.ts';
import { CYCLE_MESSAGE, formulaExpression } from '../dependencies.ts';
import { normalizeTimeZone, type ResultType, resultDisplayOptions, resultText } from '../result-options.ts';
import type { CellValueType, Field, FieldKind } from '../types.ts';

/** The reference's column type for a result (computed.md 8). */
export const dbFieldTypeOf = (result: ResultType): string => {
  if (result.isMultipleCellValue) return 'JSON';
  const types: Record<CellValueType, string> = {
    string: 'TEXT',
    number: 'REAL',
    boolean: 'BOOLEAN',
    dateTime: 'DATETIME',
  };
  return types[result.cellValueType];
};

/** How a formula sees a field of its table. */
const typedOf = (field: Field): Typed => ({
  type: field.cellValueType,
  multiple: field.isMultipleCellValue === true,
});

/**
 * A formula field's expression compiled against its table's fields (`fields` may include the
 * formula itself: a reference to it is a cycle). Errors are 400s with the contract's messages.
 */
export const compileFieldFormula = (field: Field, fields: readonly Field[]): CompiledFormula => {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const expression = formulaExpression(field);
  try {
    const compiled = compileFormula(expression, {
      typeOf: (id) => {
        const f = byId.get(id);
        return f && id !== field.id
          ? typedOf(f)
          : id === field.id
            ? { type: 'string', multiple: false }
            : undefined;
      },
    });
    if (compiled.refs.includes(field.id)) throw new ValidationError(CYCLE_MESSAGE);
    return compiled;
  } catch (e) {
    if (e instanceof FormulaError) throw new ValidationError(e.message);
    throw e;
  }
};

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
  // the real type comes from `resolve`, which knows the referenced fields
  cellValueType: () => 'string',
  isMultipleCellValue: () => false,
  resolve(field, others, strict) {
    const compiled = compileFieldFormula(field, [...others, field]);
    const result: ResultType = {
      cellValueType: compiled.type.type,
      isMultipleCellValue: compiled.type.multiple,
    };
    const { expression, timeZone } = field.options;
    const { isMultipleCellValue: _m, hasError: _e, ...rest } = field;
    return {
      ...rest,
      options: {
        expression,
        ...(timeZone === undefined ? {} : { timeZone }),
        ...resultDisplayOptions(field.options, result, 'formula', strict),
      },
      cellValueType: result.cellValueType,
      ...(result.isMultipleCellValue ? { isMultipleCellValue: true } : {}),
      isComputed: true,
      dbFieldType: dbFieldTypeOf(result),
    };
  },
  validate: () => ({ value: undefined }),
  typecast: () => ({ value: undefined }),
  defaultValue: () => undefined,
  toJson: (value) => value,
  toText: (value, field) => resultText(value, field),
  query: { valueClass: 'text', searchedByDefault: true, searchCost: 3 },
};
