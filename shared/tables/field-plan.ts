/**
 * A field's calculation plan (Teable's `POST /table/{t}/field/plan`, `PUT …/field/{f}/plan`,
 * `GET …/field/{f}/plan`): how many cells creating, converting or recomputing a field writes, and
 * about how long that takes, so the field editor can warn before a long write (Teable's web app
 * asks for a confirmation past one second). The definition is checked as the write itself would
 * check it: a plan of a field that cannot be created is the same 400.
 *
 * The estimate: the cells the write computes or converts (every record of the table, for a
 * computed field or a conversion; none for a plain new field or a rename) times the time one cell
 * took in the bench (`npm run bench`, computed fields: a formula created over 10,000 records in
 * 6.4–6.9 s, about 0.65 ms a cell on DynamoDB Local). The dependency graph Teable adds is left out
 * (its schema makes it optional).
 */
import { readRecordCount } from '#shared/entities/record-counts.ts';
import { queryRecordParts } from '#shared/entities/records.ts';
import { defineField } from '#shared/fields/define.ts';
import { isDerived } from '#shared/fields/dependencies.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { defineConversion, findField, linkDefaultName, linkedFields } from './fields.ts';

/** What one computed or converted cell costs to write, in milliseconds (measured: see above). */
export const MS_PER_CELL = 0.65;

export interface FieldPlan {
  estimateTime: number;
  updateCellCount: number;
}

/** The records of a table: its counter, else counted. */
const recordsOf = async (schema: TableSchema): Promise<number> =>
  (await readRecordCount(schema.table.id)) ?? (await queryRecordParts(schema.table.id, ['id'])).length;

const planOf = (cells: number): FieldPlan => ({
  estimateTime: Math.round(cells * MS_PER_CELL),
  updateCellCount: cells,
});

/** The plan of creating a field: every record's cell when it is computed, none otherwise. */
export const planFieldCreate = async (
  schema: TableSchema,
  input: Record<string, unknown>,
): Promise<FieldPlan> => {
  const field = defineField(input, {
    existing: schema.fields,
    renameTakenName: true,
    newChoiceId: () => newId('choice'),
    defaultName: await linkDefaultName(input, schema.table.baseId),
    foreign: await linkedFields(schema, input.lookupOptions),
  });
  return planOf(isDerived(field) ? await recordsOf(schema) : 0);
};

/** What a conversion changes of a field besides its name and description (those rewrite no cell). */
const definitionOf = (field: Field) => {
  const { name: _, description: __, dbFieldName: ___, ...rest } = field as Field & { description?: unknown };
  return JSON.stringify(rest, Object.keys(rest).sort());
};

/**
 * The plan of converting a field: `skip` when the change rewrites no cell (a new name or
 * description only), else every record's cell.
 */
export const planFieldConvert = async (
  schema: TableSchema,
  fieldId: string,
  input: Record<string, unknown>,
): Promise<FieldPlan | { skip: true }> => {
  const { current, defined } = await defineConversion(schema, fieldId, input);
  if (definitionOf(defined) === definitionOf(current)) return { skip: true };
  return planOf(await recordsOf(schema));
};

/** The plan of computing a field again: every record's cell when it is computed, none otherwise. */
export const planField = async (schema: TableSchema, fieldId: string): Promise<FieldPlan> =>
  planOf(isDerived(findField(schema, fieldId)) ? await recordsOf(schema) : 0);
