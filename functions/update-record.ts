import { recordIn, recordLookup } from '#shared/entities/records.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { etagOf } from '#shared/records/model.ts';
import { renderRecords } from '#shared/records/read.ts';
import { recordParams, updateRecordBody } from '#shared/records/record-requests.ts';
import { updateRecords } from '#shared/records/update.ts';

export const handler = defineHandler(
  'update-record',
  {
    params: recordParams,
    body: updateRecordBody,
    // The record is read in the same batch as the token (one round trip less).
    preload: (_, { params }) => (params ? [recordLookup(params.tableId, params.recordId)] : []),
  },
  async ({ params, body, principal, headers, loaded, resource, schema }) => {
    const keyType = body.fieldKeyType ?? 'name';
    const [item] = await updateRecords(principal, resource, schema, {
      records: [{ id: params.recordId, fields: body.record.fields }],
      fieldKeyType: keyType,
      typecast: body.typecast ?? false,
      order: body.order,
      ifMatch: headers['if-match'],
      current: [recordIn(loaded, params.tableId, params.recordId)],
    });
    // Rendering needs no choice list: the schema read before the write serves.
    const [record] = await renderRecords(schema, item ? [item] : [], {
      keyType,
      cellFormat: 'json',
      ...recordRights(principal, resource),
    });
    return new Reply(record, { headers: item ? { etag: etagOf(item) } : {} });
  },
);
