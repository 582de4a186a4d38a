import * as z from 'zod/mini';
import { idOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ description: text(2000) });

export const handler = defineHandler(
  'update-view-description',
  { params, body },
  async ({ params, body, schema }) => {
    await updateView(schema, params.viewId, { description: body.description });
  },
);
