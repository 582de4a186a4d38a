import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { resetTrashItems } from '#shared/trash/trash.ts';

const query = z.object({
  resourceType: querySingle(z.literal('base')),
  resourceId: querySingle(idOf('base')),
});

export const handler = defineHandler('reset-trash-items', { query }, async ({ query, principal }) => {
  await resetTrashItems(query.resourceId, principal.userId);
});
