import { defineHandler } from '#shared/http/handler.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { readRanges, readRangeType, selectedRecordIds } from '#shared/listing/selection.ts';
import { recordRights } from '#shared/records/context.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

/** Deletes the records a grid selection covers, for good, in one write; answers their ids. */
export const handler = defineHandler(
  'delete-selection',
  { params: tableParams, query },
  async ({ query = {}, principal, resource, schema }) => {
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    const ids = await selectedRecordIds(
      ctx,
      readListParams(query),
      readRanges(query.ranges),
      readRangeType(query.type),
    );
    if (ids.length) await deleteRecords(schema, ids);
    return { ids };
  },
);
