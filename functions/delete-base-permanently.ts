import * as z from 'zod/mini';
import { deleteBasePermanently } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'delete-base-permanently',
  { params },
  async ({ params, resource, principal }) =>
    deleteBasePermanently(params.baseId, resource.spaceId, principal.userId),
);
