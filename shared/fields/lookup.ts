/**
 * Lookup and rollup definitions (computed.md 4, 5, 8): checking `lookupOptions` against the
 * table's link fields and the foreign table's fields, the result type, the options a lookup takes
 * from the field it looks up, the rollup expression, default names. Pure: the caller hands in
 * the foreign table's fields.
 */

import { ValidationError } from '#shared/core/errors.ts';
import { compileFormula, FormulaError } from '#shared/formula/compile.ts';
import { dbFieldTypeOf } from './db-field-type.ts';
import type { Field, FieldType } from './field-types.ts';
import { isNothing, isRecord } from './kind-helpers.ts';
import { isLinkField, isMultipleRelationship, linkOptionsOf } from './link-options.ts';
import { linkNamesOf } from './link-storage.ts';
import { normalizeTimeZone, type ResultType, resultDisplayOptions } from './result-options.ts';

/** The three ids a lookup or rollup is defined by. */
export interface LookupOptions {
  foreignTableId: string;
  linkFieldId: string;
  lookupFieldId: string;
}

/** The fields of a table a lookup reads (the caller loads them). */
export type ForeignFields = (tableId: string) => readonly Field[] | undefined;

/** The rollup expressions of the contract (5), written `name({values})`. */
export const ROLLUP_FUNCTIONS = [
  'countall',
  'counta',
  'count',
  'sum',
  'max',
  'min',
  'and',
  'or',
  'xor',
  'array_join',
  'array_unique',
  'array_compact',
  'concatenate',
] as const;

const fail = (message: string) => new ValidationError(message);

/** A link field's relationship is oneMany or manyMany (its cell holds several records). */
const multipleLink = (link: Field) => isMultipleRelationship(link.options.relationship);

/** The link and the looked-up field a `lookupOptions` names, checked per section 8. */
export const resolveLookupOptions = (
  raw: unknown,
  here: readonly Field[],
  foreign: ForeignFields,
): { options: LookupOptions; link: Field; lookedUp: Field } => {
  if (!isRecord(raw)) throw fail('lookupOptions must be an object');
  const { foreignTableId, linkFieldId, lookupFieldId } = raw;
  const link = here.find((f) => f.id === linkFieldId && isLinkField(f));
  if (!link) throw fail(`linkFieldId ${String(linkFieldId)} is invalid`);
  if (foreignTableId !== linkOptionsOf(link.options).foreignTableId)
    throw fail(`foreignTableId ${String(foreignTableId)} is invalid`);
  const lookedUp = foreign(String(foreignTableId))?.find((f) => f.id === lookupFieldId);
  if (!lookedUp) throw fail(`Lookup field ${String(lookupFieldId)} is not exist`);
  return {
    options: { foreignTableId: String(foreignTableId), linkFieldId: link.id, lookupFieldId: lookedUp.id },
    link,
    lookedUp,
  };
};

/** The `lookupOptions` of an answer: the ids plus the link's relationship and storage names (as Teable copies them). */
export const lookupOptionsOut = (options: LookupOptions, link: Field): Record<string, unknown> => ({
  ...options,
  relationship: linkOptionsOf(link.options).relationship,
  ...linkNamesOf(link),
});

/** The ids of a stored `lookupOptions` (answers carry more). */
export const lookupIds = (field: Field): LookupOptions | undefined => {
  const o = field.lookupOptions;
  if (!o || typeof o.linkFieldId !== 'string') return undefined;
  const { foreignTableId, lookupFieldId } = o;
  if (typeof foreignTableId !== 'string' || typeof lookupFieldId !== 'string') return undefined;
  return { foreignTableId, linkFieldId: o.linkFieldId, lookupFieldId };
};

/** Whether a lookup of `lookedUp` through `link` holds lists (4). */
export const lookupIsMultiple = (link: Field, lookedUp: Field): boolean =>
  multipleLink(link) || lookedUp.isMultipleCellValue === true;

/** What a field of a create body says about lookups before its type is looked at. */
export const lookupKindOf = (input: Record<string, unknown>): 'lookup' | 'rollup' | undefined => {
  const hasOptions = !isNothing(input.lookupOptions);
  if (input.isLookup === true) {
    if (!hasOptions) throw fail('lookupOptions is required when isLookup is true.');
    return 'lookup';
  }
  if (input.type === 'rollup') {
    if (!hasOptions) throw fail('lookupOptions is required');
    if (isNothing(input.options)) throw fail('rollup field options is required');
    return 'rollup';
  }
  if (hasOptions) throw fail('lookupOptions is not allowed when isLookup is not true.');
  return undefined;
};

/**
 * Options a lookup copies: the looked-up field's, its `formatting` and `showAs` overridden by the
 * request's (which must fit the lookup, else a 400); a copied `showAs` that does not fit is dropped.
 */
const lookupDisplay = (
  lookedUp: Field,
  result: ResultType,
  requested: Record<string, unknown>,
): Record<string, unknown> => {
  const extra = Object.keys(requested).filter((k) => k !== 'formatting' && k !== 'showAs');
  if (extra.length)
    throw fail(`A lookup field's options may only set formatting and showAs (got ${extra.join(', ')})`);
  if (!isNothing(requested.formatting) || !isNothing(requested.showAs))
    resultDisplayOptions(requested, result, lookedUp.type, true);
  const { formatting, showAs, ...rest } = lookedUp.options;
  const display = resultDisplayOptions(
    { formatting: requested.formatting ?? formatting, showAs: requested.showAs ?? showAs },
    result,
    lookedUp.type,
    false,
  );
  return { ...rest, ...display };
};

/** The part of a lookup field that follows from its options (type, options, flags). */
export const lookupFieldParts = (
  input: { type: string; options?: unknown },
  resolved: { options: LookupOptions; link: Field; lookedUp: Field },
): Pick<
  Field,
  | 'type'
  | 'options'
  | 'cellValueType'
  | 'isMultipleCellValue'
  | 'isComputed'
  | 'isLookup'
  | 'lookupOptions'
  | 'dbFieldType'
> => {
  const { link, lookedUp } = resolved;
  if (input.type !== lookedUp.type)
    throw fail(`Current field type ${input.type} is not equal to lookup field (${lookedUp.type})`);
  const result: ResultType = {
    cellValueType: lookedUp.cellValueType,
    isMultipleCellValue: lookupIsMultiple(link, lookedUp),
  };
  const requested = isNothing(input.options) ? {} : input.options;
  if (!isRecord(requested)) throw fail('options must be an object');
  return {
    type: lookedUp.type as FieldType,
    options: lookupDisplay(lookedUp, result, requested),
    cellValueType: result.cellValueType,
    ...(result.isMultipleCellValue ? { isMultipleCellValue: true } : {}),
    isComputed: true,
    isLookup: true,
    lookupOptions: lookupOptionsOut(resolved.options, link),
    dbFieldType: dbFieldTypeOf({ type: lookedUp.type, isLookup: true, ...result }),
  };
};

/** The rollup expression checked (one of `ROLLUP_FUNCTIONS`, written `name({values})`), compiled for `values`. */
export const compileRollup = (expression: unknown, values: ResultType) => {
  const match = typeof expression === 'string' ? /^\s*([a-z_]+)\(\{values\}\)\s*$/.exec(expression) : null;
  if (!match || !ROLLUP_FUNCTIONS.includes(match[1] as never))
    throw fail(
      `rollup expression must be one of ${ROLLUP_FUNCTIONS.map((f) => `${f}({values})`).join(', ')}`,
    );
  try {
    return compileFormula(String(expression), {
      typeOf: (id) =>
        id === 'values' ? { type: values.cellValueType, multiple: values.isMultipleCellValue } : undefined,
    });
  } catch (e) {
    if (e instanceof FormulaError) throw fail(e.message);
    throw e;
  }
};

/** The part of a rollup field that follows from its options. */
export const rollupFieldParts = (
  input: { options?: unknown },
  resolved: { options: LookupOptions; link: Field; lookedUp: Field },
  strict: boolean,
): Pick<
  Field,
  'options' | 'cellValueType' | 'isMultipleCellValue' | 'isComputed' | 'lookupOptions' | 'dbFieldType'
> => {
  const { link, lookedUp } = resolved;
  if (!isRecord(input.options)) throw fail('rollup field options is required');
  const values: ResultType = {
    cellValueType: lookedUp.cellValueType,
    isMultipleCellValue: lookupIsMultiple(link, lookedUp),
  };
  const compiled = compileRollup(input.options.expression, values);
  const result: ResultType = {
    cellValueType: compiled.type.type,
    isMultipleCellValue: compiled.type.multiple,
  };
  const timeZone = normalizeTimeZone(input.options.timeZone);
  return {
    options: {
      expression: input.options.expression,
      ...(timeZone ? { timeZone } : {}),
      ...resultDisplayOptions(input.options, result, 'rollup', strict),
    },
    cellValueType: result.cellValueType,
    ...(result.isMultipleCellValue ? { isMultipleCellValue: true } : {}),
    isComputed: true,
    lookupOptions: lookupOptionsOut(resolved.options, link),
    dbFieldType: dbFieldTypeOf(result),
  };
};

/** Default names (8): `<looked-up> (from <link>)` and `<looked-up> Rollup (from <link>)`. */
export const lookupDefaultName = (kind: 'lookup' | 'rollup', link: Field, lookedUp: Field): string =>
  kind === 'lookup' ? `${lookedUp.name} (from ${link.name})` : `${lookedUp.name} Rollup (from ${link.name})`;
