import { defineHandler } from '#shared/http/handler.ts';
import { addCollaboratorsBody, spaceParams } from '#shared/spaces/space-requests.ts';
import { addCollaborators } from '#shared/spaces/spaces.ts';

export const handler = defineHandler(
  'add-collaborator',
  { params: spaceParams, body: addCollaboratorsBody },
  async ({ principal, resource, body }) =>
    addCollaborators(
      principal,
      resource,
      body.collaborators.map((c) => c.principalId),
      body.role,
    ),
);
