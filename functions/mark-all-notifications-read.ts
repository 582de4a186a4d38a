import { markAllRead } from '#shared/entities/notifications.ts';
import { defineHandler } from '#shared/http/handler.ts';

export const handler = defineHandler('mark-all-notifications-read', {}, async ({ principal }) =>
  markAllRead(principal.userId),
);
