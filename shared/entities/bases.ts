import { getItem, getItems, type Item, type TransactOp } from '#shared/db/client.ts';
import { and, LIVE, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text, textOrNull } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

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

/** The lookup of a base's item, to read in a batch. Pure. */
export const baseLookup = (baseId: string): Lookup<BaseItem> => lookupOf(keys.base(baseId), baseOf);
