import { keys } from '#shared/db/keys.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { checkOrganization, organizationKeys } from '#shared/organizations/organizations.ts';
import { domainParams as params } from '#shared/organizations/schemas.ts';
import { deleteDomain } from '#shared/organizations/verification.ts';

export const handler = defineHandler(
  'delete-organization-domain',
  {
    params,
    preload: (_, { params }) =>
      organizationKeys(params.organizationId, keys.orgDomain(params.organizationId, params.domain)),
  },
  async ({ principal, loaded, params }) => {
    checkOrganization(principal, loaded, params.organizationId, 'enterprise|update');
    await deleteDomain(
      params.organizationId,
      params.domain,
      loaded.get(keys.orgDomain(params.organizationId, params.domain)),
    );
  },
);
