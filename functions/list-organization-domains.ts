import { defineHandler } from '#shared/http/handler.ts';
import { listDomains } from '#shared/organizations/organizations.ts';
import { organizationParams as params } from '#shared/organizations/schemas.ts';

export const handler = defineHandler(
  'list-organization-domains',
  { params },
  async ({ params, resource }) => {
    resource;
    return listDomains(params.organizationId);
  },
);
