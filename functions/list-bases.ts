import * as z from 'zod/mini';
import { listBases } from '#shared/bases/bases.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler('list-bases', { params }, async ({ params }) =>
  listBases(params.spaceId),
);
