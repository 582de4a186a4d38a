/**
 * `PUT /table/{tableId}/view/{viewId}/manual-sort` (teable-routes.md 2, View): sorts every record
 * of the table once and stores the result as the view's manual order (ordering.md), the view's
 * own sort untouched. Ties keep the order the view has now (the listing engine's last keys: the
 * manual order, autoNumber, id). Every record gets a fresh key, evenly spread below the key of
 * the table's next autoNumber, so records created later still go to the end.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { commitSteps, type Step } from '#shared/db/commit.ts';
import { recordOrderOf } from '#shared/entities/records.ts';
import { putViewOp, replaceViewOp } from '#shared/entities/schema-items.ts';
import { keysBetween, upperBoundFor } from '#shared/ordering/order-keys.ts';
import { runQuery } from '#shared/query/engine.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { rekeySteps } from '#shared/records/placement.ts';
import { rangesFor, readAllRecords, rowAttributes, toRow } from '#shared/records/rows.ts';
import { bumpSchemaOp, type SortItem, type TableSchema } from '#shared/schema/schema.ts';
import { findView } from '#shared/schema/views.ts';
import { resolveSortItems } from './resolve.ts';

/**
 * Applies `sortObjs` once as the view's manual order: all records re-keyed and the view's
 * `lastModifiedTime` bumped in one write (a transaction, or a journaled write for a large table:
 * all or nothing). A record moved, created in place or deleted meanwhile makes it a 409.
 */
export const manualSortView = async (
  ctx: { schema: TableSchema; userId: string },
  viewId: string,
  sortObjs: readonly SortItem[],
) => {
  const { schema } = ctx;
  const tableId = schema.table.id;
  const view = findView(schema, viewId);
  const sort = resolveSortItems(sortObjs, schema.fields, 'sortObjs');
  const needed = new Set(sort.map((s) => s.fieldId));
  const fields = schema.fields.filter((f) => needed.has(f.id));
  const items = await readAllRecords(
    tableId,
    rowAttributes(schema.fields, needed),
    rangesFor(schema.table.autoNumber),
  );
  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link').map((f) => f.id));
  const titles = linkFieldIds.size ? await linkTitlesFor(schema, items, linkFieldIds) : undefined;
  const { ids } = runQuery(
    items.map((item) => toRow(item, fields, viewId)),
    { filter: null, groupBy: [], sort, collapsedGroupIds: [], search: null, skip: 0, take: items.length },
    {
      fields: new Map(schema.fields.map((f) => [f.id, f])),
      userId: ctx.userId,
      now: new Date(),
      linkTitle: (fieldId, id) => titles?.linkTitle(fieldId, id),
    },
  );
  const orderKeys = keysBetween(null, upperBoundFor(schema.table.autoNumber + 1), ids.length);
  const byId = new Map(items.map((item) => [item.id, recordOrderOf(item)]));
  const steps: Step[] = [
    ...ids.flatMap((id, i) => {
      const item = byId.get(id);
      return item ? rekeySteps(tableId, item, viewId, orderKeys[i] as string) : [];
    }),
    {
      op: replaceViewOp(tableId, { ...view, lastModifiedTime: new Date().toISOString() }),
      undo: putViewOp(tableId, view),
    },
    { op: bumpSchemaOp(tableId, schema.version), undo: null },
  ];
  await commitSteps(
    tableId,
    steps,
    () => new ConflictError('The records or the view changed at the same time; retry'),
  );
};
