import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf, scopeSchema } from '#shared/http/schemas.ts';
import { displayName, listOf, text } from '#shared/http/validation.ts';
import { updateAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
const body = z.object({
  name: z.optional(displayName),
  description: z.optional(z.nullable(text(1000))),
  scopes: z.optional(listOf(scopeSchema, 1, 100)),
  spaceIds: z.optional(listOf(idOf('space'), 0, 100)),
  baseIds: z.optional(listOf(idOf('base'), 0, 100)),
});

export const handler = defineHandler(
  'update-access-token',
  { params, body },
  async ({ principal, params, body }) =>
    updateAccessToken(principal.userId, params.accessTokenId, {
      ...body,
      scopes: body.scopes ? [...new Set(body.scopes)] : undefined,
    }),
);
