import { defineHandler } from '#shared/http/handler.ts';
import { jsonObject, tableParams } from '#shared/http/table-schemas.ts';
import { createField } from '#shared/tables/fields.ts';
import { loadSchema } from '#shared/tables/schema.ts';

export const handler = defineHandler(
  'create-field',
  { params: tableParams, body: jsonObject, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body }) => createField(await loadSchema(params.tableId, resource.table), body),
);
