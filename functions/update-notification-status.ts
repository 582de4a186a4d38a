import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { setNotificationRead } from '#shared/entities/notifications.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ notificationId: idOf('notification') });
const body = z.object({ isRead: z.boolean() });

export const handler = defineHandler(
  'update-notification-status',
  { params, body },
  async ({ principal, params, body }) =>
    setNotificationRead(principal.userId, params.notificationId, body.isRead),
);
