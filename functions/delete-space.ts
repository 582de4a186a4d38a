import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { trashSpace } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'delete-space',
  { params, resource: { kind: 'space', param: 'spaceId' } },
  async ({ params, principal }) => trashSpace(params.spaceId, principal.userId),
);
