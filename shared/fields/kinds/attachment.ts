/** attachment (fields.md "Types"): files already uploaded, referenced by token. */
import { randomBase62 } from '#shared/ids.ts';
import { cellError, isNothing, isRecord, readOptions } from '../cells.ts';
import type { FieldKind, StoredCell } from '../types.ts';

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

/** One written item as stored, or undefined when it lacks `name` and `token` or a field has the wrong type. */
export const attachmentOf = (item: unknown): Attachment | undefined => {
  if (!isRecord(item) || !nonEmptyText(item.name) || !nonEmptyText(item.token)) return undefined;
  if (!isNothing(item.id) && !nonEmptyText(item.id)) return undefined;
  const out: Attachment = {
    id: nonEmptyText(item.id) ? item.id : newAttachmentId(),
    name: item.name,
    token: item.token,
  };
  for (const key of ['path', 'mimetype'] as const) {
    if (isNothing(item[key])) continue;
    if (typeof item[key] !== 'string') return undefined;
    out[key] = item[key] as string;
  }
  for (const key of ['size', 'width', 'height'] as const) {
    if (isNothing(item[key])) continue;
    if (!size(item[key])) return undefined;
    out[key] = item[key] as number;
  }
  return out;
};

const itemsOf = (value: StoredCell): Record<string, unknown>[] =>
  Array.isArray(value) ? (value as unknown[]).filter(isRecord) : [];

const ITEM = '{name, token, id?, path?, size?, mimetype?, width?, height?}';
const MESSAGE = `expected a non-empty list of ${ITEM}`;

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
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    if (!Array.isArray(value) || value.length === 0) throw cellError(field, MESSAGE);
    const items = value.map((item, i) => {
      const stored = attachmentOf(item);
      if (!stored) throw cellError(field, `item ${i}: expected ${ITEM} with text name and token`);
      return stored;
    });
    return { value: items as unknown as Record<string, unknown>[] };
  },
  typecast(value) {
    const list = Array.isArray(value) ? value : [value];
    const items = list.map(attachmentOf).filter((a) => a !== undefined);
    return { value: items.length ? (items as unknown as Record<string, unknown>[]) : undefined };
  },
  defaultValue: () => undefined,
  toJson: (value) =>
    itemsOf(value).map((a) => ({
      ...a,
      path: typeof a.path === 'string' ? a.path : '',
      size: typeof a.size === 'number' ? a.size : 0,
      mimetype: typeof a.mimetype === 'string' ? a.mimetype : '',
      // no object store yet: the path is where the file is served from
      presignedUrl:
        typeof a.presignedUrl === 'string' ? a.presignedUrl : typeof a.path === 'string' ? a.path : '',
    })),
  toText: (value) =>
    itemsOf(value)
      .map((a) => `${String(a.name)} (${String(a.token)})`)
      .join(','),
  query: { valueClass: 'attachment', searchedByDefault: true, searchCost: 5 },
};
