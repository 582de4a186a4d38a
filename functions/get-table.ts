import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/requests.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { assertInBase, toTable } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-table',
  { params: baseTableParams },
  async ({ params, resource }) => {
    const table = assertInBase(resource.table, params.baseId, params.tableId);
    return toTable(table, (await loadSchema(params.tableId, resource.table)).views);
  },
);
