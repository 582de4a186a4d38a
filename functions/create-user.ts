import * as z from 'zod/mini';
import { displayName } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createUserBy } from '#shared/users/users.ts';

const body = z.object({
  name: displayName,
  email: z.email().check(z.maxLength(254)),
  isAdmin: z.optional(z.boolean()),
});

export const handler = defineHandler('create-user', { body }, async ({ body, principal }) =>
  createUserBy(principal, body),
);
