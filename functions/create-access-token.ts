import * as z from 'zod/mini';
import { scopeSchema } from '#shared/auth/schemas.ts';
import { displayName, futureIsoTime, idOf, listOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createAccessToken } from '#shared/users/access-tokens.ts';

// A limit list is never empty (auth-errors.md): absent or null means no limit.
const body = z.object({
  name: displayName,
  description: z.optional(z.nullable(text(1000))),
  scopes: listOf(scopeSchema, 1, 100),
  spaceIds: z.optional(z.nullable(listOf(idOf('space'), 1, 100))),
  baseIds: z.optional(z.nullable(listOf(idOf('base'), 1, 100))),
  expiredTime: futureIsoTime,
});

export const handler = defineHandler('create-access-token', { body }, async ({ principal, body }) =>
  createAccessToken(principal, { ...body, scopes: [...new Set(body.scopes)] }),
);
