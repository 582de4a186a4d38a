import { tablePermissionByField } from '#shared/auth/permission.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase } from '#shared/tables/tables.ts';

export const handler = defineHandler(
  'get-table-permission',
  { params: baseTableParams },
  async ({ principal, params, resource, schema }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    return tablePermissionByField(
      principal,
      resource,
      resource.role,
      schema.fields.map((f) => f.id),
    );
  },
);
