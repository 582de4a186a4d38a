import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { normalizeDomain } from './domains.ts';

/** A domain name, normalised (`normalizeDomain`); any other text is a 400 naming it. */
export const domainName = z.pipe(
  z.string().check(z.maxLength(300)),
  z.transform((value, ctx) => {
    const domain = normalizeDomain(value);
    if (domain) return domain;
    ctx.issues.push({ code: 'custom', input: value, message: 'must be a domain name such as example.com' });
    return z.NEVER;
  }),
);

export const organizationParams = z.object({ organizationId: idOf('organization') });
export const domainParams = z.object({ organizationId: idOf('organization'), domain: domainName });
