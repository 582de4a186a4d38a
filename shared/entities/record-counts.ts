import { type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { count } from './attributes.ts';

/**
 * A table's record count, kept by the writes that create and delete records (`TABLE#<tbl>`
 * `COUNT#…`): a `base` item written with the table (0), and shards that each write adds its
 * delta to, in the same transaction as the write's completion (exactly once: a journaled write
 * adds it when it is marked complete; an undone write never). Writes pick a shard at random, so
 * concurrent writes to one table rarely contend on one item. Reading sums the shards: one query
 * of at most `COUNT_SHARDS + 1` small items, whatever the table's size.
 *
 * A table created before counts existed has no `base` item: its count is not known here
 * (`readRecordCount` answers undefined) and the caller counts the records instead.
 */
export const COUNT_SHARDS = 16;

const BASE = 'base';

/** The `base` item of a new table's count. */
const recordCountBaseItem = (tableId: string): Item => ({
  ...keys.recordCount(tableId, BASE),
  type: 'recordCount',
  n: 0,
});

/** The operation that starts a new table's count at 0 (its `base` item, written with the table). Pure. */
export const putRecordCountBaseOp = (tableId: string): TransactOp => ({ put: recordCountBaseItem(tableId) });

/** Adds `delta` records to a table's count (on a random shard). */
export const recordCountOp = (
  tableId: string,
  delta: number,
  shard = Math.floor(Math.random() * COUNT_SHARDS),
): TransactOp => ({
  update: {
    key: keys.recordCount(tableId, String(shard).padStart(2, '0')),
    update: 'ADD n :d SET #t = :t',
    names: { '#t': 'type' },
    values: { ':d': delta, ':t': 'recordCount' },
  },
});

/** The table's record count, or undefined when the table keeps none (created before counts). */
export const readRecordCount = async (tableId: string): Promise<number | undefined> => {
  const items = await queryAll(keys.recordCountsOf(tableId));
  if (!items.some((i) => i.sk === keys.recordCount(tableId, BASE).sk)) return undefined;
  return items.reduce((sum, i) => sum + count(i.n), 0);
};
