import { createTempToken } from '#shared/auth/issue-temp-token.ts';
import { defineHandler } from '#shared/http/handler.ts';

export const handler = defineHandler('create-temp-token', {}, async ({ principal }) =>
  createTempToken(principal),
);
