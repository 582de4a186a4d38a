import type { HttpError } from '#shared/core/errors.ts';
import { getItem, type Item, type TransactOp, type UpdateSpec, updateItem } from '#shared/db/client.ts';
import { and, EXISTS, LIVE, NOT_EXISTS, or } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { withStamps, writeStamps } from '#shared/db/request-scope.ts';
import { count, optionalText, text, textOrNull } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * A table's own item (`TABLE#<tbl>` `TABLE`): its name and place, its schema version (every
 * schema write increments it) and its autoNumber counter, and its trash and purge marks.
 */
export interface Table {
  id: string;
  name: string;
  dbTableName: string;
  description: string | null;
  icon: string | null;
  baseId: string;
  spaceId: string;
  order: number;
  schemaVersion: number;
  /** The last autoNumber given to a record (0 before the first). */
  autoNumber: number;
  createdTime: string;
  createdBy: string;
  lastModifiedTime: string;
  deletedTime?: string;
  deletedBy?: string;
  trashId?: string;
  purgeTime?: string;
}

const optional = optionalText;

/** The table stored in an item. Items written before an attribute existed read its default. */
export const tableOf = (item: Item): Table => ({
  id: text(item.id),
  name: text(item.name),
  dbTableName: text(item.dbTableName),
  description: textOrNull(item.description),
  icon: textOrNull(item.icon),
  baseId: text(item.baseId),
  spaceId: text(item.spaceId),
  order: count(item.order),
  schemaVersion: count(item.schemaVersion),
  autoNumber: count(item.autoNumber),
  createdTime: text(item.createdTime),
  createdBy: text(item.createdBy),
  lastModifiedTime: text(item.lastModifiedTime),
  ...(optional(item.deletedTime) ? { deletedTime: optional(item.deletedTime) } : {}),
  ...(optional(item.deletedBy) ? { deletedBy: optional(item.deletedBy) } : {}),
  ...(optional(item.trashId) ? { trashId: optional(item.trashId) } : {}),
  ...(optional(item.purgeTime) ? { purgeTime: optional(item.purgeTime) } : {}),
});

/** The stored item of a table. */
export const toTableItem = (table: Table): Item => ({
  ...keys.table(table.id),
  type: 'table',
  ...table,
  // the request and user that wrote it (the change log's txId and actor)
  ...writeStamps(),
});

/** The base's reference to a table (`BASE#<bse>` `TABLE#<tbl>`): name and icon kept in step for the sidebar. */
export const toTableRefItem = (table: Table): Item => ({
  ...keys.baseTable(table.baseId, table.id),
  type: 'baseTable',
  tableId: table.id,
  name: table.name,
  icon: table.icon,
  order: table.order,
});

/** A base's reference to one of its tables, as listed. */
export interface TableRef {
  tableId: string;
  name: string;
  order: number;
  deletedTime?: string;
}

export const tableRefOf = (item: Item): TableRef => ({
  tableId: text(item.tableId),
  name: text(item.name),
  order: count(item.order),
  ...(optional(item.deletedTime) ? { deletedTime: optional(item.deletedTime) } : {}),
});

/** Conditions on a table's item. */
export const tableConditions = {
  exists: EXISTS,
  notExists: NOT_EXISTS,
  /** There and not in the trash. */
  live: LIVE,
  /** There, not in the trash, and in this base (`:base`). */
  liveIn: and(LIVE, 'baseId = :base'),
};

/**
 * The two operations that create a table: its item (fails when its id is taken) and the base's
 * reference to it. Pure but for the stamps.
 */
export const createTableOps = (table: Table): [TransactOp, TransactOp] => [
  { put: toTableItem(table), condition: tableConditions.notExists },
  { put: toTableRefItem(table) },
];

/** A transaction check that the table is there and not in the trash. */
export const tableLiveCheck = (tableId: string): TransactOp => ({
  check: keys.table(tableId) as Key,
  condition: tableConditions.live,
});

/** Reads a table's item (strongly consistent); undefined when there is none. */
export const readTable = async (tableId: string): Promise<Table | undefined> => {
  const item = await getItem(keys.table(tableId));
  return item ? tableOf(item) : undefined;
};

/** The lookup of a table's item, to read in a batch. Pure. */
export const tableLookup = (tableId: string): Lookup<Table> => lookupOf(keys.table(tableId), tableOf);

const BUMP_SCHEMA_VERSION = 'SET schemaVersion = :next, lastModifiedTime = :now';

/** The operation that bumps a table's schema version, conditioned on the version read. Pure. */
export const bumpSchemaVersionOp = (tableId: string, readVersion: number): TransactOp => ({
  update: {
    key: keys.table(tableId),
    update: BUMP_SCHEMA_VERSION,
    condition: and(
      LIVE,
      or('schemaVersion = :read', '(attribute_not_exists(schemaVersion) AND :read = :zero)'),
    ),
    values: { ':next': readVersion + 1, ':read': readVersion, ':zero': 0, ':now': new Date().toISOString() },
  },
});

/**
 * Whether an operation is a bump of a table's schema version (`bumpSchemaVersionOp`): a
 * transaction may hold one per table, as it may not update an item twice. Pure.
 */
export const isSchemaVersionBump = (op: TransactOp): op is TransactOp & { update: UpdateSpec } =>
  'update' in op && op.update.update === BUMP_SCHEMA_VERSION;

/** The operations with one schema-version bump per table (the first of each table's stays). Pure. */
export const oneBumpPerTable = (ops: readonly TransactOp[]): TransactOp[] => {
  const seen = new Set<string>();
  return ops.filter((op) => {
    if (!isSchemaVersionBump(op)) return true;
    const key = JSON.stringify(op.update.key);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * Reserves `count` autoNumbers of a live table (one atomic counter update) and answers the first;
 * a table not there or in the trash becomes `onMissing()`.
 */
export const reserveAutoNumbers = async (
  tableId: string,
  n: number,
  onMissing: () => HttpError,
): Promise<number> => {
  const item = await updateItem(
    {
      key: keys.table(tableId),
      update: 'ADD autoNumber :n',
      condition: LIVE,
      values: { ':n': n },
    },
    onMissing,
  );
  return Number(item.autoNumber) - n + 1;
};

/** A table item's key, for the builders of other entities that take one (a purge mark). */
export const tableKey = (tableId: string): Key => keys.table(tableId);

/** The operation that removes a base's reference to a table, whatever its state. Pure. */
export const deleteTableRefOp = (baseId: string, tableId: string): TransactOp => ({
  delete: keys.baseTable(baseId, tableId),
});

/**
 * The operations that change a live table's name, description, icon or database name, stamped
 * with the request and user (the change log's txId and actor), and, when the name or icon
 * changes, the base's reference kept in step. Pure but for the stamps and the time.
 */
export const updateTableOps = (
  baseId: string,
  tableId: string,
  patch: { name?: string; description?: string | null; icon?: string | null; dbTableName?: string },
): TransactOp[] => {
  // the schema version moves too: it is the version of the table's realtime docs (`live/sharedb`)
  const sets: string[] = [
    'lastModifiedTime = :now',
    'schemaVersion = if_not_exists(schemaVersion, :zero) + :one',
  ];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': new Date().toISOString(), ':zero': 0, ':one': 1 };
  // the request and user behind the change (the change log's txId and actor)
  for (const [k, v] of Object.entries({ ...patch, ...writeStamps() })) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  const ops: TransactOp[] = [
    {
      update: {
        key: keys.table(tableId),
        update: `SET ${sets.join(', ')}`,
        condition: tableConditions.live,
        names: Object.keys(names).length ? names : undefined,
        values,
      },
    },
  ];
  const refSets = (['name', 'icon'] as const).filter((k) => patch[k] !== undefined);
  if (refSets.length)
    ops.push({
      update: {
        key: keys.baseTable(baseId, tableId),
        update: `SET ${refSets.map((k) => `#${k} = :${k}`).join(', ')}`,
        names: Object.fromEntries(refSets.map((k) => [`#${k}`, k])),
        values: Object.fromEntries(refSets.map((k) => [`:${k}`, patch[k]])),
      },
    });
  return ops;
};

/**
 * The two operations that move a table of a base to the trash: its item (live and in the base;
 * stamped, so the change log's `table.deleted` names the request) and the base's reference
 * (there), both marked with the trash entry. Pure but for the stamps.
 */
export const trashTableOps = (
  baseId: string,
  tableId: string,
  entry: { id: string; deletedTime: string },
  userId: string,
): [TransactOp, TransactOp] => {
  const stampedTrash = withStamps(['deletedTime = :now', 'deletedBy = :by', 'trashId = :trs']);
  return [
    {
      update: {
        key: keys.table(tableId),
        ...stampedTrash,
        condition: tableConditions.liveIn,
        values: {
          ...stampedTrash.values,
          ':now': entry.deletedTime,
          ':by': userId,
          ':trs': entry.id,
          ':base': baseId,
        },
      },
    },
    {
      update: {
        key: keys.baseTable(baseId, tableId),
        update: 'SET deletedTime = :now, deletedBy = :by, trashId = :trs',
        condition: tableConditions.exists,
        values: { ':now': entry.deletedTime, ':by': userId, ':trs': entry.id },
      },
    },
  ];
};

/**
 * The operation that moves a table's schema version on whatever it was, the table in the trash or
 * not (cached schemas reload); fails only when the table is gone. Pure.
 */
export const touchSchemaVersionOp = (tableId: string): TransactOp => ({
  update: {
    key: keys.table(tableId),
    update: 'ADD schemaVersion :one',
    condition: tableConditions.exists,
    values: { ':one': 1 },
  },
});
