import { defineHandler } from '#shared/http/handler.ts';
import { jsonObject, tableParams } from '#shared/schema/requests.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { createField } from '#shared/tables/fields.ts';

export const handler = defineHandler(
  'create-field',
  { params: tableParams, body: jsonObject, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body }) => createField(await loadSchema(params.tableId, resource.table), body),
);
