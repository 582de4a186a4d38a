import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { createFolder } from '#shared/nodes/nodes.ts';

const params = z.object({ baseId: idOf('base') });
// Tables and dashboards get their nodes from their own create routes: only folders are made here.
const body = z.object({
  resourceType: z.literal('folder'),
  name: displayName,
  parentId: z.optional(z.nullable(idOf('node'))),
});

export const handler = defineHandler('create-node', { params, body }, async ({ params, body }) =>
  createFolder(params.baseId, { name: body.name, parentId: body.parentId }),
);
