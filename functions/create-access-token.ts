import * as z from 'zod/mini';
import { tokenFields } from '#shared/auth/token-requests.ts';
import { futureIsoTime } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createAccessToken } from '#shared/users/access-tokens.ts';

const body = z.extend(tokenFields, { expiredTime: futureIsoTime });

export const handler = defineHandler('create-access-token', { body }, async ({ principal, body }) =>
  createAccessToken(principal, { ...body, scopes: [...new Set(body.scopes)] }),
);
