import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { baseTableParams, tableMeta } from '#shared/schema/schema-requests.ts';
import { assertInBase, toTable, updateTable } from '#shared/tables/tables.ts';

const body = z.object(tableMeta);

export const handler = defineHandler(
  'update-table',
  { params: baseTableParams, body },
  async ({ params, resource, body }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await updateTable(params.baseId, params.tableId, body);
    const schema = await loadSchema(params.tableId);
    return toTable(schema.table, schema.views);
  },
);
