import { deleteItems, type Item, queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';

/**
 * Deletes every item of a table for good: its records, their default-order index, each view's
 * manual order and the schema partition (the table item last, so an interrupted purge can be
 * repeated). The caller makes the table invisible first and removes the base's reference.
 */
export const purgeTable = async (tableId: string): Promise<void> => {
  const schema = await queryAll({
    ...keys.schemaOf(tableId),
    projection: ['pk', 'sk', 'id', 'type', 'view'],
  });
  // a view item holds its id inside `view` (schema.ts viewItem), not at the top level
  const viewIds = schema
    .filter((i) => i.type === 'view')
    .map((i) => String((i.view as { id?: string } | undefined)?.id ?? i.id));
  const partitions = [
    keys.recordsOf(tableId).pk,
    keys.recordNumbersOf(tableId).pk,
    ...viewIds.map((v) => keys.viewOrderOf(v).pk),
    keys.journalsOf(tableId).pk,
    keys.uniqueValuesOf(tableId).pk,
  ];
  for (const pk of partitions) await purgePartition(pk);
  const tableKey = keys.table(tableId);
  await deleteItems(schema.map(keyOf).filter((k) => k.sk !== tableKey.sk));
  await deleteItems([tableKey]);
};

const keyOf = (i: Item) => ({ pk: String(i.pk), sk: String(i.sk) });

/** Deletes a whole partition, page by page (keys only are read). */
export const purgePartition = async (pk: string): Promise<void> => {
  const items = await queryAll({ pk, projection: ['pk', 'sk'] });
  await deleteItems(items.map(keyOf));
};
