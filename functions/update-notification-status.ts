import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { setNotificationRead } from '#shared/notifications/notifications.ts';

const params = z.object({ notificationId: idOf('notification') });
const body = z.object({ isRead: z.boolean() });

export const handler = defineHandler(
  'update-notification-status',
  { params, body },
  async ({ principal, params, body }) =>
    setNotificationRead(principal.userId, params.notificationId, body.isRead),
);
