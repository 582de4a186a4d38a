import { type Key, keyOfItem, keys } from './keys.ts';
import type { TransactOp } from './operations.ts';

/**
 * A table's data version: a number that grows whenever any of the table's records is written, so
 * a result computed from the records (a listing's order, kept for its later pages) can be reused
 * exactly while the version it was computed at is still the table's.
 *
 * It is kept in shards (`TABLE#<tbl>` `DVER#<nn>`): a write adds 1 to one shard picked at random,
 * so concurrent writes to one table rarely contend on one item, and the version is the sum of the
 * shards (one query of at most 16 small items). `transact` adds the increment to every
 * transaction that puts, updates or deletes a record, in the same transaction: the version moves
 * exactly when the records do. Writes that are not one transaction (a journaled write, the undo
 * of one, a rename rewriting cells one by one) add it after their last record write, with
 * `dataVersionOp` in their final transaction or `bumpDataVersions`.
 */
export const DATA_VERSION_SHARDS = 16;

/** Adds 1 to one shard of a table's data version. */
export const dataVersionOp = (
  tableId: string,
  shard = Math.floor(Math.random() * DATA_VERSION_SHARDS),
): TransactOp => ({
  update: {
    key: keys.dataVersion(tableId, String(shard).padStart(2, '0')),
    update: 'ADD v :one SET #t = :t',
    names: { '#t': 'type' },
    values: { ':one': 1, ':t': 'dataVersion' },
  },
});

/** The key an operation writes (none for a condition check). */
const writtenKey = (op: TransactOp): Key | undefined => {
  if ('put' in op) return keyOfItem(op.put);
  if ('update' in op) return op.update.key;
  if ('delete' in op) return op.delete;
  return undefined;
};

/** The tables named by the keys the operations write, as `tableOf` reads them, each once. */
const tablesOf = (ops: readonly TransactOp[], tableOf: (key: Key) => string | undefined): Set<string> => {
  const tables = new Set<string>();
  for (const op of ops) {
    const key = writtenKey(op);
    const table = key && tableOf(key);
    if (table) tables.add(table);
  }
  return tables;
};

/** The tables whose records the operations put, update or delete, each once. Pure. */
export const tablesWritten = (ops: readonly TransactOp[]): string[] => [
  ...tablesOf(ops, keys.tableOfRecordKey),
];

/**
 * The tables whose data version a transaction of `ops` must move: those whose records it writes,
 * unless it already adds to that table's version. Pure.
 */
export const tablesToBump = (ops: readonly TransactOp[]): string[] => {
  const bumped = tablesOf(ops, keys.tableOfDataVersionKey);
  return tablesWritten(ops).filter((table) => !bumped.has(table));
};
