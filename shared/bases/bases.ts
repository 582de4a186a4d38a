import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import { queryAll, type TransactOp, transact } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import {
  type BaseItem,
  type BaseRef,
  baseConditions,
  baseOf,
  baseRefOf,
  readBase,
  toBaseItem,
  toBaseRefItem,
} from '#shared/entities/bases.ts';
import { newTrashEntry, putTrashOps, removeTrashOps } from '#shared/entities/trash-items.ts';
import { newId } from '#shared/ids.ts';
import { enqueuePurge, markPurgedOp, purgeJobOp } from '#shared/jobs/purge-queue.ts';

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

const LIVE = baseConditions.live;

/** The public shape of a base. */
export const toBase = (base: Pick<BaseItem, 'id' | 'name' | 'icon'>, spaceId: string): Base => ({
  id: base.id,
  name: base.name,
  icon: base.icon,
  spaceId,
});

/** The space's references to its bases that are not in the trash, oldest first. */
const liveReferences = async (spaceId: string): Promise<BaseRef[]> => {
  const refs = (await queryAll(keys.basesOf(spaceId))).map(baseRefOf);
  return refs
    .filter((r) => !r.deletedTime)
    .sort((a, b) => a.createdTime.localeCompare(b.createdTime) || a.baseId.localeCompare(b.baseId));
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
  const ops: TransactOp[] = [
    { put: toBaseItem(base), condition: baseConditions.notExists },
    { put: toBaseRefItem(base), condition: baseConditions.notExists },
    { check: keys.space(spaceId), condition: LIVE },
  ];
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
  return baseOf(located.base);
};

/** The base a route located. */
export const getBase = (located: Located): Base => toBase(baseItemOf(located), located.spaceId);

/**
 * Renames a base or changes its icon (null clears it). The base and the space's reference change
 * in one transaction, so the space's list always shows the base's current name.
 */
export const updateBase = async (located: Located, changes: BaseChanges, now = new Date()): Promise<Base> => {
  const baseId = located.id;
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
  await transact(
    [
      { update: { key: keys.base(baseId), update, condition: LIVE, names: namesOrNone, values } },
      {
        update: {
          key: keys.spaceBase(located.spaceId, baseId),
          update,
          condition: LIVE,
          names: namesOrNone,
          values,
        },
      },
    ],
    () => baseGone(baseId),
  );
  const before = getBase(located);
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
  const ops: TransactOp[] = [keys.base(located.id), keys.spaceBase(located.spaceId, located.id)].map(
    (key) => ({
      update: {
        key,
        update: 'SET deletedTime = :now, deletedBy = :by, trashId = :trs',
        condition: LIVE,
        values: { ':now': entry.deletedTime, ':by': userId, ':trs': entry.id },
      },
    }),
  );
  await transact([...ops, ...putTrashOps(entry)], (i) =>
    i <= 1 ? baseGone(located.id) : new ConflictError('retry'),
  );
};

/**
 * Deletes a base and everything in it for good. The request makes it invisible at once and
 * removes what points at it, in one transaction: the purge mark (`purgeTime`: even the
 * permanent routes answer 404 from now on), the space's reference, the base's trash item and the
 * durable purge job. The purge worker then deletes every table and the base's partition in the
 * background (shared/trash/purge-worker.ts).
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
      markPurgedOp(keys.base(baseId), userId, now),
      { delete: keys.spaceBase(spaceId, baseId) },
      ...(trashId ? removeTrashOps({ id: trashId, resourceType: 'base', spaceId }) : []),
      purgeJobOp({ kind: 'base', resourceId: baseId }, { spaceId, userId }, now),
    ],
    (i) => (i === 0 ? baseGone(baseId) : new ConflictError('retry')),
  );
  await enqueuePurge({ kind: 'base', resourceId: baseId });
};
