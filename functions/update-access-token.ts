import * as z from 'zod';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf, scopeSchema } from '#shared/http/schemas.ts';
import { displayName } from '#shared/http/validation.ts';
import { updateAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
const body = z.object({
  name: displayName.optional(),
  description: z.string().max(1000).optional(),
  scopes: z.array(scopeSchema).min(1).max(100).optional(),
  spaceIds: z.array(idOf('space')).max(100).optional(),
  baseIds: z.array(idOf('base')).max(100).optional(),
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
