import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });

export const handler = defineHandler('delete-view', { params }, async ({ params, schema }) => {
  await deleteView(schema, params.viewId);
});
