import { type RecordItem, type RecordPart, storedCell } from '#shared/entities/records.ts';
import type { Field, ReadContext, StoredCell } from '#shared/fields/field-types.ts';
import { type ThumbnailSize, thumbnailPath } from '#shared/fields/kinds/attachment.ts';
import { lookupToJson, lookupToText } from '#shared/fields/lookup-cells.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { type FieldKeyType, primaryField, type TableSchema } from '#shared/schema/schema.ts';
import { downloadUrl } from '#shared/storage/download.ts';
import { fieldKeyOf } from './cells.ts';

/** The value of a field in a record, including the computed system fields. Pure. */
export const cellOf = (item: RecordPart, field: Field): StoredCell | undefined => {
  switch (field.type) {
    case 'autoNumber':
      return item.autoNumber;
    case 'createdTime':
      return item.createdTime;
    case 'lastModifiedTime':
      return item.lastModifiedTime;
    case 'createdBy':
      return item.cb;
    case 'lastModifiedBy':
      return item.mb;
    default:
      return storedCell(item, field.id);
  }
};

/** How a record is answered. */
export interface RenderOptions {
  keyType: FieldKeyType;
  cellFormat: 'json' | 'text';
  /** Field ids to include; all fields when absent. */
  projection?: ReadonlySet<string>;
  /** May the caller update cells / delete the record (role and token). */
  canUpdate: boolean;
  canDelete: boolean;
  /** Adds the record's `version` (the realtime socket's doc version; never in a REST answer). */
  withVersion?: boolean;
}

/** A link context that knows no titles (tables without link fields). */
export const NO_LINKS: ReadContext = { linkTitle: () => undefined };

/** The text of a record's primary field (`record.name`), `""` when empty. Pure. */
export const recordName = (item: RecordItem, schema: TableSchema, ctx: ReadContext): string => {
  const primary = primaryField(schema);
  const value = cellOf(item, primary);
  return value === undefined ? '' : fieldKind(primary.type).toText(value, primary, ctx);
};

/** A stored cell as answered: JSON or text; a lookup item by item as its looked-up type; attachments with download URLs. */
export const renderCell = (
  value: StoredCell,
  field: Field,
  cellFormat: 'json' | 'text',
  ctx: ReadContext,
): unknown => {
  if (field.isLookup) {
    if (cellFormat === 'text') return lookupToText(value, field, ctx);
    const json = lookupToJson(value, field, ctx);
    return field.type === 'attachment' ? withDownloadUrls(json, ctx) : json;
  }
  const kind = fieldKind(field.type);
  if (cellFormat === 'text') return kind.toText(value, field, ctx);
  const json = kind.toJson(value, field, ctx);
  return field.type === 'attachment' ? withDownloadUrls(json, ctx) : json;
};

/**
 * Attachment items with their short-lived download URLs, signed here, as the record is answered to
 * someone who may read it, without a round trip (`storage/download.ts`): `presignedUrl`, and for
 * an image `smThumbnailUrl` and `lgThumbnailUrl` — the thumbnail once made (`ctx.thumbnails`),
 * the image itself until then or when it is no taller than the thumbnail (as Teable answers).
 */
const withDownloadUrls = (json: unknown, ctx: ReadContext): unknown =>
  Array.isArray(json)
    ? json.map((item) => {
        const { path, token, mimetype } = (item ?? {}) as {
          path?: unknown;
          token?: unknown;
          mimetype?: unknown;
        };
        if (typeof path !== 'string' || path === '') return item;
        const presignedUrl = downloadUrl(path) ?? '';
        if (typeof mimetype !== 'string' || !mimetype.startsWith('image/'))
          return { ...(item as object), presignedUrl };
        const made = typeof token === 'string' ? (ctx.thumbnails?.(token) ?? []) : [];
        const urlOf = (size: ThumbnailSize) =>
          made.includes(size) ? (downloadUrl(thumbnailPath(path, size)) ?? '') : presignedUrl;
        return {
          ...(item as object),
          presignedUrl,
          smThumbnailUrl: urlOf('sm'),
          lgThumbnailUrl: urlOf('lg'),
        };
      })
    : json;

/** The API record (fields.md, "The record"). Empty cells are left out. Pure. */
export const toRecordOut = (
  item: RecordItem,
  schema: TableSchema,
  options: RenderOptions,
  ctx: ReadContext,
) => {
  const fields: Record<string, unknown> = {};
  const permissions: Record<string, { read: true; update: boolean }> = {};
  for (const field of schema.fields) {
    if (options.projection && !options.projection.has(field.id)) continue;
    const key = fieldKeyOf(field, options.keyType);
    permissions[key] = {
      read: true,
      update: options.canUpdate && !(field.isComputed || fieldKind(field.type).isComputed),
    };
    const value = cellOf(item, field);
    if (value === undefined) continue;
    const out = renderCell(value, field, options.cellFormat, ctx);
    if (out === undefined || out === null || out === '' || (Array.isArray(out) && out.length === 0)) continue;
    fields[key] = out;
  }
  return {
    id: item.id,
    name: recordName(item, schema, ctx),
    fields,
    autoNumber: item.autoNumber,
    createdTime: item.createdTime,
    lastModifiedTime: item.lastModifiedTime,
    createdBy: item.cb.title,
    lastModifiedBy: item.mb.title,
    permissions,
    undeletable: !options.canDelete,
    ...(options.withVersion ? { version: item.version } : {}),
  };
};

/** The ETag of a record version (strong; the version changes with every write). */
export const etagOf = (item: RecordItem): string => `"${item.version}"`;
