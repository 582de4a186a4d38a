import * as z from 'zod/mini';

import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams, dbTableNameSchema } from '#shared/schema/schema-requests.ts';
import { assertInBase, updateTable } from '#shared/tables/tables.ts';

const body = z.object({ dbTableName: dbTableNameSchema });

export const handler = defineHandler(
  'update-table-db-table-name',
  { params: baseTableParams, body },
  async ({ params, resource, body }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await updateTable(params.baseId, params.tableId, body);
  },
);
