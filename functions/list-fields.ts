import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { tableParams } from '#shared/http/table-schemas.ts';
import { querySingle } from '#shared/http/validation.ts';
import { fieldsInViewOrder } from '#shared/tables/fields.ts';
import { loadSchema } from '#shared/tables/schema.ts';
import { findView } from '#shared/tables/views.ts';

const query = z.object({ viewId: z.optional(querySingle(idOf('view'))) });

export const handler = defineHandler(
  'list-fields',
  { params: tableParams, query, resource: { kind: 'table', param: 'tableId' } },
  async ({ params, query, resource }) => {
    const schema = await loadSchema(params.tableId, resource.table);
    return fieldsInViewOrder(schema, query.viewId ? findView(schema, query.viewId) : undefined);
  },
);
