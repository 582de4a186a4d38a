import { describe, expect, it } from 'vitest';
import {
  type DomainClaim,
  domainClaimOf,
  type OrgDomain,
  orgDomainOf,
  toDomainClaimItem,
  toOrgDomainItem,
} from '#shared/entities/org-domains.ts';
import { type Organization, organizationOf, toOrganizationItem } from '#shared/entities/organizations.ts';

const ORG = 'org0000000000000001';
const USR = 'usr0000000000000001';
const T0 = '2026-01-01T00:00:00.000Z';

describe('organization items', () => {
  const org: Organization = { id: ORG, name: 'Acme', adminIds: [USR], createdBy: USR, createdTime: T0 };

  it('reads back an organization written by toOrganizationItem unchanged', () => {
    const item = toOrganizationItem(org);
    expect(item).toMatchObject({ pk: `ORG#${ORG}`, type: 'organization' });
    expect(organizationOf(item)).toEqual(org);
  });

  it('reads an organization as stored today, ignoring admin ids that are not text', () => {
    const stored = {
      pk: `ORG#${ORG}`,
      sk: 'ORG',
      type: 'organization',
      id: ORG,
      name: 'Acme',
      adminIds: [USR, 7],
      createdBy: USR,
      createdTime: T0,
    };
    expect(organizationOf(stored)).toEqual(org);
  });
});

describe('domain items', () => {
  const pending: OrgDomain = {
    orgId: ORG,
    domain: 'example.com',
    status: 'pending',
    createdTime: T0,
    createdBy: USR,
    codeHash: 'h',
    codeSalt: 's',
    expiresTime: '2026-01-01T00:30:00.000Z',
    attempts: 2,
    lastSentTime: T0,
    sentTo: 'a@example.com',
  };

  it('reads back a domain written by toOrgDomainItem unchanged', () => {
    const item = toOrgDomainItem(pending);
    expect(item).toMatchObject({ pk: `ORG#${ORG}`, sk: 'DOMAIN#example.com', type: 'orgDomain' });
    expect(orgDomainOf(item)).toEqual(pending);
  });

  it('reads a verified domain as stored today (code state removed)', () => {
    const stored = {
      pk: `ORG#${ORG}`,
      sk: 'DOMAIN#example.com',
      type: 'orgDomain',
      orgId: ORG,
      domain: 'example.com',
      status: 'verified',
      createdTime: T0,
      createdBy: USR,
      lastSentTime: T0,
      verifiedTime: '2026-01-01T00:05:00.000Z',
      verifiedBy: USR,
    };
    expect(orgDomainOf(stored)).toEqual({
      orgId: ORG,
      domain: 'example.com',
      status: 'verified',
      createdTime: T0,
      createdBy: USR,
      lastSentTime: T0,
      verifiedTime: '2026-01-01T00:05:00.000Z',
      verifiedBy: USR,
    });
  });

  it('reads back a claim written by toDomainClaimItem unchanged, and one as stored today', () => {
    const claim: DomainClaim = { domain: 'example.com', orgId: ORG, verifiedTime: T0 };
    expect(domainClaimOf(toDomainClaimItem(claim))).toEqual(claim);
    expect(
      domainClaimOf({
        pk: 'DOMAIN#example.com',
        sk: 'CLAIM',
        type: 'domainClaim',
        domain: 'example.com',
        orgId: ORG,
        verifiedTime: T0,
      }),
    ).toEqual(claim);
  });
});
