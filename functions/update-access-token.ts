import * as z from 'zod/mini';
import { scopeSchema } from '#shared/auth/schemas.ts';
import { displayName, idOf, listOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenKey, updateAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
// A limit list is never empty (auth-errors.md): null removes the limit.
const body = z.object({
  name: z.optional(displayName),
  description: z.optional(z.nullable(text(1000))),
  scopes: z.optional(listOf(scopeSchema, 1, 100)),
  spaceIds: z.optional(z.nullable(listOf(idOf('space'), 1, 100))),
  baseIds: z.optional(z.nullable(listOf(idOf('base'), 1, 100))),
});

export const handler = defineHandler(
  'update-access-token',
  {
    params,
    body,
    preload: (userId, { params }) => [accessTokenKey(userId, params.accessTokenId)],
  },
  async ({ principal, params, body, loaded }) =>
    updateAccessToken(
      principal,
      params.accessTokenId,
      { ...body, scopes: body.scopes ? [...new Set(body.scopes)] : undefined },
      loaded,
    ),
);
