import { defineHandler } from '#shared/http/handler.ts';
import { addPinBody } from '#shared/pins/pin-requests.ts';
import { addPin } from '#shared/pins/pins.ts';

export const handler = defineHandler('add-pin', { body: addPinBody }, async ({ principal, body }) =>
  addPin(principal, body.type, body.id),
);
