import * as z from 'zod/mini';
import { futureIsoTime, idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenLookup, refreshAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });
const body = z.object({ expiredTime: futureIsoTime });

export const handler = defineHandler(
  'refresh-access-token',
  { params, body, preload: (userId, { params }) => [accessTokenLookup(userId, params.accessTokenId)] },
  async ({ principal, params, body, loaded }) =>
    refreshAccessToken(principal, params.accessTokenId, body.expiredTime, loaded),
);
