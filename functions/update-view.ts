import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { viewWrite } from '#shared/http/table-schemas.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { updateView } from '#shared/tables/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });
const body = z.object(viewWrite);

export const handler = defineHandler(
  'update-view',
  { params, body, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource, body }) =>
    updateView(await loadSchema(params.tableId, resource.table), params.viewId, body),
);
