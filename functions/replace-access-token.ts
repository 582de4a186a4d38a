import * as z from 'zod/mini';
import { scopeSchema } from '#shared/auth/schemas.ts';
import { ValidationError } from '#shared/core/errors.ts';
import { displayName, idOf, listOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenKey, replaceAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
// A limit list is never empty (auth-errors.md): absent or null means no limit.
const body = z.object({
  name: displayName,
  description: z.optional(z.nullable(text(1000))),
  scopes: listOf(scopeSchema, 1, 100),
  spaceIds: z.optional(z.nullable(listOf(idOf('space'), 1, 100))),
  baseIds: z.optional(z.nullable(listOf(idOf('base'), 1, 100))),
  hasFullAccess: z.optional(z.boolean()),
});

export const handler = defineHandler(
  'replace-access-token',
  {
    params,
    body,
    preload: (userId, { params }) => [accessTokenKey(userId, params.accessTokenId)],
  },
  async ({ principal, params, body, loaded }) => {
    if (body.hasFullAccess === true && (body.spaceIds || body.baseIds))
      throw new ValidationError('hasFullAccess: true cannot go with spaceIds or baseIds');
    return replaceAccessToken(
      principal,
      params.accessTokenId,
      { ...body, scopes: [...new Set(body.scopes)] },
      loaded,
    );
  },
);
