import * as z from 'zod/mini';
import { displayName } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { renameUser } from '#shared/users/users.ts';

const body = z.object({ name: displayName });

export const handler = defineHandler('rename-user', { body }, async ({ principal, body }) => {
  await renameUser(principal.userId, body.name);
});
