import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName } from '#shared/http/validation.ts';
import { renameSpace } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'update-space',
  { params, body, resource: { kind: 'space', param: 'spaceId' } },
  async ({ params, body }) => renameSpace(params.spaceId, body.name),
);
