import * as z from 'zod/mini';
import { NotFoundError } from '#shared/core/errors.ts';
import { queryList, querySingle } from '#shared/core/validation.ts';
import { recordIn, recordLookup } from '#shared/entities/records.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { etagOf } from '#shared/records/model.ts';
import { projectionOf, renderRecords } from '#shared/records/read.ts';
import { recordParams } from '#shared/records/record-requests.ts';
import { cellFormatSchema, optionalQueryKeyType } from '#shared/schema/schema-requests.ts';

const query = z.object({
  projection: z.optional(queryList(z.string())),
  cellFormat: z.optional(querySingle(cellFormatSchema)),
  fieldKeyType: optionalQueryKeyType,
});

// The record is read in the same batch as the token and the table: one round trip when warm.
export const handler = defineHandler(
  'get-record',
  {
    params: recordParams,
    query,
    preload: (_, { params }) => (params ? [recordLookup(params.tableId, params.recordId)] : []),
  },
  async ({ params, query, loaded, principal, resource, schema }) => {
    const item = recordIn(loaded, params.tableId, params.recordId);
    if (!item) throw new NotFoundError(`Record ${params.recordId} not found`);
    const keyType = query.fieldKeyType ?? 'name';
    const [record] = await renderRecords(schema, [item], {
      keyType,
      cellFormat: query.cellFormat ?? 'json',
      projection: projectionOf(schema, query.projection, keyType),
      ...recordRights(principal, resource),
    });
    return new Reply(record, { headers: { etag: etagOf(item) } });
  },
);
