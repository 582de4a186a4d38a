import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { renderRecords } from '#shared/records/read.ts';
import { updateRecordsBody } from '#shared/records/record-requests.ts';
import { updateRecords } from '#shared/records/update.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

export const handler = defineHandler(
  'update-records',
  {
    params: tableParams,
    body: updateRecordsBody,
    idempotent: true,
  },
  async ({ body, principal, resource, schema }) => {
    const keyType = body.fieldKeyType ?? 'name';
    const items = await updateRecords(principal, resource, schema, {
      records: body.records,
      fieldKeyType: keyType,
      typecast: body.typecast ?? false,
      order: body.order,
    });
    // Rendering needs no choice list: the schema read before the write serves.
    return renderRecords(schema, items, {
      keyType,
      cellFormat: 'json',
      ...recordRights(principal, resource),
    });
  },
);
