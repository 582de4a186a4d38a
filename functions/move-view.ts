import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { moveView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ anchorId: idOf('view'), position: z.enum(['before', 'after']) });

export const handler = defineHandler('move-view', { params, body }, async ({ params, body, schema }) => {
  await moveView(schema, params.viewId, body);
});
