import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';
import { toViewOut } from '#shared/schema/views.ts';

export const handler = defineHandler('list-views', { params: tableParams }, async ({ schema }) => {
  return schema.views.map((v) => toViewOut(v, schema.fields));
});
