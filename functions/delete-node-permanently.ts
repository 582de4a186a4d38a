import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { deleteNodePermanently } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base'), nodeId: idOf('node') });

// Deletes a node's resource for good. The route needs base|read; the delete right on the node's
// resource is checked once the node is read.
export const handler = defineHandler(
  'delete-node-permanently',
  { params },
  async ({ params, principal, resource }) => deleteNodePermanently(principal, resource, params.nodeId),
);
