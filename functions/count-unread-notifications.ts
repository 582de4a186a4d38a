import { unreadCountLookup } from '#shared/entities/notifications.ts';
import { defineHandler } from '#shared/http/handler.ts';

// The counter is read in the same call as the token: one round trip in all.
export const handler = defineHandler(
  'count-unread-notifications',
  { preload: (userId) => [unreadCountLookup(userId)] },
  async ({ principal, loaded }) => loaded.valueFor(unreadCountLookup(principal.userId)) ?? { unreadCount: 0 },
);
