import { defineHandler } from '#shared/http/handler.ts';
import { toUserInfo } from '#shared/users/users.ts';

export const handler = defineHandler('get-user-info', {}, async ({ principal }) =>
  toUserInfo({ id: principal.userId, name: principal.name, email: principal.email }),
);
