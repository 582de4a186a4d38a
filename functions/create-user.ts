import * as z from 'zod/mini';
import { displayName } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createUser } from '#shared/users/users.ts';

const body = z.object({
  name: displayName,
  email: z.email().check(z.maxLength(254)),
  isAdmin: z.optional(z.boolean()),
});

// The new user's first token is capped by the calling token's scopes: a token never hands out more.
export const handler = defineHandler('create-user', { body }, async ({ body, principal }) => {
  const { id, name, email, token } = await createUser({ ...body, scopes: [...principal.scopes] });
  return { id, name, email, token };
});
