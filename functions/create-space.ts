import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { displayName } from '#shared/http/validation.ts';
import { createSpace } from '#shared/spaces/spaces.ts';

const body = z.object({ name: z.optional(displayName) });

export const handler = defineHandler('create-space', { body }, async ({ principal, body }) =>
  createSpace(principal, body.name),
);
