import * as z from 'zod/mini';
import { newPassword } from '#shared/auth/password-input.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { addPassword } from '#shared/users/sessions.ts';

const body = z.object({ password: newPassword });

export const handler = defineHandler('add-password', { body }, async ({ principal, body }) => {
  await addPassword(principal.userId, body.password);
});
