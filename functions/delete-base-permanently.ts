import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { deleteBasePermanently } from '#shared/workspace/bases.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler(
  'delete-base-permanently',
  { params, resource: { kind: 'base', param: 'baseId', includeTrashed: true } },
  async ({ params, resource, principal }) =>
    deleteBasePermanently(params.baseId, resource.spaceId, principal.userId),
);
