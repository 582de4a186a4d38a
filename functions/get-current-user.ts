import { defineHandler } from '#shared/http/handler.ts';

export const handler = defineHandler('get-current-user', {}, async ({ principal }) => ({
  id: principal.userId,
  name: principal.name,
  email: principal.email,
}));
