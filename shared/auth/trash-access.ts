import { NotFoundError } from '#shared/core/errors.ts';
import { getItems, type ItemLookup } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { memberOf } from '#shared/entities/members.ts';
import { entryOf, type TrashEntry } from '#shared/entities/trash-items.ts';
import { checkAccess, type Principal } from './permission.ts';

/** A trash item found and checked, with the items of its resource and parents. */
export interface LocatedTrashItem {
  entry: TrashEntry;
  items: ItemLookup;
}

/** What a trash-item route reads with authentication. */
export const trashItemKeys = (trashId: string): Key[] => [keys.trashItem(trashId)];

/**
 * The access check of trash-item routes (the resource kind `trashItem`): the item must exist
 * (404), and the caller's role in its resource's space and the token must both allow
 * `<type>|delete`, as on the resource's own delete route. One batch read of the space, the
 * membership and the resource (with its base).
 */
export const locateTrashItem = async (
  principal: Principal,
  loaded: ItemLookup,
  trashId: string,
): Promise<LocatedTrashItem> => {
  const item = loaded.get(keys.trashItem(trashId));
  if (!item) throw new NotFoundError(`Trash item ${trashId} not found`);
  const entry = entryOf(item);
  const baseId = entry.resourceType === 'base' ? entry.resourceId : entry.baseId;
  const items = await getItems([
    keys.space(entry.spaceId),
    keys.member(entry.spaceId, principal.userId),
    ...(baseId ? [keys.base(baseId)] : []),
    ...(entry.resourceType === 'table' ? [keys.table(entry.resourceId)] : []),
  ]);
  const membership = items.get(keys.member(entry.spaceId, principal.userId));
  checkAccess({
    principal,
    resource: { id: entry.resourceId, spaceId: entry.spaceId, baseId },
    role: membership ? memberOf(membership)?.role : undefined,
    actions: [`${entry.resourceType}|delete`],
  });
  return { entry, items };
};
