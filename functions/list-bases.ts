import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { listBases } from '#shared/workspace/bases.ts';

const params = z.object({ spaceId: idOf('space') });

export const handler = defineHandler(
  'list-bases',
  { params, resource: { kind: 'space', param: 'spaceId' } },
  async ({ params }) => listBases(params.spaceId),
);
