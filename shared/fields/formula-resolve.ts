/**
 * Checking, typing and evaluating formula fields: what needs the formula compiler. Imported by
 * the routes that define fields or write records, not by those that only read.
 */
import { ValidationError } from '#shared/core/errors.ts';
import { type CompiledFormula, compileFormula, FormulaError } from '#shared/formula/compile.ts';
import type { Typed } from '#shared/formula/formula-types.ts';
import { dbFieldTypeOf } from './db-field-type.ts';
import { CYCLE_MESSAGE, formulaExpression } from './dependencies.ts';
import type { Field } from './field-types.ts';
import { type ResultType, resultDisplayOptions } from './result-options.ts';

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

/**
 * A formula field completed from its expression and the table's other fields: its result type,
 * display options for that type and column type. `strict`: display options that do not fit the
 * result are a 400 (else dropped).
 */
export const resolveFormula = (field: Field, others: readonly Field[], strict: boolean): Field => {
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
};

/**
 * For kinds whose result depends on other fields of the table (formula): the step that completes
 * a field against them (result type, display options fitting it). `strict` when the request gave
 * the display options (a misfit is a 400); otherwise misfits are dropped. Errors are 400s.
 */
export const resolverOf = (
  type: Field['type'],
): ((field: Field, others: readonly Field[], strict: boolean) => Field) | undefined =>
  type === 'formula' ? resolveFormula : undefined;
