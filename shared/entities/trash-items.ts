import { type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { and, EXISTS, LIVE, NOT_EXISTS, NOT_PURGED } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { withStamps } from '#shared/db/request-scope.ts';
import { newTimeOrderedId } from '#shared/ids.ts';
import { text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/** What can be in the trash. */
const TRASH_TYPES = ['space', 'base', 'table'] as const;
export type TrashType = (typeof TRASH_TYPES)[number];

/**
 * A trash item: one per space, base or table in the trash. Written in the same transaction as
 * the resource's deleted mark (the resource item also gets `trashId`), removed in the same
 * transaction as a restore or a permanent delete: the trash never lists what is not in it.
 */
export interface TrashEntry {
  id: string;
  resourceId: string;
  resourceType: TrashType;
  deletedTime: string;
  deletedBy: string;
  spaceId: string;
  baseId?: string;
}

/** A new trash entry; its id is time-ordered, so listing copies sort by deletion time. */
export const newTrashEntry = (
  resourceType: TrashType,
  resourceId: string,
  parents: { spaceId: string; baseId?: string },
  userId: string,
  now: Date,
): TrashEntry => ({
  id: newTimeOrderedId('trash', now.getTime()),
  resourceId,
  resourceType,
  deletedTime: now.toISOString(),
  deletedBy: userId,
  spaceId: parents.spaceId,
  ...(resourceType === 'table' ? { baseId: parents.baseId } : {}),
});

/**
 * The listing copy of an entry: a trashed base in its space's partition, a trashed table in its
 * base's partition. A trashed space has none (spaces are listed from the user's mirrors).
 */
const listingKey = (entry: Pick<TrashEntry, 'id' | 'resourceType' | 'spaceId' | 'baseId'>) =>
  entry.resourceType === 'base'
    ? keys.spaceTrash(entry.spaceId, entry.id)
    : entry.resourceType === 'table' && entry.baseId
      ? keys.baseTrash(entry.baseId, entry.id)
      : undefined;

/** Operations that put an entry and its listing copy (to join the deleted mark's transaction). */
export const putTrashOps = (entry: TrashEntry): TransactOp[] => {
  const listing = listingKey(entry);
  return [
    { put: { ...keys.trashItem(entry.id), type: 'trash', ...entry }, condition: NOT_EXISTS },
    ...(listing ? [{ put: { ...listing, type: 'trashRef', ...entry } }] : []),
  ];
};

/** Operations that remove an entry and its listing copy (unconditional: repeatable). */
export const removeTrashOps = (
  entry: Pick<TrashEntry, 'id' | 'resourceType' | 'spaceId' | 'baseId'>,
): TransactOp[] => {
  const listing = listingKey(entry);
  return [{ delete: keys.trashItem(entry.id) }, ...(listing ? [{ delete: listing }] : [])];
};

/** The entry stored in an item (the canonical item or a listing copy). */
export const entryOf = (item: Item): TrashEntry => ({
  id: text(item.id),
  resourceId: text(item.resourceId),
  resourceType: TRASH_TYPES.find((t) => t === item.resourceType) ?? 'table',
  deletedTime: text(item.deletedTime),
  deletedBy: text(item.deletedBy),
  spaceId: text(item.spaceId),
  ...(typeof item.baseId === 'string' ? { baseId: item.baseId } : {}),
});

/** The public shape of a trash item. */
export const toTrashItem = (entry: TrashEntry) => ({
  id: entry.id,
  resourceId: entry.resourceId,
  resourceType: entry.resourceType,
  deletedTime: entry.deletedTime,
  deletedBy: entry.deletedBy,
});

/**
 * Operations that move a trashed table's entry and its listing copy to another space (its base
 * moved): both keep their keys, only `spaceId` changes. Each must still be there.
 */
export const moveTrashEntryOps = (entry: TrashEntry, spaceId: string): TransactOp[] => {
  const listing = listingKey(entry);
  return [keys.trashItem(entry.id), ...(listing ? [listing] : [])].map((key) => ({
    update: { key, update: 'SET spaceId = :space', condition: EXISTS, values: { ':space': spaceId } },
  }));
};

/** The lookup of a trash item, to read in a batch. Pure. */
export const trashEntryLookup = (trashId: string): Lookup<TrashEntry> =>
  lookupOf(keys.trashItem(trashId), entryOf);

/** The listing copies of the bases trashed in a space (one query on the space's partition). */
export const trashEntriesOfSpace = async (spaceId: string): Promise<TrashEntry[]> =>
  (await queryAll(keys.spaceTrashOf(spaceId))).map(entryOf);

const CLEAR = 'REMOVE deletedTime, deletedBy, trashId';
/** The resource is still in the trash under this entry (`:trs`) and no permanent delete started. */
const MARKED = and(NOT_PURGED, 'trashId = :trs');

/**
 * The operations that clear the deleted marks of an entry's resource and of its reference (the
 * space's reference to a base, the base's to a table), each on the condition that it is still in
 * the trash under this entry. The table item is stamped: the change log's `table.created` names
 * this request and its user. Pure.
 */
export const clearTrashMarkOps = (entry: TrashEntry): TransactOp[] => {
  const { resourceType: type, resourceId: id, spaceId } = entry;
  const values = { ':trs': entry.id };
  const marked: Key[] =
    type === 'space'
      ? [keys.space(id)]
      : type === 'base'
        ? [keys.base(id), keys.spaceBase(spaceId, id)]
        : [keys.table(id), keys.baseTable(entry.baseId ?? '', id)];
  return marked.map((key) => {
    if (type !== 'table' || key.sk !== keys.table(id).sk)
      return { update: { key, update: CLEAR, condition: MARKED, values } };
    const stamped = withStamps([], ['deletedTime', 'deletedBy', 'trashId']);
    return {
      update: {
        key,
        update: stamped.update,
        names: stamped.names,
        condition: MARKED,
        values: { ...values, ...stamped.values },
      },
    };
  });
};

/** The checks that an entry's parents (its space, a table's base) are live, to join a restore. Pure. */
export const trashParentsLiveChecks = (entry: TrashEntry): TransactOp[] => {
  const parents: Key[] =
    entry.resourceType === 'space'
      ? []
      : entry.resourceType === 'base'
        ? [keys.space(entry.spaceId)]
        : [keys.space(entry.spaceId), keys.base(entry.baseId ?? '')];
  return parents.map((key) => ({ check: key, condition: LIVE }));
};
