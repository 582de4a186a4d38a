import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { moveTableNode } from '#shared/nodes/nodes.ts';
import { baseTableParams } from '#shared/schema/schema-requests.ts';
import { assertInBase } from '#shared/tables/tables.ts';

const body = z.object({ anchorId: idOf('table'), position: z.enum(['before', 'after']) });

export const handler = defineHandler(
  'update-table-order',
  { params: baseTableParams, body },
  async ({ params, resource, body }) => {
    assertInBase(resource.table, params.baseId, params.tableId);
    await moveTableNode(params.baseId, params.tableId, body.anchorId, body.position);
  },
);
