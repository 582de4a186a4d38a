import { defineHandler } from '#shared/http/handler.ts';
import { checkOrganization, getOrganization, organizationKeys } from '#shared/organizations/organizations.ts';
import { organizationParams as params } from '#shared/organizations/schemas.ts';

export const handler = defineHandler(
  'get-organization',
  { params, preload: (_, { params }) => organizationKeys(params.organizationId) },
  async ({ principal, loaded, params }) =>
    getOrganization(checkOrganization(principal, loaded, params.organizationId, 'enterprise|read')),
);
