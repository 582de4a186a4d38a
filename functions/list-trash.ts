import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listTrash } from '#shared/trash/trash.ts';

const query = z.object({
  resourceType: querySingle(z.enum(['space', 'base'])),
  cursor: z.optional(querySingle(idOf('trash'))),
});

export const handler = defineHandler('list-trash', { query }, async ({ principal, query }) =>
  listTrash(principal, query.resourceType, query.cursor),
);
