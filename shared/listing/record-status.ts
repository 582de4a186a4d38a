/**
 * `GET /table/{tableId}/record/{recordId}/status` (teable-routes.md 2, Record): whether a record
 * exists, and whether the listing with the same parameters would show it. Only the record is
 * read (with the attributes the query needs) and run through the listing's own plan and engine:
 * the view's filter, the request's filter (or `filterByTql`), search with `hide`, and
 * `selectedRecordIds`. Order, groups, collapsed groups, paging and the link-cell pickers do not
 * hide a record here: they place it, or choose among records for a picker.
 */

import { queryFieldIds, runQuery } from '#shared/query/engine.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { readRecordParts, rowAttributes, toRow } from '#shared/records/rows.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import type { ListParams } from './params.ts';
import { planListing } from './resolve.ts';

export interface RecordStatus {
  isVisible: boolean;
  isDeleted: boolean;
}

/** A record's status under listing parameters; bad parameters are the listing's 400s and 404s. */
export const recordStatus = async (
  ctx: { schema: TableSchema; userId: string; now?: Date },
  params: ListParams,
  recordId: string,
): Promise<RecordStatus> => {
  const { schema } = ctx;
  const plan = planListing(schema, params);
  const needed = queryFieldIds(plan.query);
  const [item] = await readRecordParts(schema.table.id, [recordId], rowAttributes(schema.fields, needed));
  if (!item) return { isVisible: false, isDeleted: true };
  if (params.selectedRecordIds && !params.selectedRecordIds.includes(recordId))
    return { isVisible: false, isDeleted: false };
  const fields = schema.fields.filter((f) => needed.has(f.id));
  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link').map((f) => f.id));
  const titles = linkFieldIds.size ? await linkTitlesFor(schema, [item], linkFieldIds) : undefined;
  const result = runQuery(
    [toRow(item, fields, plan.view.id)],
    { ...plan.query, groupBy: [], sort: [], collapsedGroupIds: [], skip: 0, take: 1 },
    {
      fields: new Map(schema.fields.map((f) => [f.id, f])),
      userId: ctx.userId,
      now: ctx.now ?? new Date(),
      linkTitle: (fieldId, id) => titles?.linkTitle(fieldId, id),
    },
  );
  return { isVisible: result.ids.includes(recordId), isDeleted: false };
};
