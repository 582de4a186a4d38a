import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { querySingle, text } from '#shared/http/validation.ts';
import { listNotifications } from '#shared/notifications/notifications.ts';

const query = z.object({
  notifyStates: z.optional(querySingle(z.enum(['unread', 'read']))),
  cursor: z.optional(querySingle(text(200))),
});

export const handler = defineHandler('list-notifications', { query }, async ({ principal, query }) =>
  listNotifications(principal.userId, query.notifyStates, query.cursor || undefined),
);
