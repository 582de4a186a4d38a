import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { moveNode } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base'), nodeId: idOf('node') });
const body = z.object({
  anchorId: z.optional(idOf('node')),
  position: z.optional(z.enum(['before', 'after'])),
  parentId: z.optional(z.nullable(idOf('node'))),
});

export const handler = defineHandler('move-node', { params, body }, async ({ params, body }) =>
  moveNode(params.baseId, params.nodeId, body),
);
