import { getItem, getItems, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { and, LIVE, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text, textOrNull } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';
import { type TableRef, tableConditions, tableRefOf } from './tables.ts';
import { entryOf, type TrashEntry } from './trash-items.ts';

/**
 * A base's own item (`BASE#<bse>` `BASE`), and the space's reference to it (`SPACE#<spc>`
 * `BASE#<bse>`, name and icon kept in step, so one query lists a space's bases).
 */
export interface BaseItem {
  id: string;
  name: string;
  icon: string | null;
  spaceId: string;
  createdTime: string;
  createdBy: string;
  lastModifiedTime?: string;
  deletedTime?: string;
  deletedBy?: string;
  trashId?: string;
  purgeTime?: string;
  /**
   * How many writes stamped the base's space on an item under it (a table created, a table put in
   * the trash); absent before the first. A move commits only if it is what the move read.
   */
  spaceStamps?: number;
}

/** A space's reference to one of its bases. */
export interface BaseRef {
  baseId: string;
  name: string;
  icon: string | null;
  createdTime: string;
  deletedTime?: string;
  /** The base's place among the space's bases, once moved (`PUT /base/{b}/order`). */
  orderKey?: string;
}

const marks = (item: Item) => {
  const out: Pick<BaseItem, 'lastModifiedTime' | 'deletedTime' | 'deletedBy' | 'trashId' | 'purgeTime'> = {};
  for (const k of ['lastModifiedTime', 'deletedTime', 'deletedBy', 'trashId', 'purgeTime'] as const) {
    const v = optionalText(item[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
};

/** The base stored in an item. */
export const baseOf = (item: Item): BaseItem => ({
  id: text(item.id),
  name: text(item.name),
  icon: textOrNull(item.icon),
  spaceId: text(item.spaceId),
  createdTime: text(item.createdTime),
  createdBy: text(item.createdBy),
  ...marks(item),
  ...(typeof item.spaceStamps === 'number' ? { spaceStamps: item.spaceStamps } : {}),
});

/** The reference stored in a space's item. */
export const baseRefOf = (item: Item): BaseRef => ({
  baseId: text(item.baseId),
  name: text(item.name),
  icon: textOrNull(item.icon),
  createdTime: text(item.createdTime),
  ...(optionalText(item.deletedTime) !== undefined ? { deletedTime: optionalText(item.deletedTime) } : {}),
  ...(optionalText(item.orderKey) !== undefined ? { orderKey: optionalText(item.orderKey) } : {}),
});

/** The stored item of a new base. */
export const toBaseItem = (base: BaseItem): Item => ({ ...keys.base(base.id), type: 'base', ...base });

/** The space's reference to a new base. */
export const toBaseRefItem = (base: BaseItem): Item => ({
  ...keys.spaceBase(base.spaceId, base.id),
  type: 'spaceBase',
  baseId: base.id,
  name: base.name,
  icon: base.icon,
  createdTime: base.createdTime,
});

/** Conditions on a base's item and its reference. */
export const baseConditions = {
  notExists: NOT_EXISTS,
  /** There and not in the trash. */
  live: LIVE,
};

/*
 * Moving a base and stamping its space under it, under any interleaving.
 *
 * A table and a trashed table's entry carry their base's space (`spaceId`), which decides who may
 * reach them. A move reads the base's tables and trash entries, then rewrites them with the base
 * in one transaction; a table created (or trashed) between that read and that transaction would
 * keep the old space, and the old space's members their access to it. So each side is made
 * conditional on the other, with no lock and no state in between (nothing to repair after a
 * crash):
 * - a write that stamps the space joins `stampSpaceOp` to its transaction: it commits only while
 *   the base is live in the space it stamps, and it counts itself on the base (`spaceStamps`);
 * - the move (`moveBaseOp`) commits only if the base's count is still the one read with the base,
 *   and the base was read before its tables and entries (strongly consistent reads).
 * A stamp that commits before the base is read is counted in what the move read, so its item is
 * among those the move read after and rewrites; one that commits after the base is read and before
 * the move changes the count, and the move fails (409, to retry); one after the move finds the
 * base in another space and fails (409: the retry locates the base, and checks access, there).
 */

/**
 * The operation that makes a write stamping `spaceId` on an item under the base (a new table, a
 * table's trash entry) conditional on the base being live in that space, and counts it. One
 * refused is a base gone, in the trash or moved (`liveSpaceOf` tells which).
 */
export const stampSpaceOp = (baseId: string, spaceId: string): TransactOp => ({
  update: {
    key: keys.base(baseId),
    update: 'ADD spaceStamps :one',
    condition: and(LIVE, 'spaceId = :space'),
    values: { ':one': 1, ':space': spaceId },
  },
});

/**
 * The update that moves a base's item to another space: only while it is live in the space it
 * was read in, and no write stamped that space under it since (`seen`, the item as read before
 * the base's tables and trash entries).
 */
export const moveBaseOp = (seen: BaseItem, spaceId: string, now: Date): TransactOp => ({
  update: {
    key: keys.base(seen.id),
    update: 'SET spaceId = :space, lastModifiedTime = :now',
    condition: and(
      LIVE,
      'spaceId = :from',
      seen.spaceStamps === undefined ? 'attribute_not_exists(spaceStamps)' : 'spaceStamps = :stamps',
    ),
    values: {
      ':space': spaceId,
      ':from': seen.spaceId,
      ':now': now.toISOString(),
      ...(seen.spaceStamps === undefined ? {} : { ':stamps': seen.spaceStamps }),
    },
  },
});

/** The space a base is in now, undefined when it is gone or in the trash (strongly consistent). */
export const liveSpaceOf = async (baseId: string): Promise<string | undefined> => {
  const base = await readBase(baseId);
  return base && !base.deletedTime && !base.purgeTime ? base.spaceId : undefined;
};

/** Reads a base's item (strongly consistent); undefined when there is none. */
export const readBase = async (baseId: string): Promise<BaseItem | undefined> => {
  const item = await getItem(keys.base(baseId));
  return item ? baseOf(item) : undefined;
};

/**
 * The spaces that hold the live bases among `baseIds` (one batch read): a base that is gone or in
 * the trash holds nothing a token could reach.
 */
export const spacesOfLiveBases = async (baseIds: readonly string[]): Promise<Set<string>> => {
  if (baseIds.length === 0) return new Set();
  const loaded = await getItems(baseIds.map((b) => keys.base(b)));
  return new Set(
    baseIds.flatMap((b) => {
      const item = loaded.get(keys.base(b));
      const base = item ? baseOf(item) : undefined;
      return base && !base.deletedTime ? [base.spaceId] : [];
    }),
  );
};

/** The check that a base is there and not in the trash, to join a transaction that adds to it. Pure. */
export const baseLiveCheck = (baseId: string): TransactOp => ({
  check: keys.base(baseId),
  condition: LIVE,
});

/** A space's references to its bases (in the trash or not), in base id order. */
export const baseRefsOfSpace = async (spaceId: string): Promise<BaseRef[]> =>
  (await queryAll(keys.basesOf(spaceId))).map(baseRefOf);

/** The operations that create a base and the space's reference to it; fail on an id already taken. Pure. */
export const putBaseOps = (base: BaseItem): TransactOp[] => [
  { put: toBaseItem(base), condition: baseConditions.notExists },
  { put: toBaseRefItem(base), condition: baseConditions.notExists },
];

/**
 * The operations that change a live base's name or icon (null clears it) on the base and on the
 * space's reference, in step. Pure.
 */
export const updateBaseOps = (
  spaceId: string,
  baseId: string,
  changes: { name?: string; icon?: string | null },
  now: Date,
): TransactOp[] => {
  const sets = ['lastModifiedTime = :now'];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  if (changes.name !== undefined) {
    sets.push('#name = :name');
    names['#name'] = 'name';
    values[':name'] = changes.name;
  }
  if (changes.icon !== undefined) {
    sets.push('icon = :icon');
    values[':icon'] = changes.icon;
  }
  const update = `SET ${sets.join(', ')}`;
  const namesOrNone = Object.keys(names).length ? names : undefined;
  return [keys.base(baseId), keys.spaceBase(spaceId, baseId)].map((key) => ({
    update: { key, update, condition: LIVE, names: namesOrNone, values },
  }));
};

/** The operations that mark a live base and the space's reference to it as in the trash. Pure. */
export const trashBaseOps = (
  spaceId: string,
  baseId: string,
  trash: { trashId: string; deletedTime: string; deletedBy: string },
): TransactOp[] =>
  [keys.base(baseId), keys.spaceBase(spaceId, baseId)].map((key) => ({
    update: {
      key,
      update: 'SET deletedTime = :now, deletedBy = :by, trashId = :trs',
      condition: LIVE,
      values: { ':now': trash.deletedTime, ':by': trash.deletedBy, ':trs': trash.trashId },
    },
  }));

/** The operation that removes the space's reference to a base, whatever its state. Pure. */
export const deleteBaseRefOp = (spaceId: string, baseId: string): TransactOp => ({
  delete: keys.spaceBase(spaceId, baseId),
});

/** The operation that removes the space's reference to a live base (a move out). Pure. */
export const deleteLiveBaseRefOp = (spaceId: string, baseId: string): TransactOp => ({
  delete: keys.spaceBase(spaceId, baseId),
  condition: LIVE,
});

/** The operation that places a live base among its space's bases at an order key. Pure. */
export const placeBaseOp = (spaceId: string, baseId: string, orderKey: string): TransactOp => ({
  update: {
    key: keys.spaceBase(spaceId, baseId),
    update: 'SET orderKey = :key',
    condition: LIVE,
    values: { ':key': orderKey },
  },
});

/** A base's references to its tables (in the trash or not): the table items of its partition. */
export const tableRefsOfBase = async (baseId: string): Promise<TableRef[]> =>
  (await queryAll(keys.tablesOf(baseId))).map(tableRefOf);

/** The trash entries in a base's partition (its tables in the trash). */
export const trashEntriesOfBase = async (baseId: string): Promise<TrashEntry[]> =>
  (await queryAll(keys.baseTrashOf(baseId))).map(entryOf);

/** The operation that stamps a table that is there with the space its base moves to. Pure. */
export const moveTableSpaceOp = (tableId: string, spaceId: string): TransactOp => ({
  update: {
    key: keys.table(tableId),
    update: 'SET spaceId = :space',
    condition: tableConditions.exists,
    values: { ':space': spaceId },
  },
});

/** The operation that puts a space's reference to a base where there is none. Pure. */
export const putBaseRefOp = (base: BaseItem): TransactOp => ({
  put: toBaseRefItem(base),
  condition: baseConditions.notExists,
});

/** The space of each base among `baseIds` that is there and not in the trash (one batch read). */
export const spacesOfBases = async (baseIds: readonly string[]): Promise<Map<string, string>> => {
  const out = new Map<string, string>();
  if (baseIds.length === 0) return out;
  const loaded = await getItems(baseIds.map((b) => keys.base(b)));
  for (const b of baseIds) {
    const item = loaded.get(keys.base(b));
    if (item && !item.deletedTime) out.set(b, baseOf(item).spaceId);
  }
  return out;
};
/** The lookup of a base's item, to read in a batch. Pure. */
export const baseLookup = (baseId: string): Lookup<BaseItem> => lookupOf(keys.base(baseId), baseOf);
