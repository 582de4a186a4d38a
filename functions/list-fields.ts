import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';
import { findView } from '#shared/schema/views.ts';
import { fieldsInViewOrder } from '#shared/tables/fields.ts';

const query = z.object({ viewId: z.optional(querySingle(idOf('view'))) });

export const handler = defineHandler(
  'list-fields',
  { params: tableParams, query },
  async ({ query, schema }) => {
    return fieldsInViewOrder(schema, query.viewId ? findView(schema, query.viewId) : undefined);
  },
);
