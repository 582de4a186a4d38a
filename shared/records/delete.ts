import { ConflictError, PreconditionFailedError } from '#shared/core/errors.ts';
import { commitSteps, type Step } from '#shared/db/commit.ts';
import { deleteOrderEntryOp, putOrderEntryOp } from '#shared/entities/order-entries.ts';
import { recordCountOp } from '#shared/entities/record-counts.ts';
import {
  deleteRecordNumberOp,
  deleteRecordOp,
  putRecordNumberOp,
  putRecordOp,
  type RecordItem,
} from '#shared/entities/records.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { assertBatchSize } from './limits.ts';
import { followComputed, sharedWriteSteps } from './pipeline.ts';
import { loadRecords } from './update.ts';
import { groupCountSteps, hasViewIndexes, withEntrySteps } from './view-indexes/upkeep.ts';

/**
 * Deletes records for good (the contract: deleting records is permanent): the items, their
 * default-order entries, their places in views' manual orders, their unique claims, and their
 * ids in the other side of every link. Any missing id fails the whole call (404, nothing
 * deleted). Answers the records as they were.
 */
export const deleteRecords = async (
  schema: TableSchema,
  ids: readonly string[],
  /** With `If-Match` on a single delete: the version the caller saw (412 when it changed). */
  expectedVersion?: number,
): Promise<RecordItem[]> => {
  assertBatchSize(ids.length);
  const unique = [...new Set(ids)];
  const tableId = schema.table.id;
  const items = await loadRecords(tableId, unique);
  const linkFields = schema.fields.filter((f) => f.type === 'link');
  const { links, unique: claims } = await sharedWriteSteps(
    schema,
    schema.fields,
    items.map((item) => ({
      recordId: item.id,
      before: item,
      cells: new Map(linkFields.map((f) => [f.id, undefined])),
      deleted: true,
    })),
    [],
  );
  const computed = await followComputed(
    schema,
    items.map((item) => ({ item, original: item, deleted: true, changed: new Set<string>() })),
    links,
    new Date(),
  );
  const indexed = hasViewIndexes(schema);
  const steps: Step[] = [
    ...items.flatMap((item): Step[] => [
      // guarded by the version read when the record's index entries were worked out from it
      ...withEntrySteps(schema, { before: item }, [
        {
          op: deleteRecordOp(
            tableId,
            item.id,
            expectedVersion === undefined && !indexed ? undefined : (expectedVersion ?? item.version),
          ),
          undo: putRecordOp(item),
        },
      ]),
      {
        op: deleteRecordNumberOp(tableId, item.autoNumber),
        undo: putRecordNumberOp(tableId, item.autoNumber, item.id, item.ord),
      },
      ...Object.entries(item.ord ?? {}).map(
        ([viewId, key]): Step => ({
          op: deleteOrderEntryOp(viewId, key, item.id),
          undo: putOrderEntryOp(viewId, key, item.id),
        }),
      ),
    ]),
    ...groupCountSteps(
      schema,
      items.map((item) => ({ before: item })),
    ),
    ...claims,
    ...computed.steps,
  ];
  await commitSteps(
    tableId,
    steps,
    () =>
      expectedVersion === undefined
        ? new ConflictError('A record changed while it was being deleted; retry')
        : new PreconditionFailedError(`Record ${ids[0]} changed since the ETag`),
    false,
    [recordCountOp(tableId, -items.length)],
  );
  return items;
};
