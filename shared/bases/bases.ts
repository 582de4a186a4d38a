import { checkAccess, type Principal, tokenCovers } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import { type TransactOp, transact } from '#shared/db/commit.ts';
import {
  type BaseItem,
  type BaseRef,
  baseRefsOfSpace,
  deleteBaseRefOp,
  deleteLiveBaseRefOp,
  moveBaseOp,
  moveTableSpaceOp,
  placeBaseOp,
  putBaseOps,
  putBaseRefOp,
  readBase,
  tableRefsOfBase,
  trashBaseOps,
  trashEntriesOfBase,
  updateBaseOps,
} from '#shared/entities/bases.ts';
import type { Loaded } from '#shared/entities/batch-read.ts';
import { memberLookup } from '#shared/entities/members.ts';
import { spaceLiveCheck, spaceLookup } from '#shared/entities/spaces.ts';
import {
  moveTrashEntryOps,
  newTrashEntry,
  putTrashOps,
  removeTrashOps,
} from '#shared/entities/trash-items.ts';
import { newId } from '#shared/ids.ts';
import { enqueuePurge, markResourcePurgedOp, purgeJobOp } from '#shared/jobs/purge-queue.ts';
import { keyBetween, keysBetween, MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';
import { liveSpacesOf } from '#shared/spaces/spaces.ts';

export const DEFAULT_BASE_NAME = 'Untitled Base';

/** The public shape of a base. */
export interface Base {
  id: string;
  name: string;
  icon: string | null;
  spaceId: string;
}

export interface BaseChanges {
  name?: string;
  icon?: string | null;
}

const baseGone = (id: string) => new NotFoundError(`Base ${id} not found`);

/** Items read in a batch with authentication. */

/** The public shape of a base. */
export const toBase = (base: Pick<BaseItem, 'id' | 'name' | 'icon'>, spaceId: string): Base => ({
  id: base.id,
  name: base.name,
  icon: base.icon,
  spaceId,
});

// Order keys compare by code unit, never by locale.
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The space's references to its bases that are not in the trash, in order: the bases placed by a
 * move (`orderKey`) by key, then the others oldest first (a base created after a move goes last).
 */
const liveReferences = async (spaceId: string): Promise<BaseRef[]> => {
  const refs = await baseRefsOfSpace(spaceId);
  const placed = (r: BaseRef) => (r.orderKey === undefined ? 1 : 0);
  return refs
    .filter((r) => !r.deletedTime)
    .sort(
      (a, b) =>
        placed(a) - placed(b) ||
        byCodeUnit(a.orderKey ?? '', b.orderKey ?? '') ||
        a.createdTime.localeCompare(b.createdTime) ||
        a.baseId.localeCompare(b.baseId),
    );
};

/**
 * Creates a base in a space. Without a name it is `Untitled Base`, made unique among the space's
 * bases that are not in the trash. The base, the space's reference to it and a check that the
 * space is still there (not in the trash) form one transaction.
 */
export const createBase = async (
  principal: Principal,
  space: Located,
  input: BaseChanges,
  now = new Date(),
): Promise<Base> => {
  const spaceId = space.spaceId;
  const name =
    input.name ??
    uniqueName(
      DEFAULT_BASE_NAME,
      (await liveReferences(spaceId)).map((r) => r.name),
    );
  const icon = input.icon ?? null;
  const id = newId('base');
  const createdTime = now.toISOString();
  const base: BaseItem = { id, name, icon, spaceId, createdTime, createdBy: principal.userId };
  const ops: TransactOp[] = [...putBaseOps(base), spaceLiveCheck(spaceId)];
  await transact(ops, (index) =>
    index === 2
      ? new NotFoundError(`Space ${spaceId} not found`)
      : new ConflictError('Base id collision; retry'),
  );
  return { id, name, icon, spaceId };
};

/** The bases of a space that are not in the trash, oldest first (one query on the space). */
export const listBases = async (spaceId: string): Promise<Base[]> =>
  (await liveReferences(spaceId)).map((r) => toBase({ id: r.baseId, name: r.name, icon: r.icon }, spaceId));

const baseItemOf = (located: Located): BaseItem => {
  if (!located.base) throw new Error(`located ${located.kind} ${located.id} has no base`);
  return located.base;
};

/** The base a route located. */
/**
 * A base as `GET /base/{id}` answers it: with the caller's role in its space (Teable's web app
 * decides what it shows by it; an instance admin outside the space has none).
 */
export const getBase = (located: Located): Base & { role?: Located['role']; collaboratorType?: 'space' } => ({
  ...toBase(baseItemOf(located), located.spaceId),
  ...(located.role ? { role: located.role, collaboratorType: 'space' as const } : {}),
});

/**
 * Renames a base or changes its icon (null clears it). The base and the space's reference change
 * in one transaction, so the space's list always shows the base's current name.
 */
export const updateBase = async (located: Located, changes: BaseChanges, now = new Date()): Promise<Base> => {
  const baseId = located.id;
  await transact(updateBaseOps(located.spaceId, baseId, changes, now), () => baseGone(baseId));
  const before = toBase(baseItemOf(located), located.spaceId);
  return {
    ...before,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.icon !== undefined ? { icon: changes.icon } : {}),
  };
};

/**
 * Moves a base to the trash: from now on every route on the base or its tables answers 404 and
 * the space's list leaves it out. The base, the space's reference and the trash item change in
 * one transaction.
 */
export const trashBase = async (located: Located, userId: string, now = new Date()): Promise<void> => {
  const entry = newTrashEntry('base', located.id, { spaceId: located.spaceId }, userId, now);
  const ops = trashBaseOps(located.spaceId, located.id, {
    trashId: entry.id,
    deletedTime: entry.deletedTime,
    deletedBy: userId,
  });
  await transact([...ops, ...putTrashOps(entry)], (i) =>
    i <= 1 ? baseGone(located.id) : new ConflictError('retry'),
  );
};

/**
 * Deletes a base and everything in it for good. The request makes it invisible at once and
 * removes what points at it, in one transaction: the purge mark (`purgeTime`: even the
 * permanent routes answer 404 from now on), the space's reference, the base's trash item and the
 * durable purge job. The purge worker then deletes every table and the base's partition in the
 * background (shared/trash/job-runner.ts).
 */
export const deleteBasePermanently = async (
  baseId: string,
  spaceId: string,
  userId: string,
  now = new Date(),
): Promise<void> => {
  const base = await readBase(baseId);
  if (!base || base.purgeTime || base.spaceId !== spaceId) throw baseGone(baseId);
  const { trashId } = base;
  await transact(
    [
      markResourcePurgedOp('base', baseId, userId, now),
      deleteBaseRefOp(spaceId, baseId),
      ...(trashId ? removeTrashOps({ id: trashId, resourceType: 'base', spaceId }) : []),
      purgeJobOp({ kind: 'base', resourceId: baseId }, { spaceId, userId }, now),
    ],
    (i) => (i === 0 ? baseGone(baseId) : new ConflictError('retry')),
  );
  await enqueuePurge({ kind: 'base', resourceId: baseId });
};

/** Bases one reorder may renumber in one transaction. */
const MAX_RENUMBER = 100;

/**
 * Moves a base right before or after another base of its space (`PUT /base/{b}/order`,
 * ordering.md): 400 relative to itself, 404 for an anchor that is not a live base of the space.
 * One key is written when the neighbours leave room; otherwise every base of the space gets a
 * fresh key in one transaction.
 */
export const moveBase = async (
  located: Located,
  anchorId: string,
  position: 'before' | 'after',
): Promise<void> => {
  const baseId = located.id;
  if (anchorId === baseId) throw new ValidationError(`Base ${baseId} cannot be moved relative to itself`);
  const current = await liveReferences(located.spaceId);
  const rest = current.filter((r) => r.baseId !== baseId);
  const moved = current.find((r) => r.baseId === baseId);
  if (!moved) throw baseGone(baseId);
  const at = rest.findIndex((r) => r.baseId === anchorId);
  if (at < 0) throw new NotFoundError(`Anchor ${anchorId} not found`);
  const insertAt = position === 'before' ? at : at + 1;
  const sequence = [...rest.slice(0, insertAt), moved, ...rest.slice(insertAt)];
  if (sequence.every((r, i) => r.baseId === current[i]?.baseId) && moved.orderKey !== undefined) return;
  const lower = sequence[insertAt - 1]?.orderKey ?? null;
  const upper = sequence[insertAt + 1]?.orderKey ?? null;
  const allPlaced = rest.every((r) => r.orderKey !== undefined);
  let writes: { baseId: string; key: string }[] | undefined;
  if (allPlaced && (lower === null || upper === null || lower < upper)) {
    const key = keyBetween(lower, upper);
    if (key.length <= MAX_KEY_LENGTH) writes = [{ baseId, key }];
  }
  if (!writes) {
    if (sequence.length > MAX_RENUMBER)
      throw new ConflictError(`A space with over ${MAX_RENUMBER} bases cannot be reordered`);
    const fresh = keysBetween(null, null, sequence.length);
    writes = sequence.map((r, i) => ({ baseId: r.baseId, key: fresh[i] ?? '' }));
  }
  await transact(
    writes.map((w) => placeBaseOp(located.spaceId, w.baseId, w.key)),
    () => new ConflictError('The bases of the space changed meanwhile; retry'),
  );
};

/**
 * The bases the caller's token may reach (`GET /base/access/all`): every live base of the
 * caller's live spaces that the token's limits cover, space by space, in each space's order,
 * with the caller's role there. None without the `base|read` scope.
 */
export const listAccessibleBases = async (principal: Principal) => {
  if (!principal.scopes.has('base|read')) return [];
  const spaces = await liveSpacesOf(principal.userId);
  const refs = await Promise.all(spaces.map(({ space }) => liveReferences(space.id)));
  return spaces.flatMap(({ space, mirror }, i) =>
    (refs[i] ?? [])
      .filter((r) => tokenCovers(principal, { id: r.baseId, spaceId: space.id, baseId: r.baseId }))
      .map((r) => ({
        id: r.baseId,
        name: r.name,
        spaceId: space.id,
        icon: r.icon,
        role: mirror.role,
        collaboratorType: 'space' as const,
      })),
  );
};

/** Tables and trash entries a base may hold to move in one transaction (with its 5 own writes). */
export const MAX_MOVED_ITEMS = 95;

/** The items `moveBaseToSpace` needs of the target space, read with authentication. */
export const targetSpaceKeys = (userId: string, spaceId: string) => [
  spaceLookup(spaceId),
  memberLookup(spaceId, userId),
];

/** The base's own condition refused a move (a 409 unless the base turns out gone or in the trash). */
class BaseRefused extends ConflictError {}

/** Times a move reads the base and its tables again when a table was created or trashed meanwhile. */
const MOVE_ATTEMPTS = 3;

/**
 * One try of `moveBaseToSpace` from `base` as read (before its tables and trash entries, which it
 * reads now): a `BaseRefused` when the base's own condition fails.
 */
const moveOnce = async (base: BaseItem, spaceId: string, now: Date): Promise<void> => {
  const { id: baseId, spaceId: from } = base;
  const [tableRefs, entries] = await Promise.all([tableRefsOfBase(baseId), trashEntriesOfBase(baseId)]);
  const tableIds = tableRefs.map((r) => r.tableId);
  if (tableIds.length + 2 * entries.length > MAX_MOVED_ITEMS)
    throw new ValidationError(`Base ${baseId} holds too many tables to move (at most ${MAX_MOVED_ITEMS})`);
  // The reference's createdTime is when the base joined the space: unplaced, it sorts last.
  const moved: BaseItem = { ...base, spaceId, createdTime: now.toISOString() };
  const ops: TransactOp[] = [
    moveBaseOp(base, spaceId, now),
    deleteLiveBaseRefOp(from, baseId),
    putBaseRefOp(moved),
    spaceLiveCheck(spaceId),
    ...tableIds.map((tableId) => moveTableSpaceOp(tableId, spaceId)),
    ...entries.flatMap((e) => moveTrashEntryOps(e, spaceId)),
  ];
  await transact(ops, (i) =>
    i === 0
      ? new BaseRefused('The base changed meanwhile; retry')
      : i === 1
        ? baseGone(baseId)
        : i === 3
          ? new NotFoundError(`Space ${spaceId} not found`)
          : new ConflictError('The base changed meanwhile; retry'),
  );
};

/**
 * Moves a base to another space (`PUT /base/{b}/move`), placed last there. The route checked
 * `space|update` on the base's space; the caller also needs `base|create` in the target space
 * (role and token, 403 otherwise; 404 for a space that is not there or in the trash). The base,
 * its two space references, its tables and its trashed tables' entries change in one
 * transaction; a base with more than `MAX_MOVED_ITEMS` of them is a 400. Tables created or
 * trashed in the base meanwhile, again and again, make it a 409, to retry. Moving a base to its
 * own space changes nothing.
 */
export const moveBaseToSpace = async (
  principal: Principal,
  located: Located,
  spaceId: string,
  loaded: Loaded,
  now = new Date(),
): Promise<void> => {
  const target = loaded.valueFor(spaceLookup(spaceId));
  if (!target || target.deletedTime || target.purgeTime)
    throw new NotFoundError(`Space ${spaceId} not found`);
  checkAccess({
    principal,
    resource: { id: spaceId, spaceId },
    role: loaded.valueFor(memberLookup(spaceId, principal.userId))?.role,
    actions: ['base|create'],
  });
  if (spaceId === located.spaceId) return;
  // The base as the route read it, before its tables and trash entries: the move commits only if
  // no table was created or trashed since (moveBaseOp, shared/entities/bases.ts). When one was,
  // the base is read again, then its tables, a few times before the caller is told to retry.
  let base = baseItemOf(located);
  for (let attempt = 1; ; attempt++) {
    try {
      await moveOnce(base, spaceId, now);
      return;
    } catch (error) {
      if (!(error instanceof BaseRefused)) throw error;
      const again = await readBase(base.id);
      if (!again || again.deletedTime || again.purgeTime) throw baseGone(base.id);
      // Moved by another request: this one's access was checked in the space the base left.
      if (again.spaceId !== located.spaceId || attempt >= MOVE_ATTEMPTS) throw error;
      base = again;
    }
  }
};
