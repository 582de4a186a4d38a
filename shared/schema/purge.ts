import { deleteItems, getItems, type Item, queryAll, queryPage } from '#shared/db/client.ts';
import { keyOfItem, keys } from '#shared/db/keys.ts';
import { isViewItem, viewIdOf } from '#shared/entities/schema-items.ts';
import { nodeIdOf } from '#shared/ids.ts';

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
 * Deletes a whole partition (or the items `keep` does not hold back), page by page: the next
 * page is read while the current one is deleted. True when the partition is empty, false when
 * the budget ran out first. Repeatable and safe to run twice at once (deletes only).
 */
export const purgePartition = async (
  pk: string,
  budget: Budget = unlimited,
  keep: (item: Item) => boolean = () => false,
): Promise<boolean> => {
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

/**
 * Deletes every item of a table for good: its records, their default-order index, each view's
 * manual order and indexes, unique-value claims, write journals, remembered idempotent answers, kept listing
 * orders, then the schema partition (fields, views, plugin context menu, counters and data
 * versions), its trash item, project node and the
 * base's reference (the request removed them already; a purge after a crash repeats it), and
 * the table item last, so an interrupted purge is finished by running it again. True when
 * done, false when the budget ran out first. The caller made the table invisible and removed
 * the base's reference before.
 */
export const purgeTable = async (tableId: string, budget: Budget = unlimited): Promise<boolean> => {
  const tableKey = keys.table(tableId);
  const table = (await getItems([tableKey])).get(tableKey);
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
  if (!(await purgePartition(tableKey.pk, budget, (i) => i.sk === tableKey.sk))) return false;
  const trashId = typeof table?.trashId === 'string' ? table.trashId : undefined;
  const baseId = typeof table?.baseId === 'string' ? table.baseId : undefined;
  const extras = [
    ...(trashId ? [keys.trashItem(trashId)] : []),
    ...(trashId && baseId ? [keys.baseTrash(baseId, trashId)] : []),
    ...(baseId ? [keys.node(baseId, nodeIdOf(tableId)), keys.baseTable(baseId, tableId)] : []),
  ];
  await deleteItems(extras);
  await deleteItems([tableKey]);
  return true;
};
