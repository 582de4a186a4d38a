import * as z from 'zod/mini';
import { idOf, listOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { columnMetaPatch } from '#shared/schema/schema-requests.ts';
import { updateViewColumnMeta } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = listOf(z.object({ fieldId: idOf('field'), columnMeta: columnMetaPatch }), 1, 1000);

export const handler = defineHandler(
  'update-view-column-meta',
  { params, body },
  async ({ params, body, schema }) => {
    await updateViewColumnMeta(schema, params.viewId, body);
  },
);
