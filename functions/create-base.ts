import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName, text } from '#shared/http/validation.ts';
import { createBase } from '#shared/workspace/bases.ts';

const body = z.object({
  spaceId: idOf('space'),
  name: z.optional(displayName),
  icon: z.optional(z.nullable(text(100))),
});

export const handler = defineHandler(
  'create-base',
  { body, resource: { kind: 'space', param: 'spaceId', in: 'body' } },
  async ({ principal, resource, body }) => createBase(principal, resource, body),
);
