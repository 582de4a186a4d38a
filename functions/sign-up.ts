import * as z from 'zod/mini';
import { newPassword } from '#shared/auth/password-input.ts';
import { emailAddress } from '#shared/core/validation.ts';
import { definePasswordHandler, Reply } from '#shared/http/handler.ts';
import { signUp } from '#shared/users/sessions.ts';

// Teable's client sends more (defaultSpaceName, refMeta, verification, inviteCode): taken, not used
const body = z.looseObject({ email: emailAddress, password: newPassword });

export const handler = definePasswordHandler('sign-up', { body }, async ({ body }) => {
  const { user, cookies } = await signUp(body);
  return new Reply(user, { cookies });
});
