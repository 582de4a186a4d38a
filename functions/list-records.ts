import { defineHandler, Reply } from '#shared/http/handler.ts';
import { listRecords } from '#shared/listing/list.ts';
import { listQuery as query } from '#shared/listing/params.ts';
import { listParamsOf, savedQueryKeys } from '#shared/listing/saved-queries.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

// Read as the query string gives it; `listParamsOf` checks it after merging a saved query.
// A saved query is read in the same batch as the token and the table.
export const handler = defineHandler(
  'list-records',
  { params: tableParams, query, preload: (_, input) => savedQueryKeys(input.query) },
  async ({ query, loaded, principal, resource, schema }) => {
    const listParams = listParamsOf(query, loaded);
    const answer = await listRecords(
      { schema, userId: principal.userId, ...recordRights(principal, resource) },
      listParams,
    );
    return listParams.filterByTql !== undefined
      ? new Reply(answer, { headers: { deprecation: 'true' } })
      : answer;
  },
);
