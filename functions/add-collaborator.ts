import * as z from 'zod/mini';
import { roleSchema } from '#shared/auth/schemas.ts';
import { idOf, listOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { addCollaborators, MAX_COLLABORATORS_PER_CALL } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({
  collaborators: listOf(
    z.object({ principalId: idOf('user'), principalType: z.literal('user') }),
    1,
    MAX_COLLABORATORS_PER_CALL,
  ),
  role: roleSchema,
});

export const handler = defineHandler(
  'add-collaborator',
  { params, body },
  async ({ principal, resource, body }) =>
    addCollaborators(
      principal,
      resource,
      body.collaborators.map((c) => c.principalId),
      body.role,
    ),
);
