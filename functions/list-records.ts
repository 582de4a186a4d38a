import * as z from 'zod/mini';
import { ValidationError } from '#shared/core/errors.ts';
import { keys } from '#shared/db/keys.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { isId } from '#shared/ids.ts';
import { listRecords } from '#shared/listing/list.ts';
import { mergeParams, readListParams } from '#shared/listing/params.ts';
import { savedParamsOf } from '#shared/listing/saved-queries.ts';
import { recordRights } from '#shared/records/context.ts';
import { tableParams } from '#shared/schema/requests.ts';

// Read as the query string gives it; `readListParams` checks it after merging a saved query.
const query = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const queryIdOf = (q: Record<string, string | string[]> | undefined): string | undefined => {
  const v = q?.queryId;
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !isId('query', v))
    throw new ValidationError('queryId: must be a saved query id (qry_…)');
  return v;
};

// A saved query is read in the same batch as the token and the table.
export const handler = defineHandler(
  'list-records',
  {
    params: tableParams,
    query,
    preload: (_, input) => {
      const v = input.query?.queryId;
      return typeof v === 'string' && isId('query', v) ? [keys.savedQuery(v)] : [];
    },
  },
  async ({ query, loaded, principal, resource, schema }) => {
    const queryId = queryIdOf(query);
    const saved = queryId ? savedParamsOf(loaded.get(keys.savedQuery(queryId)), queryId) : undefined;
    const listParams = readListParams(mergeParams(saved, query));
    const answer = await listRecords(
      { schema, userId: principal.userId, ...recordRights(principal, resource) },
      listParams,
    );
    return listParams.filterByTql !== undefined
      ? new Reply(answer, { headers: { deprecation: 'true' } })
      : answer;
  },
);
