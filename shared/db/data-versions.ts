import { randomUUID } from 'node:crypto';
import { ID_PREFIX } from '#shared/ids.ts';
import { type Key, keyOfItem, keys } from './keys.ts';
import type { TransactOp, UpdateSpec } from './operations.ts';

/**
 * A table's data version: counters that grow whenever the table's records are written, so a
 * result computed from the records (a listing's order, kept for its later pages) can be reused
 * exactly while the counters it depends on are still where they were.
 *
 * Counters: `v` moves with every put or delete of a record (records come and go, or change
 * whole) and with any write whose attributes are not known; updates move the counter of each
 * attribute they write (`counterOf`): `b00`…`b63` for fields' cells, hashed, and one counter
 * `s:<name>` per other attribute. A result that reads only some
 * attributes depends on `v` and their buckets, so an edit of other cells leaves it valid (a
 * bucket shared by chance only makes it computed again). Updates name every attribute they
 * write in their expression, so the buckets they move are read from it (`attributesOfUpdate`,
 * over-approximating: every name in the expression counts as written).
 *
 * The counters are kept in shards (`TABLE#<tbl>` `DVER#<nn>`): a write adds to one shard picked
 * at random, so concurrent writes to one table rarely contend on one item; a counter is the sum
 * over the shards (one query of at most 16 small items). `transact` adds the increments to every
 * transaction that puts, updates or deletes a record, in the same transaction: the version moves
 * exactly when the records do. Writes that are not one transaction (a journaled write, the undo
 * of one, a rename rewriting cells one by one) move `v` after their last record write, with
 * `dataVersionOp` in their final transaction or `bumpDataVersions`.
 */
export const DATA_VERSION_SHARDS = 16;
/** How many attribute buckets a version has. */
export const VERSION_BUCKETS = 64;
/** The counter every put and delete moves (and any write whose attributes are unknown). */
export const WHOLE = 'v';

/**
 * The counter an attribute moves: a field's cells (`fld…`) share 64 buckets (FNV-1a of the id);
 * every other attribute (version, lastModifiedTime, mb, ord, …: a small fixed set) has its own
 * counter, so the attributes every update writes never share a counter with a field. Pure.
 */
export const counterOf = (attribute: string): string =>
  attribute.startsWith(ID_PREFIX.field) ? bucketOf(attribute) : `s:${attribute}`;

/** Whether an attribute of a version shard is one of its counters. */
export const isCounter = (name: string): boolean =>
  name === WHOLE || /^b\d+$/.test(name) || name.startsWith('s:');

/** The bucket a field's attribute falls in (FNV-1a of its id). Pure. */
export const bucketOf = (attribute: string): string => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < attribute.length; i++) {
    hash ^= attribute.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `b${String(hash % VERSION_BUCKETS).padStart(2, '0')}`;
};

const CLAUSES = new Set(['SET', 'REMOVE', 'ADD', 'DELETE']);
const FUNCTIONS = new Set(['if_not_exists', 'list_append', 'size']);

/**
 * Every top-level or nested attribute name an update expression mentions (placeholders resolved),
 * which includes every attribute it writes; undefined when a placeholder has no name. Pure.
 */
export const attributesOfUpdate = (spec: UpdateSpec): string[] | undefined => {
  const tokens = spec.update.replace(/:[A-Za-z0-9_]+/g, ' ').match(/#?[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  const out = new Set<string>();
  for (const token of tokens) {
    if (token.startsWith('#')) {
      const name = spec.names?.[token];
      if (name === undefined) return undefined;
      out.add(name);
    } else if (!CLAUSES.has(token.toUpperCase()) && !FUNCTIONS.has(token)) out.add(token);
  }
  return [...out];
};

/**
 * Adds 1 to `counters` (default: the whole-table counter) on one shard of a table's version, and
 * as many to each maintained-index counter in `maintained` (see `maintainedBy`).
 */
export const dataVersionOp = (
  tableId: string,
  counters: Iterable<string> = [WHOLE],
  shard = Math.floor(Math.random() * DATA_VERSION_SHARDS),
  maintained: readonly string[] = [],
  counts: ReadonlyMap<string, number> = new Map(),
  /** The records the write deletes, and its stamps: the deletion note (`DELETION_NOTE`). */
  deleted?: { recordIds: readonly string[]; tx?: string; by?: string; at?: string },
): TransactOp => {
  const named = [...new Set(counters)];
  const list = named.length ? named : [WHOLE];
  const names: Record<string, string> = { '#t': 'type' };
  list.forEach((counter, i) => {
    names[`#c${i}`] = counter;
  });
  maintained.forEach((counter, i) => {
    names[`#m${i}`] = counter;
  });
  const values: Record<string, unknown> = { ':one': 1, ':t': 'dataVersion' };
  if (maintained.length) values[':n'] = list.length;
  const adds = [...list.map((_, i) => `#c${i} :one`), ...maintained.map((_, i) => `#m${i} :n`)];
  [...counts].forEach(([counter, delta], i) => {
    names[`#k${i}`] = counter;
    values[`:k${i}`] = delta;
    adds.push(`#k${i} :k${i}`);
  });
  const sets = ['#t = :t'];
  const removes: string[] = [];
  for (const [attribute, name] of Object.entries(DELETION_NOTE)) names[`#${attribute}`] = name;
  const note: Record<keyof typeof DELETION_NOTE, unknown> | undefined = deleted?.recordIds.length
    ? { id: randomUUID(), recordIds: [...deleted.recordIds], tx: deleted.tx, by: deleted.by, at: deleted.at }
    : undefined;
  for (const attribute of Object.keys(DELETION_NOTE) as (keyof typeof DELETION_NOTE)[]) {
    const value = note?.[attribute];
    if (value === undefined) removes.push(`#${attribute}`);
    else {
      sets.push(`#${attribute} = :${attribute}`);
      values[`:${attribute}`] = value;
    }
  }
  return {
    update: {
      key: keys.dataVersion(tableId, String(shard).padStart(2, '0')),
      update: `ADD ${adds.join(', ')} SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      names,
      values,
    },
  };
};

/**
 * The deletion note (data-flow.md 1: who deleted a record, and in which request). A removal's
 * stream record holds only the item as it was, so the data-version increment of a transaction
 * that deletes records names them, with the request's stamps, on its shard: `dn` (the note's id,
 * new with every write), `dl` (the records' ids), `dtx` (the request), `dby` (the user), `dat`
 * (the time of the write: the entry's `occurredAt`, the removal's own stream record holding only
 * the item as it was, whose times are not the deletion's). An
 * increment that deletes nothing removes them, so a shard's stream record carries a note only for
 * the write that deleted. The change-log capture joins the note with the removals
 * (`entities/record-deletions.ts`). A note names at most the records of one transaction (100
 * operations), so it stays small.
 */
export const DELETION_NOTE = { id: 'dn', recordIds: 'dl', tx: 'dtx', by: 'dby', at: 'dat' } as const;

/** The note a data-version shard's new image carries when its write deleted records. Pure. */
export const deletionNoteOf = (
  oldImage: Readonly<Record<string, unknown>> | undefined,
  newImage: Readonly<Record<string, unknown>> | undefined,
): { id: string; recordIds: string[]; tx?: string; by?: string; at?: string } | undefined => {
  const id = newImage?.[DELETION_NOTE.id];
  const ids = newImage?.[DELETION_NOTE.recordIds];
  if (typeof id !== 'string' || id === oldImage?.[DELETION_NOTE.id] || !Array.isArray(ids)) return undefined;
  const tx = newImage?.[DELETION_NOTE.tx];
  const by = newImage?.[DELETION_NOTE.by];
  const at = newImage?.[DELETION_NOTE.at];
  return {
    id,
    recordIds: ids.filter((r): r is string => typeof r === 'string'),
    ...(typeof tx === 'string' ? { tx } : {}),
    ...(typeof by === 'string' ? { by } : {}),
    ...(typeof at === 'string' ? { at } : {}),
  };
};

/** Per table, the records the operations delete (by key). Pure. */
export const deletionsBy = (ops: readonly TransactOp[]): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const op of ops) {
    if (!('delete' in op)) continue;
    const table = keys.tableOfRecordKey(op.delete);
    const recordId = keys.recordOfRecordKey(op.delete);
    if (table === undefined || recordId === undefined) continue;
    out.set(table, [...(out.get(table) ?? []), recordId]);
  }
  return out;
};

/**
 * Maintained-index counters (`m:<index>`): a write that keeps a view index exact (its entries in
 * the same commit as its records) adds to the index's counter as much as it adds to the table's
 * counters, on the same shard item, atomically. So the table's counters less the index's
 * (`unmaintainedWrites`) move only with writes that did not keep the index: while that difference
 * is where it was when the index was built, the index is exact.
 */
export const MAINTAINED_PREFIX = 'm:';

/** The counter of how many entries a view index holds (moved by the writes that keep it). */
export const ENTRY_COUNT_PREFIX = 'n:';

/**
 * Per table whose records the operations write, how many entries they add to each index (the sum
 * of their `counts`; none that sum to 0). Pure.
 */
export const entryCountsBy = (ops: readonly TransactOp[]): Map<string, Map<string, number>> => {
  const sums = new Map<string, Map<string, number>>();
  for (const op of ops) {
    const key = writtenKey(op);
    const table = key && keys.tableOfRecordKey(key);
    if (!table || !op.counts) continue;
    const own = sums.get(table) ?? new Map<string, number>();
    sums.set(table, own);
    for (const [counter, delta] of Object.entries(op.counts))
      own.set(counter, (own.get(counter) ?? 0) + delta);
  }
  for (const own of sums.values()) for (const [counter, delta] of own) if (delta === 0) own.delete(counter);
  return sums;
};

/**
 * Per table whose records the operations write: the maintained-index counters that every one of
 * those record operations names in `maintains` (a table written by any operation that does not
 * keep an index gets none for it). Pure.
 */
export const maintainedBy = (ops: readonly TransactOp[]): Map<string, string[]> => {
  const marks = new Map<string, string[]>();
  for (const op of ops) {
    const key = writtenKey(op);
    const table = key && keys.tableOfRecordKey(key);
    if (!table) continue;
    const own = op.maintains ?? [];
    const seen = marks.get(table);
    marks.set(table, seen ? seen.filter((m) => own.includes(m)) : [...own]);
  }
  return marks;
};

/**
 * The writes a maintained index did not see: the sum of a table's counters (over the shards, as
 * `readDataVersions` answers them) less the index's maintained counter. Pure.
 */
export const unmaintainedWrites = (counters: ReadonlyMap<string, number>, index: string): number => {
  let sum = 0;
  for (const [name, value] of counters) if (isCounter(name)) sum += value;
  return sum - (counters.get(index) ?? 0);
};

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
 * The tables whose records or view indexes the operations change, each once; undefined when some
 * operation changes a view index with no record write to say whose (it may touch any table). Pure.
 */
export const tablesTouched = (ops: readonly TransactOp[]): string[] | undefined => {
  const tables = tablesWritten(ops);
  if (tables.length) return tables;
  return ops.some((op) => {
    const key = writtenKey(op);
    return key !== undefined && keys.isViewIndexKey(key);
  })
    ? undefined
    : [];
};

/** The counters each written table must move: `v` for a put or delete, buckets for an update. Pure. */
export const versionChanges = (ops: readonly TransactOp[]): Map<string, Set<string>> => {
  const changes = new Map<string, Set<string>>();
  for (const op of ops) {
    const key = writtenKey(op);
    const table = key && keys.tableOfRecordKey(key);
    if (!table) continue;
    const counters = changes.get(table) ?? new Set<string>();
    changes.set(table, counters);
    const attributes = 'update' in op ? attributesOfUpdate(op.update) : undefined;
    if (attributes) for (const attribute of attributes) counters.add(counterOf(attribute));
    else counters.add(WHOLE);
  }
  return changes;
};

/**
 * The counters a transaction of `ops` must move, per table: those of the tables whose records
 * it writes, unless it already adds to that table's version. Pure.
 */
export const tablesToBump = (ops: readonly TransactOp[]): Map<string, Set<string>> => {
  const bumped = tablesOf(ops, keys.tableOfDataVersionKey);
  const changes = versionChanges(ops);
  for (const table of bumped) changes.delete(table);
  return changes;
};

/**
 * The deletion note of schema items: a transaction that deletes fields or views also updates
 * their table's item (its schema version moves), and that update names them, with the request's
 * stamps: `sdn` (the note's id), `sdl` (the ids), `sdtx`, `sdby`, `sdat` — as `DELETION_NOTE` does
 * for records, so the change log can say who deleted a field or a view, in which request and when.
 */
export const SCHEMA_DELETION_NOTE = { id: 'sdn', ids: 'sdl', tx: 'sdtx', by: 'sdby', at: 'sdat' } as const;

/** Per table, the fields and views the operations delete (their ids). Pure. */
const schemaDeletionsBy = (ops: readonly TransactOp[]): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const op of ops) {
    if (!('delete' in op)) continue;
    const item = keys.schemaItemOfKey(op.delete);
    if (!item || item.kind === 'table') continue;
    const id = keys.schemaItemIdOfKey(op.delete);
    if (id) out.set(item.tableId, [...(out.get(item.tableId) ?? []), id]);
  }
  return out;
};

/**
 * The operations with the schema deletion note added to the update of each table item whose
 * fields or views they delete (none when the transaction does not update that table's item: the
 * change log then files the deletion as the system's). Pure but for the note's id.
 */
export const withSchemaDeletionNotes = (
  ops: readonly TransactOp[],
  stamps: { tx?: string; by?: string; at?: string },
): TransactOp[] => {
  const deleted = schemaDeletionsBy(ops);
  if (!deleted.size) return [...ops];
  return ops.map((op) => {
    if (!('update' in op)) return op;
    const item = keys.schemaItemOfKey(op.update.key);
    const ids = item?.kind === 'table' ? deleted.get(item.tableId) : undefined;
    if (!ids) return op;
    const note: Record<string, unknown> = {
      id: randomUUID(),
      ids,
      tx: stamps.tx,
      by: stamps.by,
      at: stamps.at,
    };
    const names: Record<string, string> = { ...op.update.names };
    const values: Record<string, unknown> = { ...op.update.values };
    const sets: string[] = [];
    for (const [attribute, name] of Object.entries(SCHEMA_DELETION_NOTE)) {
      if (note[attribute] === undefined) continue;
      names[`#sdn_${attribute}`] = name;
      values[`:sdn_${attribute}`] = note[attribute];
      sets.push(`#sdn_${attribute} = :sdn_${attribute}`);
    }
    const expression = op.update.update;
    const update = /\bSET\b/.test(expression)
      ? expression.replace(/\bSET\b/, `SET ${sets.join(', ')},`)
      : `${expression} SET ${sets.join(', ')}`;
    return { ...op, update: { ...op.update, update, names, values } };
  });
};

/** The schema deletion note a table item's new image carries when its write deleted fields or views. Pure. */
export const schemaDeletionNoteOf = (
  oldImage: Readonly<Record<string, unknown>> | undefined,
  newImage: Readonly<Record<string, unknown>> | undefined,
): { ids: string[]; tx?: string; by?: string; at?: string } | undefined => {
  const id = newImage?.[SCHEMA_DELETION_NOTE.id];
  const ids = newImage?.[SCHEMA_DELETION_NOTE.ids];
  if (typeof id !== 'string' || id === oldImage?.[SCHEMA_DELETION_NOTE.id] || !Array.isArray(ids))
    return undefined;
  const tx = newImage?.[SCHEMA_DELETION_NOTE.tx];
  const by = newImage?.[SCHEMA_DELETION_NOTE.by];
  const at = newImage?.[SCHEMA_DELETION_NOTE.at];
  return {
    ids: ids.filter((r): r is string => typeof r === 'string'),
    ...(typeof tx === 'string' ? { tx } : {}),
    ...(typeof by === 'string' ? { by } : {}),
    ...(typeof at === 'string' ? { at } : {}),
  };
};
