import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase, trashTable } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'delete-table',
  { params: baseTableParams },
  async ({ params, resource, principal }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await trashTable(params.baseId, params.tableId, principal.userId);
  },
);
