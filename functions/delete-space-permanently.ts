import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteSpacePermanently } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler('delete-space-permanently', { params }, async ({ params, principal }) =>
  deleteSpacePermanently(params.spaceId, principal.userId),
);
