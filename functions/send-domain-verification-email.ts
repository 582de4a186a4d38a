import * as z from 'zod/mini';
import { orgDomainLookup } from '#shared/entities/org-domains.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { domainName, organizationParams as params } from '#shared/organizations/organization-requests.ts';
import { sendVerificationEmail } from '#shared/organizations/verification.ts';

const body = z.object({ domain: domainName, email: z.optional(z.string().check(z.maxLength(254))) });

// Domain verification mail: the organization and the domain item come with authentication; one
// conditional write; the mail.
export const handler = defineHandler(
  'send-domain-verification-email',
  {
    params,
    body,
    preload: (_, { params, body }) => [orgDomainLookup(params.organizationId, body.domain)],
  },
  async ({ principal, loaded, params, body, resource }) =>
    sendVerificationEmail(
      principal,
      resource,
      body.domain,
      loaded.valueFor(orgDomainLookup(params.organizationId, body.domain)),
      body.email,
    ),
);
