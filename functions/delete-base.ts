import * as z from 'zod/mini';
import { trashBase } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('delete-base', { params }, async ({ resource, principal }) =>
  trashBase(resource, principal.userId),
);
