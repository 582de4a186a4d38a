import { defineHandler } from '#shared/http/handler.ts';
import { listSpaces } from '#shared/spaces/spaces.ts';

export const handler = defineHandler('list-spaces', {}, async ({ principal }) => listSpaces(principal));
