import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { deleteItems, type Item, queryAll, type TransactOp, transact } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { ConflictError, NotFoundError } from '#shared/http/errors.ts';
import { newId } from '#shared/ids.ts';
import { uniqueName } from '#shared/spaces/names.ts';
import { purgeTable } from '#shared/tables/purge.ts';

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

const LIVE = 'attribute_exists(pk) AND attribute_not_exists(deletedTime)';

/** The public shape of a base item (or of a space's reference to it). */
export const toBase = (item: Item, spaceId = String(item.spaceId)): Base => ({
  id: String(item.id ?? item.baseId),
  name: String(item.name),
  icon: typeof item.icon === 'string' ? item.icon : null,
  spaceId,
});

/** The space's references to its bases that are not in the trash, oldest first. */
const liveReferences = async (spaceId: string): Promise<Item[]> => {
  const refs = await queryAll(keys.basesOf(spaceId));
  return refs
    .filter((r) => !r.deletedTime)
    .sort(
      (a, b) =>
        String(a.createdTime).localeCompare(String(b.createdTime)) ||
        String(a.baseId).localeCompare(String(b.baseId)),
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
      (await liveReferences(spaceId)).map((r) => String(r.name)),
    );
  const icon = input.icon ?? null;
  const id = newId('base');
  const createdTime = now.toISOString();
  const ops: TransactOp[] = [
    {
      put: {
        ...keys.base(id),
        type: 'base',
        id,
        name,
        icon,
        spaceId,
        createdTime,
        createdBy: principal.userId,
      },
      condition: 'attribute_not_exists(pk)',
    },
    {
      put: { ...keys.spaceBase(spaceId, id), type: 'spaceBase', baseId: id, name, icon, createdTime },
      condition: 'attribute_not_exists(pk)',
    },
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
  (await liveReferences(spaceId)).map((r) => toBase(r, spaceId));

const baseItemOf = (located: Located): Item => {
  if (!located.base) throw new Error(`located ${located.kind} ${located.id} has no base`);
  return located.base;
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
 * Marks the base and the space's reference deleted. The trash needs both live; a permanent
 * delete only needs them present and keeps an earlier mark.
 */
const markOps = (
  baseId: string,
  spaceId: string,
  userId: string,
  now: Date,
  keepFirstMark: boolean,
): TransactOp[] =>
  [keys.base(baseId), keys.spaceBase(spaceId, baseId)].map((key) => ({
    update: {
      key,
      update: keepFirstMark
        ? 'SET deletedTime = if_not_exists(deletedTime, :now), deletedBy = if_not_exists(deletedBy, :by)'
        : 'SET deletedTime = :now, deletedBy = :by',
      condition: keepFirstMark ? 'attribute_exists(pk)' : LIVE,
      values: { ':now': now.toISOString(), ':by': userId },
    },
  }));

/**
 * Moves a base to the trash: from now on every route on the base or its tables answers 404 and
 * the space's list leaves it out. (The trash list and restore arrive with the trash routes.)
 */
export const trashBase = async (located: Located, userId: string, now = new Date()): Promise<void> => {
  await transact(markOps(located.id, located.spaceId, userId, now, false), () => baseGone(located.id));
};

/**
 * Deletes a base and everything in it for good. The base and the space's reference are first
 * marked deleted (invisible at once), then every table is purged and the base's partition
 * emptied; the base item and the reference go last, together, so a fault part-way leaves the
 * base in the trash and repeating the call (here or through the space's permanent delete)
 * finishes the work.
 */
export const deleteBasePermanently = async (
  baseId: string,
  spaceId: string,
  userId: string,
  now = new Date(),
): Promise<void> => {
  await transact(markOps(baseId, spaceId, userId, now, true), () => baseGone(baseId));
  const tableRefs = await queryAll({ ...keys.tablesOf(baseId), projection: ['tableId'] });
  for (const ref of tableRefs) await purgeTable(String(ref.tableId));
  const baseKey = keys.base(baseId);
  const rest = (await queryAll({ pk: keys.basePartition(baseId), projection: ['pk', 'sk'] }))
    .map((i) => ({ pk: String(i.pk), sk: String(i.sk) }))
    .filter((k) => k.sk !== baseKey.sk);
  await deleteItems(rest);
  await transact([{ delete: keys.spaceBase(spaceId, baseId) }, { delete: baseKey }], () => baseGone(baseId));
};
