import * as z from 'zod/mini';
import { orgDomainLookup } from '#shared/entities/org-domains.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { domainName, organizationParams as params } from '#shared/organizations/organization-requests.ts';
import { verifyDomain } from '#shared/organizations/verification.ts';

const body = z.object({
  domain: domainName,
  code: z.string().check(z.trim(), z.regex(/^\d{6}$/, { error: 'must be the 6-digit code from the mail' })),
});

export const handler = defineHandler(
  'verify-organization-domain',
  {
    params,
    body,
    preload: (_, { params, body }) => [orgDomainLookup(params.organizationId, body.domain)],
  },
  async ({ principal, loaded, params, body, resource }) =>
    verifyDomain(
      principal,
      resource,
      body.domain,
      loaded.valueFor(orgDomainLookup(params.organizationId, body.domain)),
      body.code,
    ),
);
