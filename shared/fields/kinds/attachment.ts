/**
 * attachment (fields.md "Types", data-flow.md 6): files uploaded to the table's base, named by
 * token. A written item names a confirmed upload of this base (`WriteContext.attachments`); the
 * stored item keeps the caller's name and id and takes the file's path, size, type and image size
 * from the upload, never from the caller.
 */
import { randomBase62 } from '#shared/ids.ts';
import type { AttachmentFacts, Field, FieldKind, StoredCell, WriteContext } from '../field-types.ts';
import { cellError, isNothing, isRecord, readOptions } from '../kind-helpers.ts';

/** What one attachment item holds once stored. */
export interface Attachment {
  id: string;
  name: string;
  token: string;
  path?: string;
  size?: number;
  mimetype?: string;
  width?: number;
  height?: number;
}

// Teable's attachment item ids are `act` + random; `act` is not one of the contract's id kinds.
const newAttachmentId = (): string => `act${randomBase62(16)}`;

const nonEmptyText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const size = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * One written item in its shape (`{token, name?, id?, path?, size?, mimetype?, width?, height?}`,
 * the facts optional and checked for their types only), or undefined.
 */
const writtenItemOf = (item: unknown): { token: string; name?: string; id?: string } | undefined => {
  if (!isRecord(item) || !nonEmptyText(item.token)) return undefined;
  if (!isNothing(item.id) && !nonEmptyText(item.id)) return undefined;
  if (!isNothing(item.name) && typeof item.name !== 'string') return undefined;
  for (const key of ['path', 'mimetype'] as const)
    if (!isNothing(item[key]) && typeof item[key] !== 'string') return undefined;
  for (const key of ['size', 'width', 'height'] as const)
    if (!isNothing(item[key]) && !size(item[key])) return undefined;
  return {
    token: item.token,
    ...(nonEmptyText(item.name) ? { name: item.name } : {}),
    ...(nonEmptyText(item.id) ? { id: item.id } : {}),
  };
};

/** The stored item of a written one and its upload's facts. Pure but for a new id. */
const storedOf = (
  written: { token: string; name?: string; id?: string },
  facts: AttachmentFacts,
): Attachment => ({
  id: written.id ?? newAttachmentId(),
  name: written.name ?? facts.name ?? facts.token,
  token: facts.token,
  path: facts.path,
  size: facts.size,
  mimetype: facts.mimetype,
  ...(facts.width === undefined ? {} : { width: facts.width }),
  ...(facts.height === undefined ? {} : { height: facts.height }),
});

const itemsOf = (value: StoredCell): Record<string, unknown>[] =>
  Array.isArray(value) ? (value as unknown[]).filter(isRecord) : [];

const ITEM = '{token, name?, id?}';
const MESSAGE = `expected a non-empty list of ${ITEM}`;

const factsFor = (token: string, ctx: WriteContext): AttachmentFacts | undefined =>
  ctx.attachments?.get(token);

/** The items of a typecast value: attachment objects, or tokens (a list, or text separated by commas). */
const typecastItems = (value: unknown): unknown[] => {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
          .map((token) => ({ token }))
      : [v],
  );
};

/** The tokens a written attachment value names (what the write must read first). Pure. */
export const tokensOfAttachmentValue = (value: unknown): string[] =>
  typecastItems(value).flatMap((item) => (isRecord(item) && nonEmptyText(item.token) ? [item.token] : []));

const validateItems = (value: unknown, field: Field, ctx: WriteContext) => {
  if (!Array.isArray(value) || value.length === 0) throw cellError(field, MESSAGE);
  return value.map((item, i) => {
    const written = writtenItemOf(item);
    if (!written) throw cellError(field, `item ${i}: expected ${ITEM} with a text token`);
    const facts = factsFor(written.token, ctx);
    if (!facts)
      throw cellError(
        field,
        `item ${i}: no uploaded file ${written.token} in this base (upload it first: POST /attachments/signature, then notify)`,
      );
    return storedOf(written, facts);
  });
};

/** A list of attachments `[{id, name, path, token, size, mimetype, width?, height?, presignedUrl}]`. */
export const attachment: FieldKind = {
  type: 'attachment',
  defaultName: 'Attachments',
  isComputed: false,
  allowedAsPrimary: false,
  normalizeOptions(options) {
    readOptions(options, 'attachment');
    return {};
  },
  cellValueType: () => 'string',
  isMultipleCellValue: () => true,
  validate(value, field, ctx) {
    if (isNothing(value)) return { value: undefined };
    return { value: validateItems(value, field, ctx) as unknown as Record<string, unknown>[] };
  },
  typecast(value, _field, ctx) {
    const items = typecastItems(value).flatMap((item) => {
      const written = writtenItemOf(item);
      const facts = written && factsFor(written.token, ctx);
      return written && facts ? [storedOf(written, facts)] : [];
    });
    return { value: items.length ? (items as unknown as Record<string, unknown>[]) : undefined };
  },
  defaultValue: () => undefined,
  toJson: (value) =>
    itemsOf(value).map((a) => ({
      ...a,
      path: typeof a.path === 'string' ? a.path : '',
      size: typeof a.size === 'number' ? a.size : 0,
      mimetype: typeof a.mimetype === 'string' ? a.mimetype : '',
      // the download URL is signed where the record is answered (`records/model.ts`): '' until then
      presignedUrl: '',
    })),
  toText: (value) =>
    itemsOf(value)
      .map((a) => `${String(a.name)} (${String(a.token)})`)
      .join(','),
  query: { valueClass: 'attachment', searchedByDefault: true, searchCost: 5 },
};

/**
 * Thumbnails of images (Teable's geometry): `sm` 56 and `lg` 525 pixels high, each made only for
 * an image taller than that (a smaller image is its own thumbnail), kept beside the file at
 * `<path>_sm` and `<path>_lg`.
 */
export const THUMBNAIL_HEIGHTS = { sm: 56, lg: 525 } as const;
export type ThumbnailSize = keyof typeof THUMBNAIL_HEIGHTS;
export const THUMBNAIL_SIZES = Object.keys(THUMBNAIL_HEIGHTS) as ThumbnailSize[];

/** The thumbnails an upload gets: none unless it is an image taller than the size. Pure. */
export const thumbnailSizesFor = (file: { mimetype: string; height?: number }): ThumbnailSize[] =>
  file.mimetype.startsWith('image/') && file.height !== undefined
    ? THUMBNAIL_SIZES.filter((size) => (file.height as number) > THUMBNAIL_HEIGHTS[size])
    : [];

/** Where a thumbnail of the file at `path` is kept. Pure. */
export const thumbnailPath = (path: string, size: ThumbnailSize): string => `${path}_${size}`;

/** The tokens of the files in a cell (attachment items, or a lookup's) that have thumbnails. Pure. */
export const thumbnailTokensIn = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap((item) =>
        isRecord(item) &&
        nonEmptyText(item.token) &&
        typeof item.mimetype === 'string' &&
        thumbnailSizesFor({
          mimetype: item.mimetype,
          ...(typeof item.height === 'number' ? { height: item.height } : {}),
        }).length > 0
          ? [item.token]
          : [],
      )
    : [];
