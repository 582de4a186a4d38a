import * as z from 'zod/mini';
import { expiryNotHere, tokenFields } from '#shared/auth/token-requests.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenLookup, updateAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
// Each part optional; null removes a limit.
const body = z.extend(z.partial(tokenFields), expiryNotHere);

export const handler = defineHandler(
  'update-access-token',
  {
    params,
    body,
    preload: (userId, { params }) => [accessTokenLookup(userId, params.accessTokenId)],
  },
  async ({ principal, params, body, loaded }) =>
    updateAccessToken(
      principal,
      params.accessTokenId,
      { ...body, scopes: body.scopes ? [...new Set(body.scopes)] : undefined },
      loaded,
    ),
);
