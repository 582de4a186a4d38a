import { defineHandler, linkAccessOf } from '#shared/http/handler.ts';
import { jsonObject, tableParams } from '#shared/schema/schema-requests.ts';
import { createField } from '#shared/tables/fields.ts';

export const handler = defineHandler(
  'create-field',
  { params: tableParams, body: jsonObject },
  async ({ body, principal, schema }) => createField(schema, body, linkAccessOf(principal)),
);
