import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/requests.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { toViewOut } from '#shared/schema/views.ts';

export const handler = defineHandler(
  'list-views',
  { params: tableParams, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    const schema = await loadSchema(params.tableId, resource.table);
    return schema.views.map((v) => toViewOut(v, schema.fields));
  },
);
