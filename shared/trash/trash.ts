import { assertParentsLive, mayDo, type Principal, tokenCovers } from '#shared/auth/permission.ts';
import type { Role } from '#shared/auth/scopes.ts';
import type { LocatedTrashItem } from '#shared/auth/trash-access.ts';
import { deleteBasePermanently } from '#shared/bases/bases.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '#shared/core/errors.ts';
import { type TransactOp, transact } from '#shared/db/commit.ts';
import { baseLookup, trashEntriesOfBase } from '#shared/entities/bases.ts';
import { type Loaded, type Lookup, readBatch } from '#shared/entities/batch-read.ts';
import { mirrorsOfUser, type UserSpace } from '#shared/entities/members.ts';
import { type Space, spaceLookup } from '#shared/entities/spaces.ts';
import { tableLookup } from '#shared/entities/tables.ts';
import {
  clearTrashMarkOps,
  removeTrashOps,
  type TrashEntry,
  type TrashType,
  toTrashItem,
  trashEntriesOfSpace,
  trashParentsLiveChecks,
} from '#shared/entities/trash-items.ts';
import { userLookup } from '#shared/entities/users.ts';
import { deleteSpacePermanently } from '#shared/spaces/spaces.ts';
import { deleteTablePermanently } from '#shared/tables/tables.ts';

/** Trash items one page answers (newest first). */
export const TRASH_PAGE_SIZE = 50;

/** May the caller delete this kind of resource in a space where it has `role`? Role and token both. */
const mayDelete = (principal: Principal, role: Role | undefined, type: TrashType) =>
  mayDo(principal, role, `${type}|delete`);

/** The lookup of a trash entry's resource item. */
const resourceLookup = (e: TrashEntry): Lookup<{ name: string }> =>
  e.resourceType === 'space'
    ? spaceLookup(e.resourceId)
    : e.resourceType === 'base'
      ? baseLookup(e.resourceId)
      : tableLookup(e.resourceId);

/**
 * The maps Teable's trash answers carry: who deleted (`userMap`, by user id) and what was
 * deleted (`resourceMap`, by resource id: name, and the space of a base). Read in one batch.
 */
const trashMaps = async (entries: TrashEntry[]) => {
  const userIds = [...new Set(entries.map((e) => e.deletedBy).filter((u) => u !== ''))];
  const loaded: Loaded = await readBatch([...userIds.map(userLookup), ...entries.map(resourceLookup)]);
  const userMap: Record<string, { id: string; name: string; email: string; avatar: null }> = {};
  for (const id of userIds) {
    const user = loaded.valueFor(userLookup(id));
    if (user) userMap[id] = { id, name: user.name, email: user.email, avatar: null };
  }
  const resourceMap: Record<string, { id: string; name: string; spaceId?: string }> = {};
  for (const e of entries) {
    const resource = loaded.valueFor(resourceLookup(e));
    if (!resource) continue;
    resourceMap[e.resourceId] = {
      id: e.resourceId,
      name: resource.name,
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
  const mirrors = (await mirrorsOfUser(principal.userId)).filter((m) =>
    mayDelete(principal, m.role, resourceType),
  );
  const spaces = await readBatch(mirrors.map((m) => spaceLookup(m.spaceId)));
  const spaceOfMirror = (m: UserSpace): Space | undefined => spaces.valueFor(spaceLookup(m.spaceId));
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
  const copies = await Promise.all(live.map((m) => trashEntriesOfSpace(m.spaceId)));
  const entries = copies
    .flat()
    .filter((e) => tokenCovers(principal, { id: e.resourceId, spaceId: e.spaceId, baseId: e.resourceId }));
  return page(entries, cursor);
};

/** The trashed tables of a base (`GET /trash/items`), newest first: one query on the base's partition. */
export const listTrashItems = async (baseId: string, cursor?: string) =>
  page(await trashEntriesOfBase(baseId), cursor);

/**
 * Restores a trashed space, base or table: the deleted marks of the resource and of its
 * reference are cleared and the trash item removed, in one transaction. A base whose space is
 * in the trash, or a table whose base or space is, cannot be restored (403): restore the parent
 * first. The parents' state is also checked inside the transaction.
 */
export const restoreTrashItem = async ({ entry, items }: LocatedTrashItem): Promise<void> => {
  const { resourceType: type, resourceId: id, spaceId } = entry;
  const space = items.valueFor(spaceLookup(spaceId));
  const base = entry.baseId ? items.valueFor(baseLookup(entry.baseId)) : undefined;
  assertParentsLive(type, id, space, base);
  const marked = clearTrashMarkOps(entry);
  const parents = trashParentsLiveChecks(entry);
  const ops: TransactOp[] = [...marked, ...removeTrashOps(entry), ...parents];
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
  const entries = await trashEntriesOfBase(baseId);
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
