import { defineHandler } from '#shared/http/handler.ts';
import { organizationParams as params } from '#shared/organizations/organization-requests.ts';
import { getOrganization } from '#shared/organizations/organizations.ts';

export const handler = defineHandler('get-organization', { params }, async ({ resource }) =>
  getOrganization(resource),
);
