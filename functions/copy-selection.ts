import { defineHandler } from '#shared/http/handler.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { copySelection, readRanges, readRangeType } from '#shared/listing/selection.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

/** A grid selection's cells as tab-separated lines of their text, and the covered fields. */
export const handler = defineHandler(
  'copy-selection',
  { params: tableParams, query },
  async ({ query = {}, principal, resource, schema }) => {
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return copySelection(ctx, readListParams(query), readRanges(query.ranges), readRangeType(query.type));
  },
);
