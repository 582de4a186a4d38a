import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { findView, toViewOut } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });

export const handler = defineHandler('get-view', { params }, async ({ params, schema }) => {
  return toViewOut(findView(schema, params.viewId), schema.fields);
});
