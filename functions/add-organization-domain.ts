import * as z from 'zod/mini';
import { domainClaimLookup } from '#shared/entities/org-domains.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { domainName, organizationParams as params } from '#shared/organizations/organization-requests.ts';
import { addDomain } from '#shared/organizations/verification.ts';

const body = z.object({ domain: domainName });

// The domain's claim (held when another organization verified it) is read with authentication.
export const handler = defineHandler(
  'add-organization-domain',
  {
    params,
    body,
    preload: (_, { body }) => [domainClaimLookup(body.domain)],
  },
  async ({ principal, loaded, body, resource }) =>
    addDomain(resource, body.domain, loaded.valueFor(domainClaimLookup(body.domain)), principal),
);
