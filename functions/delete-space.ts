import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { trashSpace } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler('delete-space', { params }, async ({ params, principal }) =>
  trashSpace(params.spaceId, principal.userId),
);
