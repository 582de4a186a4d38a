import * as z from 'zod/mini';
import { idOf, querySingle } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { removeCollaborator } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const query = z.object({
  principalId: querySingle(idOf('user')),
  principalType: querySingle(z.literal('user')),
});

export const handler = defineHandler(
  'remove-collaborator',
  { params, query },
  async ({ principal, resource, query }) => removeCollaborator(principal, resource, query.principalId),
);
