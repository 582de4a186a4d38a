import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { listNodes } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('list-nodes', { params }, async ({ params }) =>
  listNodes(params.baseId),
);
