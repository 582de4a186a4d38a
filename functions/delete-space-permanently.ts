import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { deleteSpacePermanently } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'delete-space-permanently',
  { params, resource: { kind: 'space', param: 'spaceId', includeTrashed: true } },
  async ({ params, principal }) => deleteSpacePermanently(params.spaceId, principal.userId),
);
