import * as z from 'zod';
import { defineHandler } from '#shared/http/handler.ts';
import { querySingle } from '#shared/http/validation.ts';
import { listNotifications } from '#shared/notifications/notifications.ts';

const query = z.object({
  notifyStates: querySingle(z.enum(['unread', 'read'])).optional(),
  cursor: querySingle(z.string().max(200)).optional(),
});

export const handler = defineHandler('list-notifications', { query }, async ({ principal, query }) =>
  listNotifications(principal.userId, query.notifyStates, query.cursor || undefined),
);
