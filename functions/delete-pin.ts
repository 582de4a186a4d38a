import { defineHandler } from '#shared/http/handler.ts';
import { deletePinQuery } from '#shared/pins/pin-requests.ts';
import { removePin } from '#shared/pins/pins.ts';

export const handler = defineHandler('delete-pin', { query: deletePinQuery }, async ({ principal, query }) =>
  removePin(principal.userId, query.type, query.id),
);
