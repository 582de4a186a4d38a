import * as z from 'zod/mini';
import { querySingle, text } from '#shared/core/validation.ts';
import { listNotifications } from '#shared/entities/notifications.ts';
import { defineHandler } from '#shared/http/handler.ts';

const query = z.object({
  notifyStates: z.optional(querySingle(z.enum(['unread', 'read']))),
  cursor: z.optional(querySingle(text(200))),
});

export const handler = defineHandler('list-notifications', { query }, async ({ principal, query }) =>
  listNotifications(principal.userId, query.notifyStates, query.cursor || undefined),
);
