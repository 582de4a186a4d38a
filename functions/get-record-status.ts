import * as z from 'zod/mini';
import { ValidationError } from '#shared/core/errors.ts';
import { idOf } from '#shared/core/validation.ts';
import { keys } from '#shared/db/keys.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { isId } from '#shared/ids.ts';
import { mergeParams, readListParams } from '#shared/listing/params.ts';
import { recordStatus } from '#shared/listing/record-status.ts';
import { savedParamsOf } from '#shared/listing/saved-queries.ts';

const params = z.object({ tableId: idOf('table'), recordId: idOf('record') });
// Read as the query string gives it; `readListParams` checks it after merging a saved query.
const query = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const queryIdOf = (q: Record<string, string | string[]> | undefined): string | undefined => {
  const v = q?.queryId;
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !isId('query', v))
    throw new ValidationError('queryId: must be a saved query id (qry_…)');
  return v;
};

// The listing's parameters (a saved query read in the same batch as the token and the table).
export const handler = defineHandler(
  'get-record-status',
  {
    params,
    query,
    preload: (_, input) => {
      const v = input.query?.queryId;
      return typeof v === 'string' && isId('query', v) ? [keys.savedQuery(v)] : [];
    },
  },
  async ({ params, query, loaded, principal, schema }) => {
    const queryId = queryIdOf(query);
    const saved = queryId ? savedParamsOf(loaded.get(keys.savedQuery(queryId)), queryId) : undefined;
    return recordStatus(
      { schema, userId: principal.userId },
      readListParams(mergeParams(saved, query)),
      params.recordId,
    );
  },
);
