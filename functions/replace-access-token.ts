import * as z from 'zod/mini';
import { tokenFields } from '#shared/auth/token-requests.ts';
import { ValidationError } from '#shared/core/errors.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenLookup, replaceAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
const body = z.extend(tokenFields, { hasFullAccess: z.optional(z.boolean()) });

export const handler = defineHandler(
  'replace-access-token',
  {
    params,
    body,
    preload: (userId, { params }) => [accessTokenLookup(userId, params.accessTokenId)],
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
