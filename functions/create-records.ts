import { defineHandler } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { createRecords } from '#shared/records/create.ts';
import { renderRecords } from '#shared/records/read.ts';
import { createRecordsBody } from '#shared/records/requests.ts';
import { tableParams } from '#shared/schema/requests.ts';

export const handler = defineHandler(
  'create-records',
  {
    params: tableParams,
    body: createRecordsBody,
    idempotent: true,
  },
  async ({ body, principal, resource, schema }) => {
    const keyType = body.fieldKeyType ?? 'name';
    const items = await createRecords(principal, resource, schema, {
      records: body.records,
      fieldKeyType: keyType,
      typecast: body.typecast ?? false,
      order: body.order,
    });
    // Rendering needs no choice list: the schema read before the write serves.
    return {
      records: await renderRecords(schema, items, {
        keyType,
        cellFormat: 'json',
        ...recordRights(principal, resource),
      }),
    };
  },
);
