import * as z from 'zod';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf, scopeSchema } from '#shared/http/schemas.ts';
import { displayName, futureIsoTime } from '#shared/http/validation.ts';
import { createAccessToken } from '#shared/users/access-tokens.ts';

const body = z.object({
  name: displayName,
  description: z.string().max(1000).optional(),
  scopes: z.array(scopeSchema).min(1).max(100),
  spaceIds: z.array(idOf('space')).max(100).optional(),
  baseIds: z.array(idOf('base')).max(100).optional(),
  expiredTime: futureIsoTime,
});

export const handler = defineHandler('create-access-token', { body }, async ({ principal, body }) =>
  createAccessToken(principal.userId, { ...body, scopes: [...new Set(body.scopes)] }),
);
