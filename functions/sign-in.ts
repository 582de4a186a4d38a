import * as z from 'zod/mini';
import { anyPassword } from '#shared/auth/password-input.ts';
import { emailAddress } from '#shared/core/validation.ts';
import { definePasswordHandler, Reply } from '#shared/http/handler.ts';
import { signIn } from '#shared/users/sessions.ts';

const body = z.object({ email: emailAddress, password: anyPassword });

export const handler = definePasswordHandler('sign-in', { body }, async ({ body, address }) => {
  const { user, cookies } = await signIn(body, address);
  return new Reply(user, { cookies });
});
