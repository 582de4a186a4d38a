import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listQuery as query } from '#shared/listing/params.ts';
import { recordStatus } from '#shared/listing/record-status.ts';
import { listParamsOf, savedQueryKeys } from '#shared/listing/saved-queries.ts';

const params = z.object({ tableId: idOf('table'), recordId: idOf('record') });
// Read as the query string gives it; `listParamsOf` checks it after merging a saved query.

// The listing's parameters (a saved query read in the same batch as the token and the table).
export const handler = defineHandler(
  'get-record-status',
  { params, query, preload: (_, input) => savedQueryKeys(input.query) },
  async ({ params, query, loaded, principal, schema }) =>
    recordStatus({ schema, userId: principal.userId }, listParamsOf(query, loaded), params.recordId),
);
