import { keys } from '#shared/db/keys.ts';
import { unreadCountFrom } from '#shared/entities/notifications.ts';
import { defineHandler } from '#shared/http/handler.ts';

// The counter is read in the same call as the token: one round trip in all.
export const handler = defineHandler(
  'count-unread-notifications',
  { preload: (userId) => [keys.notificationCounter(userId)] },
  async ({ principal, loaded }) => unreadCountFrom(loaded.get(keys.notificationCounter(principal.userId))),
);
