import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { jsonObject } from '#shared/schema/schema-requests.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object({ filter: z.nullable(jsonObject) });

export const handler = defineHandler(
  'update-view-filter',
  { params, body },
  async ({ params, body, schema }) => {
    await updateView(schema, params.viewId, { filter: body.filter });
  },
);
