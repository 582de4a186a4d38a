import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { viewWrite } from '#shared/schema/schema-requests.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object(viewWrite);

export const handler = defineHandler('update-view', { params, body }, async ({ params, body, schema }) =>
  updateView(schema, params.viewId, body),
);
