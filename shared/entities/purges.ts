import { deleteItems, getItems, type Item, queryAll, queryPage } from '#shared/db/client.ts';
import { type Key, keyOfItem, keys } from '#shared/db/keys.ts';
import { nodeIdOf } from '#shared/ids.ts';
import { optionalText } from './attributes.ts';
import { baseRefOf } from './bases.ts';
import { memberOf } from './members.ts';
import { isViewItem, viewIdOf } from './schema-items.ts';
import { tableRefOf } from './tables.ts';

/**
 * Permanent deletes, partition by partition: what a space (`SPACE#<spc>`), a base (`BASE#<bse>`)
 * or a table (`TABLE#<tbl>` and the partitions named by its id: records, record numbers, views'
 * orders and indexes, unique claims, export files, journals, idempotent answers, kept orders)
 * holds, deleted so that the resource's own item (`SPACE`, `BASE`, `TABLE`) goes last and an
 * interrupted purge is finished by running it again. Deletes only: safe to run twice at once.
 */

/**
 * Says whether a purge may start another page: the purge worker stops when its time budget is
 * spent and is enqueued again; the items already deleted stay deleted, so the next run finds
 * only what is left (the progress is the data itself: nothing to remember between runs).
 */
export type Budget = () => boolean;

const unlimited: Budget = () => true;

/** Keys read per page of a purge (keys only: ~60 bytes each, far below the 1 MB page limit). */
const PURGE_PAGE = 1000;

/**
 * Deletes a whole partition (but the item of sort key `keepSk`, when given), page by page: the
 * next page is read while the current one is deleted. True when the partition is empty, false
 * when the budget ran out first. Repeatable and safe to run twice at once (deletes only).
 */
export const purgePartition = async (
  pk: string,
  budget: Budget = unlimited,
  keepSk?: string,
): Promise<boolean> => {
  const keep = (item: Item) => keepSk !== undefined && item.sk === keepSk;
  let page = await queryPage({ pk, limit: PURGE_PAGE, projection: ['pk', 'sk'] });
  for (;;) {
    const doomed = page.items.filter((i) => !keep(i)).map(keyOfItem);
    const startKey = page.lastKey;
    if (!startKey) {
      await deleteItems(doomed, 8);
      return true;
    }
    const [, next] = await Promise.all([
      deleteItems(doomed, 8),
      queryPage({ pk, limit: PURGE_PAGE, projection: ['pk', 'sk'], startKey }),
    ]);
    page = next;
    if (!budget()) return false;
  }
};

/** Purges the partition of an item but the item itself (the resource's own item goes last). */
const purgeAllBut = (key: Key, budget: Budget) => purgePartition(key.pk, budget, key.sk);

/** Reads one item by key with a batch read (as the purges always did). */
const readOne = async (key: Key): Promise<Item | undefined> => (await getItems([key])).get(key);

/**
 * Deletes every item of a table for good: its records, their default-order index, each view's
 * manual order and indexes, unique-value claims, write journals, remembered idempotent answers,
 * kept listing orders, then the schema partition (fields, views, plugin context menu, counters
 * and data versions), its trash item, project node and the base's reference (the request removed
 * them already; a purge after a crash repeats it), and the table item last. True when done, false
 * when the budget ran out first.
 */
export const purgeTableItems = async (tableId: string, budget: Budget = unlimited): Promise<boolean> => {
  const tableKey = keys.table(tableId);
  const table = await readOne(tableKey);
  const schema = await queryAll({
    ...keys.schemaOf(tableId),
    projection: ['pk', 'sk', 'id', 'type', 'view'],
  });
  const viewIds = schema.filter(isViewItem).map(viewIdOf);
  const partitions = [
    keys.recordsOf(tableId).pk,
    keys.recordNumbersOf(tableId).pk,
    ...viewIds.flatMap((v) => [keys.viewOrderOf(v).pk, ...keys.viewIndexPartitionsOf(v)]),
    keys.uniqueValuesOf(tableId).pk,
    keys.exportFilesOf(tableId).pk,
    keys.journalsOf(tableId).pk,
    keys.idempotencyOfTable(tableId).pk,
    keys.queryOrdersOf(tableId).pk,
  ];
  for (const pk of partitions) if (!(await purgePartition(pk, budget))) return false;
  if (!(await purgeAllBut(tableKey, budget))) return false;
  const trashId = optionalText(table?.trashId);
  const baseId = optionalText(table?.baseId);
  const extras = [
    ...(trashId ? [keys.trashItem(trashId)] : []),
    ...(trashId && baseId ? [keys.baseTrash(baseId, trashId)] : []),
    ...(baseId ? [keys.node(baseId, nodeIdOf(tableId)), keys.baseTable(baseId, tableId)] : []),
  ];
  await deleteItems(extras);
  await deleteItems([tableKey]);
  return true;
};

/** A base's purge as far as it reads: the base's trash id (read before its tables go), if any. */
export const trashIdOfBase = async (baseId: string): Promise<string | undefined> =>
  optionalText((await readOne(keys.base(baseId)))?.trashId);

/**
 * The first tables a base still refers to (up to 100), and whether more follow: the purge
 * deletes each reference once its table is gone, so it reads the first page again.
 */
export const firstTablesOfBase = async (baseId: string): Promise<{ tableIds: string[]; more: boolean }> => {
  const refs = await queryPage({ ...keys.tablesOf(baseId), limit: 100, projection: ['pk', 'sk', 'tableId'] });
  return { tableIds: refs.items.map(tableRefOf).map((r) => r.tableId), more: refs.lastKey !== undefined };
};

/** Deletes a base's reference to a table (the table purged). */
export const deleteTableRef = (baseId: string, tableId: string): Promise<void> =>
  deleteItems([keys.baseTable(baseId, tableId)]);

/**
 * Deletes a base's partition but the base item (project nodes, dashboards and their plugin
 * installs, listing copies of trashed tables), then its trash item and the base item last. True
 * when done.
 */
export const purgeBaseRest = async (
  baseId: string,
  trashId: string | undefined,
  budget: Budget = unlimited,
): Promise<boolean> => {
  const baseKey = keys.base(baseId);
  if (!(await purgeAllBut(baseKey, budget))) return false;
  if (trashId !== undefined) await deleteItems([keys.trashItem(trashId)]);
  await deleteItems([baseKey]);
  return true;
};

/** A space's trash id (read before its bases go), if any. */
export const trashIdOfSpace = async (spaceId: string): Promise<string | undefined> =>
  optionalText((await readOne(keys.space(spaceId)))?.trashId);

/** The bases a space still refers to (one query). */
export const baseIdsOfSpace = async (spaceId: string): Promise<string[]> =>
  (await queryAll({ ...keys.basesOf(spaceId), projection: ['pk', 'sk', 'baseId'] })).map(
    (item) => baseRefOf(item).baseId,
  );

/** Deletes a space's reference to a base (the base purged). */
export const deleteBaseRef = (spaceId: string, baseId: string): Promise<void> =>
  deleteItems([keys.spaceBase(spaceId, baseId)]);

/**
 * Deletes the members' mirrors of a space, then the space's partition but the space item
 * (members, base references, listing copies of trashed bases), its trash item, and the space item
 * last. True when done.
 */
export const purgeSpaceRest = async (
  spaceId: string,
  trashId: string | undefined,
  budget: Budget = unlimited,
): Promise<boolean> => {
  const members = await queryAll({ ...keys.membersOf(spaceId), projection: ['pk', 'sk', 'userId', 'role'] });
  await deleteItems(
    members.flatMap((item) => {
      const member = memberOf(item);
      return member ? [keys.userSpace(member.userId, spaceId)] : [];
    }),
  );
  const spaceKey = keys.space(spaceId);
  if (!(await purgeAllBut(spaceKey, budget))) return false;
  if (trashId !== undefined) await deleteItems([keys.trashItem(trashId)]);
  await deleteItems([spaceKey]);
  return true;
};

/** Deletes a deleted view's manual order and its indexes (nothing reads them any more). */
export const purgeViewPartitions = async (viewId: string): Promise<void> => {
  for (const pk of [keys.viewOrderOf(viewId).pk, ...keys.viewIndexPartitionsOf(viewId)])
    await purgePartition(pk);
};
