import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase, toTable } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-table',
  { params: baseTableParams },
  async ({ params, resource, schema }) =>
    toTable(assertInBase(resource.table, params.baseId, params.tableId), schema.views),
);
