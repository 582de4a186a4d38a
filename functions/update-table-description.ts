import * as z from 'zod/mini';
import { text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase, updateTable } from '#shared/tables/tables.ts';

const body = z.object({ description: z.nullable(text(2000)) });

export const handler = defineHandler(
  'update-table-description',
  { params: baseTableParams, body },
  async ({ params, resource, body }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await updateTable(params.baseId, params.tableId, body);
  },
);
