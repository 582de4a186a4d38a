import { NotFoundError } from '#shared/core/errors.ts';
import { recordIn, recordLookup } from '#shared/entities/records.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { recordParams } from '#shared/records/record-requests.ts';

// Comments are not built: a record that is there has none (its expanded view asks this). The
// record is read in the same batch as the token and the table.
export const handler = defineHandler(
  'get-record-comment-count',
  {
    params: recordParams,
    preload: (_, { params }) => (params ? [recordLookup(params.tableId, params.recordId)] : []),
  },
  async ({ params, loaded }) => {
    if (!recordIn(loaded, params.tableId, params.recordId))
      throw new NotFoundError(`Record ${params.recordId} not found`);
    return { count: 0 };
  },
);
