import * as z from 'zod/mini';
import { moveBase } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ anchorId: idOf('base'), position: z.enum(['before', 'after']) });

export const handler = defineHandler('update-base-order', { params, body }, async ({ resource, body }) => {
  await moveBase(resource, body.anchorId, body.position);
});
