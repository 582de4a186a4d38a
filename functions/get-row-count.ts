import { defineHandler } from '#shared/http/handler.ts';
import { rowCount } from '#shared/listing/aggregate.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// The list's query (listing.md 1), read and checked by readListParams.

/** Records the list would answer with the same query, all pages. */
export const handler = defineHandler(
  'get-row-count',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const params = readListParams(query ?? {});
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return { rowCount: await rowCount(ctx, params) };
  },
);
