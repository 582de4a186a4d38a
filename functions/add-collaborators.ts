import * as z from 'zod';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf, roleSchema } from '#shared/http/schemas.ts';
import { addCollaborators, MAX_COLLABORATORS_PER_CALL } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({
  collaborators: z
    .array(z.object({ principalId: idOf('user'), principalType: z.literal('user') }))
    .min(1)
    .max(MAX_COLLABORATORS_PER_CALL),
  role: roleSchema,
});

export const handler = defineHandler(
  'add-collaborators',
  { params, body, resource: { kind: 'space', param: 'spaceId' } },
  async ({ principal, resource, body }) =>
    addCollaborators(
      principal,
      resource,
      body.collaborators.map((c) => c.principalId),
      body.role,
    ),
);
