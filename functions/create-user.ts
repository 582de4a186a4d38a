import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { displayName } from '#shared/http/validation.ts';
import { createUser } from '#shared/users/users.ts';

const body = z.object({
  name: displayName,
  email: z.email().check(z.maxLength(254)),
  isAdmin: z.optional(z.boolean()),
});

export const handler = defineHandler('create-user', { body }, async ({ body }) => {
  const { id, name, email, token } = await createUser(body);
  return { id, name, email, token };
});
