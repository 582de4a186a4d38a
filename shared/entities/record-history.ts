/**
 * Record history (Teable's `record/history` routes, data-flow.md 2): one item per field a caller's
 * update changed, kept in the table's partition and in the record's (`HIST#<tbl>`,
 * `HIST#<tbl>#<rec>`), newest last by sort key `<occurredAt>#<evt…>#<fld…>`. Written by the stream
 * processor before the change log (idempotent puts: a retried batch writes the same items again),
 * removed by TTL with the log. Creates, deletes and computed changes are in the feed, not here,
 * as in Teable.
 */
import { type Item, queryPage, writeItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { count, text } from './attributes.ts';

/** A field as it was when its cell changed (Teable's history `meta`). */
export interface FieldMeta {
  name: string;
  type: string;
  cellValueType: string;
  options: unknown;
}

/** One history item as Teable's client types it (`recordHistoryItemVoSchema`). */
export interface HistoryItem {
  id: string;
  tableId: string;
  recordId: string;
  fieldId: string;
  before: { meta: FieldMeta; data: unknown };
  after: { meta: FieldMeta; data: unknown };
  createdTime: string;
  createdBy: string;
}

/** The sort key of a history item: by time, then by event and field. Pure. */
export const historySortKey = (item: Pick<HistoryItem, 'createdTime' | 'id' | 'fieldId'>): string =>
  `${item.createdTime}#${item.id}#${item.fieldId}`;

/** The two stored items of a history item (the table's copy and the record's). Pure. */
export const historyItems = (item: HistoryItem, expiresAt: number): Item[] => {
  const sk = historySortKey(item);
  const body = { type: 'recordHistory', ...item, expiresAt };
  return [
    { ...keys.tableHistory(item.tableId, sk), ...body },
    { ...keys.recordHistory(item.tableId, item.recordId, sk), ...body },
  ];
};

const metaOf = (v: unknown): FieldMeta => {
  const m = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return {
    name: text(m.name),
    type: text(m.type),
    cellValueType: text(m.cellValueType),
    options: m.options ?? null,
  };
};
const stateOf = (v: unknown) => {
  const s = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return { meta: metaOf(s.meta), data: s.data ?? null };
};

/** The history item stored in an item. Pure. */
export const historyItemOf = (item: Item): HistoryItem & { expiresAt: number } => ({
  id: text(item.id),
  tableId: text(item.tableId),
  recordId: text(item.recordId),
  fieldId: text(item.fieldId),
  before: stateOf(item.before),
  after: stateOf(item.after),
  createdTime: text(item.createdTime),
  createdBy: text(item.createdBy),
  expiresAt: count(item.expiresAt),
});

/** Writes history items (each twice: the table's and the record's partition). */
export const putHistory = async (items: readonly HistoryItem[], expiresAt: number): Promise<void> => {
  if (!items.length) return;
  await writeItems(items.flatMap((item) => historyItems(item, expiresAt)).map((put) => ({ put })));
};

/**
 * Up to `limit` history items of a table, or of one record, newest first, from after the sort
 * key `before` (a page's last one); the sort key to go on from when there may be more.
 */
export const historyPage = async (
  tableId: string,
  recordId: string | undefined,
  limit: number,
  before?: string,
): Promise<{ items: (HistoryItem & { expiresAt: number })[]; last?: string }> => {
  const pk = keys.historyOf(tableId, recordId).pk;
  const page = await queryPage({
    pk,
    limit,
    newestFirst: true,
    ...(before === undefined ? {} : { startKey: { pk, sk: before } }),
  });
  const items = page.items.map(historyItemOf);
  const lastKey = page.lastKey as { sk?: unknown } | undefined;
  return typeof lastKey?.sk === 'string' ? { items, last: lastKey.sk } : { items };
};
