import { defineHandler, Reply } from '#shared/http/handler.ts';
import { signOut } from '#shared/users/sessions.ts';

export const handler = defineHandler(
  'sign-out',
  {},
  async ({ principal }) => new Reply(undefined, { cookies: await signOut(principal) }),
);
