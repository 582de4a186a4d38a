import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ isLocked: z.optional(z.boolean()) });

// Teable's client may send no isLocked: the view is then unlocked.
export const handler = defineHandler(
  'update-view-locked',
  { params, body },
  async ({ params, body, schema }) => {
    await updateView(schema, params.viewId, { isLocked: body.isLocked ?? false });
  },
);
