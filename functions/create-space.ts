import * as z from 'zod/mini';
import { displayName } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createSpace } from '#shared/spaces/spaces.ts';

const body = z.object({ name: z.optional(displayName) });

export const handler = defineHandler('create-space', { body }, async ({ principal, body }) =>
  createSpace(principal, body.name),
);
