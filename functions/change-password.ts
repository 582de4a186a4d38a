import * as z from 'zod/mini';
import { anyPassword, newPassword } from '#shared/auth/password-input.ts';
import { defineHandler, Reply } from '#shared/http/handler.ts';
import { changePassword } from '#shared/users/sessions.ts';

const body = z.object({ password: anyPassword, newPassword });

export const handler = defineHandler('change-password', { body }, async ({ principal, body }) => {
  const cookies = await changePassword(principal, body);
  return new Reply(undefined, { cookies });
});
