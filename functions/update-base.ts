import * as z from 'zod/mini';
import { updateBase } from '#shared/bases/bases.ts';
import { displayName, idOf, text } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ name: z.optional(displayName), icon: z.optional(z.nullable(text(100))) }).check(
  z.refine((b) => b.name !== undefined || b.icon !== undefined, {
    error: 'must set name or icon',
  }),
);

export const handler = defineHandler('update-base', { params, body }, async ({ resource, body }) =>
  updateBase(resource, body),
);
