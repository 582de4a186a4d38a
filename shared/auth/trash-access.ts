import { NotFoundError } from '#shared/core/errors.ts';
import { baseLookup } from '#shared/entities/bases.ts';
import { type ItemKey, type Loaded, readBatch } from '#shared/entities/batch-read.ts';
import { memberLookup } from '#shared/entities/members.ts';
import { spaceLookup } from '#shared/entities/spaces.ts';
import { tableLookup } from '#shared/entities/tables.ts';
import { type TrashEntry, trashEntryLookup } from '#shared/entities/trash-items.ts';
import { checkAccess, type Principal } from './permission.ts';

/** A trash item found and checked, with the items of its resource and parents. */
export interface LocatedTrashItem {
  entry: TrashEntry;
  /** The space, the caller's membership, the base and the table of the entry, as read. */
  items: Loaded;
}

/** What a trash-item route reads with authentication. */
export const trashItemKeys = (trashId: string): ItemKey[] => [trashEntryLookup(trashId).key];

/**
 * The access check of trash-item routes (the resource kind `trashItem`): the item must exist
 * (404), and the caller's role in its resource's space and the token must both allow
 * `<type>|delete`, as on the resource's own delete route. One batch read of the space, the
 * membership and the resource (with its base).
 */
export const locateTrashItem = async (
  principal: Principal,
  loaded: Loaded,
  trashId: string,
): Promise<LocatedTrashItem> => {
  const entry = loaded.valueFor(trashEntryLookup(trashId));
  if (!entry) throw new NotFoundError(`Trash item ${trashId} not found`);
  const baseId = entry.resourceType === 'base' ? entry.resourceId : entry.baseId;
  const membership = memberLookup(entry.spaceId, principal.userId);
  const items = await readBatch([
    spaceLookup(entry.spaceId),
    membership,
    ...(baseId ? [baseLookup(baseId)] : []),
    ...(entry.resourceType === 'table' ? [tableLookup(entry.resourceId)] : []),
  ]);
  checkAccess({
    principal,
    resource: { id: entry.resourceId, spaceId: entry.spaceId, baseId },
    role: items.valueFor(membership)?.role,
    actions: [`${entry.resourceType}|delete`],
  });
  return { entry, items };
};
