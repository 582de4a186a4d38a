import * as z from 'zod/mini';
import { text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase, updateTable } from '#shared/tables/tables.ts';

const body = z.object({ icon: z.nullable(text(100)) });

export const handler = defineHandler(
  'update-table-icon',
  { params: baseTableParams, body },
  async ({ params, resource, body }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await updateTable(params.baseId, params.tableId, body);
  },
);
