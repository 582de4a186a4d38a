import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName, text } from '#shared/http/validation.ts';
import { updateBase } from '#shared/workspace/bases.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ name: z.optional(displayName), icon: z.optional(z.nullable(text(100))) }).check(
  z.refine((b) => b.name !== undefined || b.icon !== undefined, {
    error: 'must set name or icon',
  }),
);

export const handler = defineHandler(
  'update-base',
  { params, body, resource: { kind: 'base', param: 'baseId' } },
  async ({ resource, body }) => updateBase(resource, body),
);
