import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listTrashItems } from '#shared/trash/trash.ts';

const query = z.object({
  resourceType: querySingle(z.literal('base')),
  resourceId: querySingle(idOf('base')),
  cursor: z.optional(querySingle(idOf('trash'))),
});

export const handler = defineHandler('list-trash-items', { query }, async ({ query }) =>
  listTrashItems(query.resourceId, query.cursor),
);
