import { type Principal, tokenCovers } from '#shared/auth/permission.ts';
import { ROLE_ACTIONS, type Role } from '#shared/auth/scopes.ts';
import type { LocatedTrashItem } from '#shared/auth/trash-access.ts';
import { deleteBasePermanently } from '#shared/bases/bases.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '#shared/core/errors.ts';
import { getItems, queryAll, type TransactOp, transact } from '#shared/db/client.ts';
import { and, LIVE, NOT_PURGED } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { withStamps } from '#shared/db/request-scope.ts';
import { baseOf } from '#shared/entities/bases.ts';
import { type UserSpace, userSpaceOf } from '#shared/entities/members.ts';
import { type Space, spaceOf } from '#shared/entities/spaces.ts';
import { tableOf } from '#shared/entities/tables.ts';
import {
  entryOf,
  removeTrashOps,
  type TrashEntry,
  type TrashType,
  toTrashItem,
} from '#shared/entities/trash-items.ts';
import { userOf } from '#shared/entities/users.ts';
import { deleteSpacePermanently } from '#shared/spaces/spaces.ts';
import { deleteTablePermanently } from '#shared/tables/tables.ts';

/** Trash items one page answers (newest first). */
export const TRASH_PAGE_SIZE = 50;

/** May the caller delete this kind of resource in a space where it has `role`? Role and token both. */
const mayDelete = (principal: Principal, role: Role | undefined, type: TrashType) =>
  role !== undefined && ROLE_ACTIONS[role].has(`${type}|delete`) && principal.scopes.has(`${type}|delete`);

/** The resource item of a trash entry's resource. */
const resourceKey = (e: TrashEntry): Key =>
  e.resourceType === 'space'
    ? keys.space(e.resourceId)
    : e.resourceType === 'base'
      ? keys.base(e.resourceId)
      : keys.table(e.resourceId);

/**
 * The maps Teable's trash answers carry: who deleted (`userMap`, by user id) and what was
 * deleted (`resourceMap`, by resource id: name, and the space of a base). Read in one batch.
 */
const trashMaps = async (entries: TrashEntry[]) => {
  const userIds = [...new Set(entries.map((e) => e.deletedBy).filter((u) => u !== ''))];
  const loaded = await getItems([...userIds.map((u) => keys.user(u)), ...entries.map(resourceKey)]);
  const userMap: Record<string, { id: string; name: string; email: string; avatar: null }> = {};
  for (const id of userIds) {
    const item = loaded.get(keys.user(id));
    if (item) {
      const user = userOf(item);
      userMap[id] = { id, name: user.name, email: user.email, avatar: null };
    }
  }
  const resourceMap: Record<string, { id: string; name: string; spaceId?: string }> = {};
  for (const e of entries) {
    const item = loaded.get(resourceKey(e));
    if (!item) continue;
    resourceMap[e.resourceId] = {
      id: e.resourceId,
      name:
        e.resourceType === 'space'
          ? spaceOf(item).name
          : e.resourceType === 'base'
            ? baseOf(item).name
            : tableOf(item).name,
      ...(e.resourceType === 'base' ? { spaceId: e.spaceId } : {}),
    };
  }
  return { userMap, resourceMap };
};

/** One page of entries, newest first; the cursor is the last trash id of the previous page. */
const page = async (entries: TrashEntry[], cursor: string | undefined, size = TRASH_PAGE_SIZE) => {
  const sorted = entries
    .filter((e) => cursor === undefined || e.id < cursor)
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const shown = sorted.slice(0, size);
  return {
    trashItems: shown.map(toTrashItem),
    ...(await trashMaps(shown)),
    nextCursor: sorted.length > size ? (shown.at(-1)?.id ?? null) : null,
  };
};

/**
 * The caller's trash (`GET /trash`). Decided: `space` lists the trashed spaces where the caller
 * may delete spaces (owners); `base` lists the trashed bases of the live spaces where the
 * caller may delete bases (creators and owners). Both need the matching `…|delete` scope and
 * respect the token's space/base limits. Reads the user's space mirrors (one query), the
 * spaces (one batch) and, for bases, each such space's trash copies (one query per space, in
 * parallel): no scan. Rights are read now, not when the item was trashed.
 */
export const listTrash = async (principal: Principal, resourceType: 'space' | 'base', cursor?: string) => {
  const mirrors = (await queryAll(keys.spacesOf(principal.userId)))
    .flatMap((m) => userSpaceOf(m) ?? [])
    .filter((m) => mayDelete(principal, m.role, resourceType));
  const spaces = await getItems(mirrors.map((m) => keys.space(m.spaceId)));
  const spaceOfMirror = (m: UserSpace): Space | undefined => {
    const item = spaces.get(keys.space(m.spaceId));
    return item ? spaceOf(item) : undefined;
  };
  if (resourceType === 'space') {
    const entries = mirrors
      .flatMap((m) => spaceOfMirror(m) ?? [])
      .flatMap((s): TrashEntry[] =>
        s.deletedTime && s.trashId && !s.purgeTime && tokenCovers(principal, { id: s.id, spaceId: s.id })
          ? [
              {
                id: s.trashId,
                resourceId: s.id,
                resourceType: 'space',
                deletedTime: s.deletedTime,
                deletedBy: s.deletedBy ?? '',
                spaceId: s.id,
              },
            ]
          : [],
      );
    return page(entries, cursor);
  }
  const live = mirrors.filter((m) => {
    const s = spaceOfMirror(m);
    return s !== undefined && !s.deletedTime;
  });
  const copies = await Promise.all(live.map((m) => queryAll(keys.spaceTrashOf(m.spaceId))));
  const entries = copies
    .flat()
    .map(entryOf)
    .filter((e) => tokenCovers(principal, { id: e.resourceId, spaceId: e.spaceId, baseId: e.resourceId }));
  return page(entries, cursor);
};

/** The trashed tables of a base (`GET /trash/items`), newest first: one query on the base's partition. */
export const listTrashItems = async (baseId: string, cursor?: string) =>
  page((await queryAll(keys.baseTrashOf(baseId))).map(entryOf), cursor);

const CLEAR = 'REMOVE deletedTime, deletedBy, trashId';
/** The resource is still in the trash under this entry (`:trs`) and no permanent delete started. */
const MARKED = and(NOT_PURGED, 'trashId = :trs');

/**
 * Restores a trashed space, base or table: the deleted marks of the resource and of its
 * reference are cleared and the trash item removed, in one transaction. A base whose space is
 * in the trash, or a table whose base or space is, cannot be restored (403): restore the parent
 * first. The parents' state is also checked inside the transaction.
 */
export const restoreTrashItem = async ({ entry, items }: LocatedTrashItem): Promise<void> => {
  const { resourceType: type, resourceId: id, spaceId } = entry;
  const values = { ':trs': entry.id };
  const spaceItem = items.get(keys.space(spaceId));
  const space = spaceItem ? spaceOf(spaceItem) : undefined;
  const base = entry.baseId ? items.get(keys.base(entry.baseId)) : undefined;
  if (type !== 'space' && (!space || space.deletedTime))
    throw new ForbiddenError(
      `${type === 'base' ? 'Base' : 'Table'} ${id} is in a space in the trash; restore the space first`,
    );
  if (type === 'table' && (!base || base.deletedTime))
    throw new ForbiddenError(`Table ${id} is in a base in the trash; restore the base first`);
  const marked: Key[] =
    type === 'space'
      ? [keys.space(id)]
      : type === 'base'
        ? [keys.base(id), keys.spaceBase(spaceId, id)]
        : [keys.table(id), keys.baseTable(entry.baseId ?? '', id)];
  const parents: Key[] =
    type === 'space'
      ? []
      : type === 'base'
        ? [keys.space(spaceId)]
        : [keys.space(spaceId), keys.base(entry.baseId ?? '')];
  const ops: TransactOp[] = [
    ...marked.map((key) => {
      // the table item stamped: the change log's `table.created` names this request and its user
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
    }),
    ...removeTrashOps(entry),
    ...parents.map((key) => ({ check: key, condition: LIVE })),
  ];
  const firstCheck = ops.length - parents.length;
  await transact(ops, (i) =>
    i < marked.length
      ? new NotFoundError(`Trash item ${entry.id} not found`)
      : i >= firstCheck
        ? new ForbiddenError(`The parent of ${id} was moved to the trash; restore it first`)
        : new ConflictError('The trash changed at the same time; retry'),
  );
};

/** Deletes the trashed resource for good (see the permanent deletes for what goes, and when). */
export const deleteTrashItemForGood = async ({ entry }: LocatedTrashItem, userId: string): Promise<void> => {
  if (entry.resourceType === 'space') await deleteSpacePermanently(entry.resourceId, userId);
  else if (entry.resourceType === 'base')
    await deleteBasePermanently(entry.resourceId, entry.spaceId, userId);
  else await deleteTablePermanently(entry.baseId ?? '', entry.resourceId, userId);
};

/**
 * Deletes every trashed table of a base for good (`DELETE /trash/reset-items`), one table at a
 * time; a table deleted meanwhile by another call is skipped. Answers how many were deleted.
 */
export const resetTrashItems = async (baseId: string, userId: string): Promise<number> => {
  const entries = (await queryAll(keys.baseTrashOf(baseId))).map(entryOf);
  let deleted = 0;
  for (const entry of entries) {
    try {
      await deleteTablePermanently(baseId, entry.resourceId, userId);
      deleted++;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return deleted;
};
