import type { Step } from '#shared/db/commit.ts';
import { putFieldOp } from '#shared/entities/schema-items.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { bumpSchemaOp, nextFieldOrder, type TableSchema } from '#shared/schema/schema.ts';

/**
 * The steps that store fields a record write changed (typecast added select choices): each field
 * item, and the table's schema version bumped on the condition that nobody changed the schema
 * since it was read (else the write fails whole and the caller retries).
 */
export const schemaChangeSteps = (schema: TableSchema, changed: readonly Field[]): Step[] => {
  if (changed.length === 0) return [];
  const tableId = schema.table.id;
  return [
    ...changed.map((field): Step => {
      const before = schema.fields.find((f) => f.id === field.id) as Field;
      const order = schema.fieldOrder[field.id] ?? nextFieldOrder(schema);
      return {
        op: putFieldOp(tableId, field, order),
        undo: putFieldOp(tableId, before, order),
      };
    }),
    // Undoing leaves the version bumped: harmless, caches just reload.
    { op: bumpSchemaOp(tableId, schema.version), undo: null },
  ];
};
