import { ValidationError } from '#shared/core/errors.ts';
import { thumbnailsOf } from '#shared/entities/attachments.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import type { ReadContext } from '#shared/fields/field-types.ts';
import { type ThumbnailSize, thumbnailTokensIn } from '#shared/fields/kinds/attachment.ts';
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

/**
 * Answers records as the API shows them, link titles read in one batch per foreign table and, at
 * the same time, the thumbnails made of the images their cells hold (one batch read, only when
 * some cell holds an image that needs one).
 */
export const renderRecords = async (
  schema: TableSchema,
  items: readonly RecordItem[],
  options: RenderOptions,
) => {
  const [links, thumbnails] = await Promise.all([
    linkTitlesFor(schema, items, options.projection),
    options.cellFormat === 'json' ? thumbnailsFor(schema, items, options.projection) : undefined,
  ]);
  const ctx: ReadContext = thumbnails ? { ...links, thumbnails: (t) => thumbnails.get(t) } : links;
  return items.map((item) => toRecordOut(item, schema, options, ctx));
};

/** The thumbnails made of the images held by the records' attachment cells (and lookups of them). */
const thumbnailsFor = async (
  schema: TableSchema,
  items: readonly RecordItem[],
  projection: ReadonlySet<string> | undefined,
): Promise<ReadonlyMap<string, readonly ThumbnailSize[]> | undefined> => {
  const fields = schema.fields.filter(
    (f) => f.type === 'attachment' && (!projection || projection.has(f.id)),
  );
  const tokens = fields.flatMap((f) => items.flatMap((item) => thumbnailTokensIn(item[f.id])));
  return tokens.length ? thumbnailsOf(tokens) : undefined;
};
