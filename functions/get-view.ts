import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { findView, toViewOut } from '#shared/schema/views.ts';

const params = z.object({ tableId: idOf('table'), viewId: idOf('view') });

export const handler = defineHandler(
  'get-view',
  { params, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, resource }) => {
    const schema = await loadSchema(params.tableId, resource.table);
    return toViewOut(findView(schema, params.viewId), schema.fields);
  },
);
