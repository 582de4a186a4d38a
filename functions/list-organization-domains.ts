import { defineHandler } from '#shared/http/handler.ts';
import { checkOrganization, listDomains, organizationKeys } from '#shared/organizations/organizations.ts';
import { organizationParams as params } from '#shared/organizations/schemas.ts';

export const handler = defineHandler(
  'list-organization-domains',
  { params, preload: (_, { params }) => organizationKeys(params.organizationId) },
  async ({ principal, loaded, params }) => {
    checkOrganization(principal, loaded, params.organizationId, 'enterprise|read');
    return listDomains(params.organizationId);
  },
);
