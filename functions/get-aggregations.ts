import { defineHandler } from '#shared/http/handler.ts';
import { aggregations, readFieldFuncs } from '#shared/listing/aggregate.ts';
import { listQuery as query, readListParams } from '#shared/listing/params.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// The list's query (listing.md 1) plus `field[<func>][]=<field>`.

/** Column statistics of the records the list would answer, whole and per group. */
export const handler = defineHandler(
  'get-aggregations',
  { params: tableParams, query },
  async ({ query, principal, resource, schema }) => {
    const params = readListParams(query ?? {});
    const ctx = { schema, userId: principal.userId, ...recordRights(principal, resource) };
    return { aggregations: await aggregations(ctx, params, readFieldFuncs(query ?? {}, schema)) };
  },
);
