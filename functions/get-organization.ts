import { defineHandler } from '#shared/http/handler.ts';
import { getOrganization } from '#shared/organizations/organizations.ts';
import { organizationParams as params } from '#shared/organizations/schemas.ts';

export const handler = defineHandler('get-organization', { params }, async ({ resource }) =>
  getOrganization(resource),
);
