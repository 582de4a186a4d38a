import { defineHandler } from '#shared/http/handler.ts';
import { groupPointsOf } from '#shared/listing/aggregate.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// The list's query (listing.md 1), read and checked by readListParams.

/** The group points the list would answer (null without groupBy). */
export const handler = defineHandler(
  'get-group-points',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const params = readListParams(query ?? {});
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return await groupPointsOf(ctx, params);
  },
);
