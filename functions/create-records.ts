import { ValidationError } from '#shared/core/errors.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { recordRights } from '#shared/records/context.ts';
import { createRecords } from '#shared/records/create.ts';
import { renderRecords } from '#shared/records/read.ts';
import { createRecordsBody } from '#shared/records/record-requests.ts';
import { upsertRecords } from '#shared/records/upsert.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';

export const handler = defineHandler(
  'create-records',
  {
    params: tableParams,
    body: createRecordsBody,
    idempotent: true,
  },
  async ({ body, principal, resource, schema }) => {
    const keyType = body.fieldKeyType ?? 'name';
    const render = (items: Parameters<typeof renderRecords>[1]) =>
      // Rendering needs no choice list: the schema read before the write serves.
      renderRecords(schema, items, { keyType, cellFormat: 'json', ...recordRights(principal, resource) });
    if (body.performUpsert) {
      if (body.order)
        throw new ValidationError('order: an upsert places new records at the end; leave order out');
      const out = await upsertRecords(principal, resource, schema, {
        records: body.records,
        fieldKeyType: keyType,
        typecast: body.typecast ?? false,
        fieldsToMergeOn: body.performUpsert.fieldsToMergeOn,
      });
      return new Reply(
        {
          records: await render(out.records),
          createdRecords: out.createdRecords,
          updatedRecords: out.updatedRecords,
        },
        { status: 200 },
      );
    }
    const items = await createRecords(principal, resource, schema, {
      records: body.records,
      fieldKeyType: keyType,
      typecast: body.typecast ?? false,
      order: body.order,
    });
    return { records: await render(items) };
  },
);
