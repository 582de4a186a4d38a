import { defineHandler } from '#shared/http/handler.ts';
import { markAllRead } from '#shared/notifications/notifications.ts';

export const handler = defineHandler('mark-all-notifications-read', {}, async ({ principal }) =>
  markAllRead(principal.userId),
);
