import { tablePermission } from '#shared/auth/permission.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-table-permission',
  { params: baseTableParams },
  async ({ principal, params, resource }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    return tablePermission(principal, resource, resource.role);
  },
);
