import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/http/table-schemas.ts';
import { defaultView, loadSchema } from '#shared/tables/schema.ts';
import { assertInBase } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-default-view-id',
  { params: baseTableParams, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    const table = assertInBase(resource.table, params.baseId, params.tableId);
    return { id: defaultView(await loadSchema(params.tableId, table)).id };
  },
);
