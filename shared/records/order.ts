import { ConflictError, ValidationError } from '#shared/core/errors.ts';
import { retryOnConflict } from '#shared/core/retry.ts';
import { commitSteps } from '#shared/db/commit.ts';
import { putRecordOp, updateCellsOp } from '#shared/entities/records.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { assertBatchSize } from './limits.ts';
import { type Placement, placementSteps, withJoined } from './placement.ts';
import { loadRecords } from './update.ts';

/** How often a move that lost a race with another placement of the same records is planned again. */
const ATTEMPTS = 5;

/**
 * `PUT …/record-order`: places existing records before or after an anchor, values untouched. A
 * move that loses a race (another placement re-keyed one of its records or neighbours first) is
 * planned again from what is stored now, up to 5 times, then answered 409.
 */
export const placeRecords = async (schema: TableSchema, recordIds: readonly string[], order: Placement) => {
  assertBatchSize(recordIds.length);
  if (new Set(recordIds).size !== recordIds.length)
    throw new ValidationError('recordIds: an id appears twice');
  return retryOnConflict(() => placeOnce(schema, recordIds, order), ATTEMPTS);
};

const placeOnce = async (schema: TableSchema, recordIds: readonly string[], order: Placement) => {
  const tableId = schema.table.id;
  const items = await loadRecords(tableId, recordIds);
  const placed = await placementSteps(schema, items, order, {
    created: false,
    nextAutoNumber: schema.table.autoNumber + 1,
  });
  if (placed.orderOf.size === 0) return;
  const steps = [
    ...items
      .filter((item) => placed.orderOf.has(item.id))
      .flatMap((item) => {
        const change = {
          cells: new Map(),
          by: item.mb,
          at: item.lastModifiedTime,
          ord: placed.orderOf.get(item.id),
        };
        return withJoined(placed, item.id, {
          op: updateCellsOp(tableId, item, change, false),
          undo: putRecordOp(item),
        });
      }),
    ...placed.steps,
  ];
  await commitSteps(tableId, steps, () => new ConflictError('The records moved at the same time; retry'));
};
