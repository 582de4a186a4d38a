import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { deleteAccessToken } from '#shared/users/access-tokens.ts';

const params = z.object({ accessTokenId: idOf('accessToken') });

export const handler = defineHandler('delete-access-token', { params }, async ({ principal, params }) =>
  deleteAccessToken(principal.userId, params.accessTokenId),
);
