import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { accessTokenKey, deleteAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });

export const handler = defineHandler(
  'delete-access-token',
  { params, preload: (userId, { params }) => [accessTokenKey(userId, params.accessTokenId)] },
  async ({ principal, params, loaded }) => deleteAccessToken(principal, params.accessTokenId, loaded),
);
