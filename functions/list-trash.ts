import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { querySingle } from '#shared/http/validation.ts';
import { listTrash } from '#shared/trash/trash.ts';

const query = z.object({
  resourceType: querySingle(z.enum(['space', 'base'])),
  cursor: z.optional(querySingle(idOf('trash'))),
});

export const handler = defineHandler('list-trash', { query }, async ({ principal, query }) =>
  listTrash(principal, query.resourceType, query.cursor),
);
