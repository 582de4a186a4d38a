import { defineHandler } from '#shared/http/handler.ts';
import { organizationParams as params } from '#shared/organizations/organization-requests.ts';
import { listDomains } from '#shared/organizations/organizations.ts';

export const handler = defineHandler(
  'list-organization-domains',
  { params },
  async ({ params, resource }) => {
    resource;
    return listDomains(params.organizationId);
  },
);
