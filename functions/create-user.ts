import * as z from 'zod';
import { defineHandler } from '#shared/http/handler.ts';
import { displayName } from '#shared/http/validation.ts';
import { createUser } from '#shared/users/users.ts';

const body = z.object({ name: displayName, email: z.email().max(254), isAdmin: z.boolean().optional() });

export const handler = defineHandler('create-user', { body }, async ({ body }) => {
  const { id, name, email, token } = await createUser(body);
  return { id, name, email, token };
});
