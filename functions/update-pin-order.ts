import { defineHandler } from '#shared/http/handler.ts';
import { updatePinOrderBody } from '#shared/pins/pin-requests.ts';
import { movePin } from '#shared/pins/pins.ts';

export const handler = defineHandler(
  'update-pin-order',
  { body: updatePinOrderBody },
  async ({ principal, body }) => movePin(principal.userId, body),
);
