import { defineHandler } from '#shared/http/handler.ts';
import { listAccessTokens } from '#shared/users/access-tokens.ts';

export const handler = defineHandler('list-access-tokens', {}, async ({ principal }) =>
  listAccessTokens(principal.userId),
);
