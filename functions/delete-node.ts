import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteNode } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base'), nodeId: idOf('node') });

// The chain checks base|read and the delete right on the node's resource (resource kind `node`).
export const handler = defineHandler('delete-node', { params }, async ({ params, principal, resource }) => {
  await deleteNode(principal, resource, params.nodeId);
});
