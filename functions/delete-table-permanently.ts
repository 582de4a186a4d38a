import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase, deleteTablePermanently } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'delete-table-permanently',
  { params: baseTableParams },
  async ({ params, resource, principal }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await deleteTablePermanently(params.baseId, params.tableId, principal.userId);
  },
);
