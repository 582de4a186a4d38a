import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { toSpace } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'get-space',
  { params, resource: { kind: 'space', param: 'spaceId' } },
  async ({ resource }) => toSpace(resource.space, resource.role),
);
