import { defineHandler } from '#shared/http/handler.ts';
import { searchIndex } from '#shared/listing/aggregate.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// The list's query (listing.md 1), read and checked by readListParams.

/** Search hits in list order, with their records' positions. */
export const handler = defineHandler(
  'get-search-index',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const params = readListParams(query ?? {});
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return await searchIndex(ctx, params);
  },
);
