import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { viewWrite } from '#shared/schema/requests.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { updateView } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object(viewWrite);

export const handler = defineHandler(
  'update-view',
  { params, body, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body }) =>
    updateView(await loadSchema(params.tableId, resource.table), params.viewId, body),
);
