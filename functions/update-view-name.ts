import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'update-view-name',
  { params, body },
  async ({ params, body, schema }) => {
    await updateView(schema, params.viewId, { name: body.name });
  },
);
