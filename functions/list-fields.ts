import * as z from 'zod/mini';
import { idOf, queryBool, queryList, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { tableParams } from '#shared/schema/schema-requests.ts';
import { findView } from '#shared/schema/views.ts';
import { fieldsInViewOrder } from '#shared/tables/fields.ts';

const query = z.object({
  viewId: z.optional(querySingle(idOf('view'))),
  filterHidden: z.optional(queryBool),
  excludeFieldIds: z.optional(queryList(idOf('field'))),
});

export const handler = defineHandler(
  'list-fields',
  { params: tableParams, query },
  async ({ query, schema }) => {
    const { viewId, filterHidden, excludeFieldIds } = query;
    return fieldsInViewOrder(schema, viewId ? findView(schema, viewId) : undefined, {
      filterHidden,
      excludeFieldIds,
    });
  },
);
