import { defineHandler } from '#shared/http/handler.ts';
import { listPins } from '#shared/pins/pins.ts';

export const handler = defineHandler('list-pins', {}, async ({ principal }) => listPins(principal));
