import { ValidationError } from '#shared/core/errors.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import type { FieldKeyType, TableSchema } from '#shared/schema/schema.ts';
import { fieldKeyOf } from './cells.ts';
import { linkTitlesFor } from './links.ts';
import { type RenderOptions, toRecordOut } from './model.ts';

/** Field ids named by a `projection` (keys per `fieldKeyType`); an unknown key is a 400. Pure. */
export const projectionOf = (
  schema: TableSchema,
  projection: readonly string[] | undefined,
  keyType: FieldKeyType,
): ReadonlySet<string> | undefined => {
  if (!projection?.length) return undefined;
  return new Set(
    projection.map((key) => {
      const field = schema.fields.find((f) => fieldKeyOf(f, keyType) === key);
      if (!field)
        throw new ValidationError(
          `projection: field ${keyType} ${JSON.stringify(key.slice(0, 100))} not found`,
        );
      return field.id;
    }),
  );
};

/** Answers records as the API shows them, link titles read in one batch per foreign table. */
export const renderRecords = async (
  schema: TableSchema,
  items: readonly RecordItem[],
  options: RenderOptions,
) => {
  const ctx = await linkTitlesFor(schema, items, options.projection);
  return items.map((item) => toRecordOut(item, schema, options, ctx));
};
