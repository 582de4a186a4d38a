import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { deleteView } from '#shared/tables/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });

export const handler = defineHandler(
  'delete-view',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    await deleteView(await loadSchema(params.tableId, resource.table), params.viewId);
  },
);
