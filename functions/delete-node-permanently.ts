import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteNodePermanently } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base'), nodeId: idOf('node') });

// Deletes a node's resource for good. The chain checks base|read and the delete right on the
// node's resource (resource kind `node`).
export const handler = defineHandler(
  'delete-node-permanently',
  { params },
  async ({ params, principal, resource }) => deleteNodePermanently(principal, resource, params.nodeId),
);
