import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { renameSpace } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({ name: displayName });

export const handler = defineHandler('update-space', { params, body }, async ({ params, body }) =>
  renameSpace(params.spaceId, body.name),
);
