import { defineHandler } from '#shared/http/handler.ts';
import { currentUserMe } from '#shared/users/users.ts';

export const handler = defineHandler('get-current-user', {}, async ({ principal, loaded }) =>
  currentUserMe(principal, loaded),
);
