import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { listCollaborators } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'list-collaborators',
  { params, resource: { kind: 'space', param: 'spaceId' } },
  async ({ params }) => listCollaborators(params.spaceId),
);
