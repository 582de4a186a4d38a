import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/requests.ts';
import { defaultView, loadSchema } from '#shared/schema/schema.ts';
import { assertInBase } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-default-view-id',
  { params: baseTableParams },
  async ({ params, resource }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    return { id: defaultView(await loadSchema(params.tableId, resource.table)).id };
  },
);
