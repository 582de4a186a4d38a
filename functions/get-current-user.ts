import { defineHandler } from '#shared/http/handler.ts';
import { toUserMe } from '#shared/users/users.ts';

export const handler = defineHandler('get-current-user', {}, async ({ principal }) =>
  toUserMe({
    id: principal.userId,
    name: principal.name,
    email: principal.email,
    isAdmin: principal.isAdmin,
  }),
);
