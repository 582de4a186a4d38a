import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/http/table-schemas.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { toViewOut } from '#shared/tables/views.ts';

export const handler = defineHandler(
  'list-views',
  { params: tableParams, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    const schema = await loadSchema(params.tableId, resource.table);
    return schema.views.map((v) => toViewOut(v, schema.fields));
  },
);
