import { orgDomainLookup } from '#shared/entities/org-domains.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { domainParams as params } from '#shared/organizations/organization-requests.ts';
import { deleteDomain } from '#shared/organizations/verification.ts';

export const handler = defineHandler(
  'delete-organization-domain',
  {
    params,
    preload: (_, { params }) => [orgDomainLookup(params.organizationId, params.domain)],
  },
  async ({ loaded, params, resource }) => {
    resource;
    await deleteDomain(
      params.organizationId,
      params.domain,
      loaded.valueFor(orgDomainLookup(params.organizationId, params.domain)),
    );
  },
);
