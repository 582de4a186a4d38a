import { NotFoundError, PreconditionFailedError } from '#shared/core/errors.ts';
import { recordIn, recordLookup } from '#shared/entities/records.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { etagOf } from '#shared/records/model.ts';
import { renderRecords } from '#shared/records/read.ts';
import { recordParams } from '#shared/records/record-requests.ts';

export const handler = defineHandler(
  'delete-record',
  {
    params: recordParams,
    preload: (_, { params }) => (params ? [recordLookup(params.tableId, params.recordId)] : []),
  },
  async ({ params, principal, headers, loaded, resource, schema }) => {
    const current = recordIn(loaded, params.tableId, params.recordId);
    if (!current) throw new NotFoundError(`Record ${params.recordId} not found`);
    const ifMatch = headers['if-match'];
    if (ifMatch !== undefined && ifMatch !== etagOf(current))
      throw new PreconditionFailedError(`Record ${params.recordId} changed since the ETag ${ifMatch}`);
    const [item] = await deleteRecords(
      schema,
      [params.recordId],
      ifMatch !== undefined ? current.version : undefined,
    );
    const [record] = await renderRecords(schema, item ? [item] : [], {
      keyType: 'id',
      cellFormat: 'json',
      ...recordRights(principal, resource),
    });
    return record;
  },
);
