import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { accessTokenLookup, deleteAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });

export const handler = defineHandler(
  'delete-access-token',
  { params, preload: (userId, { params }) => [accessTokenLookup(userId, params.accessTokenId)] },
  async ({ principal, params, loaded }) => deleteAccessToken(principal, params.accessTokenId, loaded),
);
