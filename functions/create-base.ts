import * as z from 'zod/mini';
import { createBase } from '#shared/bases/bases.ts';
import { displayName, idOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const body = z.object({
  spaceId: idOf('space'),
  name: z.optional(displayName),
  icon: z.optional(z.nullable(text(100))),
});

export const handler = defineHandler('create-base', { body }, async ({ principal, resource, body }) =>
  createBase(principal, resource, body),
);
