import * as z from 'zod/mini';
import { moveBaseToSpace, targetSpaceKeys } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'move-base',
  { params, body, preload: (userId, { body }) => targetSpaceKeys(userId, body.spaceId) },
  async ({ principal, resource, body, loaded }) => {
    await moveBaseToSpace(principal, resource, body.spaceId, loaded);
  },
);
