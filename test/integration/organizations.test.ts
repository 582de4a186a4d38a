import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '#shared/auth/permission.ts';
import { SCOPES } from '#shared/auth/scopes.ts';
import { ServiceUnavailableError } from '#shared/core/errors.ts';
import { getItem, queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { orgDomainOf } from '#shared/entities/org-domains.ts';
import { organizationOf } from '#shared/entities/organizations.ts';
import { randomBase62 } from '#shared/ids.ts';
import { useMailTransport } from '#shared/mail/transport.ts';
import { sendVerificationEmail } from '#shared/organizations/verification.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { createUser } from '#shared/users/users.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { latestCode, mailsTo } from '#test/support/outbox.ts';

type User = Awaited<ReturnType<typeof newUser>>;

const future = () => new Date(Date.now() + 86_400_000).toISOString();
/** A fresh domain per test: domains are global (claims), tests must not share them. */
const freshDomain = () => `d${randomBase62(10).toLowerCase()}.example.test`;

const newOrg = async (admin: User, name = 'Acme') => {
  const res = await call('create-organization', { token: admin.auth, body: { name } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

const addDomain = (user: User, organizationId: string, domain: string) =>
  call('add-organization-domain', { token: user.auth, params: { organizationId }, body: { domain } });

const send = (user: User, organizationId: string, body: { domain: string; email?: string }) =>
  call('send-domain-verification-email', { token: user.auth, params: { organizationId }, body });

const verify = (user: User, organizationId: string, domain: string, code: string) =>
  call('verify-organization-domain', {
    token: user.auth,
    params: { organizationId },
    body: { domain, code },
  });

const domains = async (user: User, organizationId: string) =>
  (await call('list-organization-domains', { token: user.auth, params: { organizationId } })).body;

/** An organization with one domain added, and an address at it. */
const orgWithDomain = async () => {
  const admin = await newUser();
  const organizationId = await newOrg(admin);
  const domain = freshDomain();
  expect((await addDomain(admin, organizationId, domain)).status).toBe(201);
  return { admin, organizationId, domain, email: `it@${domain}` };
};

/** The principal of a user, for calling the shared function with an injected clock. */
const principalOf = (user: User): Principal => ({
  userId: user.id,
  name: user.name,
  email: user.email,
  isAdmin: false,
  tokenId: user.tokenId,
  kind: 'personal',
  scopes: new Set(SCOPES),
});

/** Sends a code as if at time `now` (the clock seam: no sleeping in tests). */
const sendAt = async (user: User, organizationId: string, domain: string, email: string, now: Date) =>
  sendVerificationEmail(
    principalOf(user),
    organizationOf((await getItem(keys.organization(organizationId))) ?? {}),
    domain,
    await getItem(keys.orgDomain(organizationId, domain)).then((item) => item && orgDomainOf(item)),
    email,
    now,
  );

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

afterEach(() => useMailTransport(undefined));

describe('organizations', () => {
  it('creates an organization whose creator is its admin, and reads it back with its domains', async () => {
    const admin = await newUser();
    const created = await call('create-organization', { token: admin.auth, body: { name: '  Acme  ' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^org[0-9A-Za-z]{16}$/), name: 'Acme' });
    const got = await call('get-organization', {
      token: admin.auth,
      params: { organizationId: created.body.id },
    });
    expect(got).toMatchObject({ status: 200, body: { id: created.body.id, name: 'Acme', domains: [] } });
  });

  it.each([[{}], [{ name: '' }], [{ name: '   ' }], [{ name: 7 }], [{ name: 'x'.repeat(256) }]])(
    'refuses the create body %j with a 400',
    async (body) => {
      const admin = await newUser();
      const res = await call('create-organization', { token: admin.auth, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    },
  );

  it('answers 404 for an unknown organization and 400 for a malformed id', async () => {
    const admin = await newUser();
    const unknown = await call('get-organization', {
      token: admin.auth,
      params: { organizationId: 'org0000000000000000' },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(unknown.body.message).toBe('Organization org0000000000000000 not found');
    const bad = await call('get-organization', { token: admin.auth, params: { organizationId: 'spc1' } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('refuses every organization route to a user who is not its admin (403), even a known one', async () => {
    const { organizationId, domain } = await orgWithDomain();
    const stranger = await newUser();
    const answers = await Promise.all([
      call('get-organization', { token: stranger.auth, params: { organizationId } }),
      call('list-organization-domains', { token: stranger.auth, params: { organizationId } }),
      addDomain(stranger, organizationId, freshDomain()),
      call('delete-organization-domain', { token: stranger.auth, params: { organizationId, domain } }),
      send(stranger, organizationId, { domain, email: `a@${domain}` }),
      verify(stranger, organizationId, domain, '123456'),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('restricted_resource');
      expect(res.body.message).toContain('not an admin of the organization');
    }
  });

  it('needs enterprise|read to read and enterprise|update to write, and no space limits', async () => {
    const { admin, organizationId, domain } = await orgWithDomain();
    const token = async (scopes: (typeof SCOPES)[number][], spaceIds?: string[]) =>
      `Bearer ${(await createOperatorToken(admin.id, { name: 't', scopes, expiredTime: future(), spaceIds })).token}`;
    const readOnly = await token(['enterprise|read']);
    expect((await call('get-organization', { token: readOnly, params: { organizationId } })).status).toBe(
      200,
    );
    const write = await call('add-organization-domain', {
      token: readOnly,
      params: { organizationId },
      body: { domain: freshDomain() },
    });
    expect(write).toMatchObject({
      status: 403,
      body: { message: 'not allowed to operate enterprise|update' },
    });
    const updateOnly = await token(['enterprise|update']);
    const read = await call('list-organization-domains', { token: updateOnly, params: { organizationId } });
    expect(read).toMatchObject({ status: 403, body: { message: 'not allowed to operate enterprise|read' } });
    const limited = await token(['enterprise|read', 'enterprise|update'], ['spc0000000000000000']);
    const res = await call('list-organization-domains', { token: limited, params: { organizationId } });
    expect(res.status).toBe(403);
    const created = await call('create-organization', { token: limited, body: { name: 'X' } });
    expect(created.status).toBe(403);
    expect(await domains(admin, organizationId)).toEqual([expect.objectContaining({ domain })]);
  });
});

describe('domains', () => {
  it('adds a domain as pending, normalised to lower case, and lists it with the organization', async () => {
    const admin = await newUser();
    const organizationId = await newOrg(admin);
    const domain = freshDomain();
    const res = await addDomain(admin, organizationId, `  ${domain.toUpperCase()}. `);
    expect(res).toMatchObject({ status: 201, body: { domain, status: 'pending' } });
    expect(res.body).toEqual({ domain, status: 'pending' });
    const listed = await domains(admin, organizationId);
    expect(listed).toEqual([{ domain, status: 'pending', createdTime: expect.any(String) }]);
    const org = await call('get-organization', { token: admin.auth, params: { organizationId } });
    expect(org.body.domains).toEqual(listed);
  });

  it('stores an internationalised domain in its ASCII form', async () => {
    const admin = await newUser();
    const organizationId = await newOrg(admin);
    const tag = randomBase62(6).toLowerCase();
    const res = await addDomain(admin, organizationId, `bücher${tag}.example`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      domain: expect.stringMatching(new RegExp(`^xn--bcher${tag}-[a-z0-9]+\\.example$`)),
      status: 'pending',
    });
    // The Unicode spelling names the same domain.
    expect((await addDomain(admin, organizationId, res.body.domain)).status).toBe(409);
  });

  it.each([
    'localhost',
    '127.0.0.1',
    'exa mple.com',
    '-bad.com',
    'bad-.com',
    'a..b.com',
    '.com',
    'user@example.com',
    'https://example.com',
    'example.com/path',
    `${'a'.repeat(64)}.com`,
    '',
  ])('refuses the domain %j with a 400', async (domain) => {
    const admin = await newUser();
    const organizationId = await newOrg(admin);
    const res = await addDomain(admin, organizationId, domain);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(await domains(admin, organizationId)).toEqual([]);
  });

  it('answers 409 for a domain added twice, 404 for an unknown organization', async () => {
    const { admin, organizationId, domain } = await orgWithDomain();
    const again = await addDomain(admin, organizationId, domain.toUpperCase());
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict' } });
    const unknown = await addDomain(admin, 'org0000000000000000', freshDomain());
    expect(unknown.status).toBe(404);
  });

  it('deletes a domain (200, empty body), then answers 404 for it', async () => {
    const { admin, organizationId, domain } = await orgWithDomain();
    const del = () =>
      call('delete-organization-domain', { token: admin.auth, params: { organizationId, domain } });
    const first = await del();
    expect(first).toMatchObject({ status: 200, body: undefined });
    expect(await domains(admin, organizationId)).toEqual([]);
    expect((await del()).status).toBe(404);
    const bad = await call('delete-organization-domain', {
      token: admin.auth,
      params: { organizationId, domain: 'not a domain' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('domain verification: send the mail and verify', () => {
  it('mails a 6-digit code to the address; the code verifies; the admin gets a system notification', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    const sent = await send(admin, organizationId, {
      domain,
      email: email.toUpperCase().replace(domain.toUpperCase(), domain),
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ domain, sentTo: email.replace('it', 'IT'), expiresTime: expect.any(String) });
    const expires = Date.parse(sent.body.expiresTime) - Date.now();
    expect(expires).toBeGreaterThan(29 * 60_000);
    expect(expires).toBeLessThanOrEqual(30 * 60_000);
    const mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toContain(domain);
    const code = await latestCode(email);
    expect(code).toMatch(/^\d{6}$/);

    const ok = await verify(admin, organizationId, domain, code);
    expect(ok).toMatchObject({ status: 200, body: { domain, status: 'verified' } });
    expect(ok.body).toEqual({ domain, status: 'verified' });
    expect(await domains(admin, organizationId)).toEqual([
      { domain, status: 'verified', createdTime: expect.any(String), verifiedTime: expect.any(String) },
    ]);
    const unread = await call('count-unread-notifications', { token: admin.auth });
    expect(unread.body).toEqual({ unreadCount: 1 });
    const list = await call('list-notifications', { token: admin.auth });
    expect(list.body.notifications).toEqual([
      expect.objectContaining({
        notifyType: 'system',
        message: `The domain ${domain} of the organization "Acme" is verified`,
        url: `/enterprise/${organizationId}`,
        isRead: false,
      }),
    ]);
    // A retried verify succeeds again and notifies nobody twice; a new code for it is a 400.
    expect((await verify(admin, organizationId, domain, otherCode(code))).status).toBe(200);
    expect((await call('count-unread-notifications', { token: admin.auth })).body).toEqual({
      unreadCount: 1,
    });
    const resend = await send(admin, organizationId, { domain, email });
    expect(resend).toMatchObject({ status: 400, body: { message: `Domain ${domain} is already verified` } });
  });

  it("sends to the caller's own address by default when it is at the domain, else 400", async () => {
    const domain = freshDomain();
    const created = await createUser({ name: 'Ada', email: `Ada@${domain.toUpperCase()}` });
    const ada = { ...created, auth: `Bearer ${created.token}` } as User;
    const organizationId = await newOrg(ada);
    await addDomain(ada, organizationId, domain);
    const res = await send(ada, organizationId, { domain });
    expect(res).toMatchObject({ status: 200, body: { domain, sentTo: `Ada@${domain}` } });
    expect((await mailsTo(`ada@${domain}`)).length).toBe(1);

    const other = await orgWithDomain();
    const noEmail = await send(other.admin, other.organizationId, { domain: other.domain });
    expect(noEmail).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(noEmail.body.message).toContain('give body.email');
  });

  it.each([
    ['an address at another domain', (d: string) => `it@other-${d}`],
    ['an address at a subdomain', (d: string) => `it@sub.${d}`],
    ['no address', () => 'not-an-email'],
    ['a header injection', (d: string) => `it@${d}\r\nBcc: x@evil.test`],
    ['an empty local part', (d: string) => `@${d}`],
  ])('refuses %s with a 400 and mails nothing', async (_, emailFor) => {
    const { admin, organizationId, domain } = await orgWithDomain();
    const email = emailFor(domain);
    const res = await send(admin, organizationId, { domain, email });
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(await mailsTo(`it@${domain}`)).toEqual([]);
    // Nothing was stored: an immediate valid send is not rate-limited.
    expect((await send(admin, organizationId, { domain, email: `it@${domain}` })).status).toBe(200);
  });

  it('answers 404 for a domain not added, for send and verify', async () => {
    const { admin, organizationId } = await orgWithDomain();
    const domain = freshDomain();
    const res = await send(admin, organizationId, { domain, email: `it@${domain}` });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(res.body.message).toBe(`Domain ${domain} is not added to organization ${organizationId}`);
    expect((await verify(admin, organizationId, domain, '123456')).status).toBe(404);
    const unknownOrg = await send(admin, 'org0000000000000000', { domain, email: `it@${domain}` });
    expect(unknownOrg.status).toBe(404);
  });

  it('refuses a verify before any code was sent, and a code that is not 6 digits', async () => {
    const { admin, organizationId, domain } = await orgWithDomain();
    const none = await verify(admin, organizationId, domain, '123456');
    expect(none).toMatchObject({
      status: 400,
      body: { message: `No verification code was sent for ${domain}; request one first` },
    });
    for (const code of ['12345', '1234567', 'abcdef', ''])
      expect((await verify(admin, organizationId, domain, code)).status).toBe(400);
  });

  it('allows one mail per domain per 60 s: 429 with Retry-After, also for two racing calls', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    const [a, b] = await Promise.all([
      send(admin, organizationId, { domain, email }),
      send(admin, organizationId, { domain, email }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    const limited = a.status === 429 ? a : b;
    expect(limited.body).toMatchObject({ status: 429, code: 'too_many_requests' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await mailsTo(email)).toHaveLength(1);
    const third = await send(admin, organizationId, { domain, email });
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBeDefined();
    // 61 s later (injected clock) another mail goes, with a new code; the old one is void.
    const firstCode = await latestCode(email);
    await sendAt(admin, organizationId, domain, email, new Date(Date.now() + 61_000));
    expect(await mailsTo(email)).toHaveLength(2);
    const secondCode = await latestCode(email);
    if (secondCode !== firstCode)
      expect((await verify(admin, organizationId, domain, firstCode)).status).toBe(400);
    expect((await verify(admin, organizationId, domain, secondCode)).status).toBe(200);
  });

  it('refuses an expired code (30 minutes) with a 400', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    await sendAt(admin, organizationId, domain, email, new Date(Date.now() - 30 * 60_000 - 1000));
    const code = await latestCode(email);
    const res = await verify(admin, organizationId, domain, code);
    expect(res).toMatchObject({
      status: 400,
      body: { message: `The code for ${domain} has expired; request a new code` },
    });
    expect((await domains(admin, organizationId))[0].status).toBe('pending');
    // The last mail went 31 minutes ago: a new one may go at once, and its code verifies.
    expect((await send(admin, organizationId, { domain, email })).status).toBe(200);
    expect((await verify(admin, organizationId, domain, await latestCode(email))).status).toBe(200);
  });

  it('voids the code after five wrong codes; a new code verifies', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    await send(admin, organizationId, { domain, email });
    const code = await latestCode(email);
    const wrong = otherCode(code);
    for (let left = 4; left >= 1; left--) {
      const res = await verify(admin, organizationId, domain, wrong);
      expect(res).toMatchObject({
        status: 400,
        body: { message: `Wrong code for ${domain}; ${left} attempt${left === 1 ? '' : 's'} left` },
      });
    }
    const fifth = await verify(admin, organizationId, domain, wrong);
    const voided = `The code for ${domain} is void after 5 wrong attempts; request a new code`;
    expect(fifth).toMatchObject({ status: 400, body: { message: voided } });
    const right = await verify(admin, organizationId, domain, code);
    expect(right).toMatchObject({ status: 400, body: { message: voided } });
    expect((await domains(admin, organizationId))[0].status).toBe('pending');
    await sendAt(admin, organizationId, domain, email, new Date(Date.now() + 61_000));
    expect((await verify(admin, organizationId, domain, await latestCode(email))).status).toBe(200);
  });

  it('counts at most five wrong attempts when guesses race', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    await send(admin, organizationId, { domain, email });
    const code = await latestCode(email);
    const guesses = Array.from({ length: 12 }, (_, i) =>
      String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'),
    );
    const answers = await Promise.all(guesses.map((g) => verify(admin, organizationId, domain, g)));
    expect(answers.every((a) => a.status === 400)).toBe(true);
    const item = await getItem(keys.orgDomain(organizationId, domain));
    expect(item?.attempts).toBe(5);
    expect((await verify(admin, organizationId, domain, code)).status).toBe(400);
  });

  it('stores the code only as a salted hash: no item holds the plain code', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    await send(admin, organizationId, { domain, email });
    const code = await latestCode(email);
    const item = await getItem(keys.orgDomain(organizationId, domain));
    expect(item).toMatchObject({ codeHash: expect.any(String), codeSalt: expect.any(String), attempts: 0 });
    // Every partition the mail route writes or could write: the organization's (its domain items),
    // the domain's claim and the admin's (notifications). A whole-table scan of the shared test
    // table can outlast the test's time limit late in a suite.
    const partitions = await Promise.all(
      [keys.organization(organizationId), keys.domainClaim(domain), keys.user(admin.id)].map(({ pk }) =>
        queryAll({ pk }),
      ),
    );
    expect(partitions[0]?.length).toBeGreaterThan(0);
    const holding = partitions.flat().filter((i) => JSON.stringify(i).includes(code));
    expect(holding).toEqual([]);
  });

  it('puts the code back when the mail cannot be sent (503), so a retry may go at once', async () => {
    const { admin, organizationId, domain, email } = await orgWithDomain();
    useMailTransport({
      send: async () => {
        throw new ServiceUnavailableError('The mail could not be sent; retry later', 5);
      },
    });
    const failed = await send(admin, organizationId, { domain, email });
    expect(failed).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(await getItem(keys.orgDomain(organizationId, domain))).not.toHaveProperty('codeHash');
    useMailTransport(undefined);
    expect((await send(admin, organizationId, { domain, email })).status).toBe(200);
  });

  it('lets one organization only hold a domain verified', async () => {
    const a = await orgWithDomain();
    const b = { admin: await newUser(), organizationId: '' };
    b.organizationId = await newOrg(b.admin, 'Other');
    // B adds it while pending (allowed), then A verifies it first.
    expect((await addDomain(b.admin, b.organizationId, a.domain)).status).toBe(201);
    await send(a.admin, a.organizationId, { domain: a.domain, email: a.email });
    expect((await verify(a.admin, a.organizationId, a.domain, await latestCode(a.email))).status).toBe(200);
    const bEmail = `b@${a.domain}`;
    await send(b.admin, b.organizationId, { domain: a.domain, email: bEmail });
    const lost = await verify(b.admin, b.organizationId, a.domain, await latestCode(bEmail));
    expect(lost).toMatchObject({
      status: 409,
      body: { message: `Domain ${a.domain} is verified by another organization` },
    });
    const c = await newUser();
    const cOrg = await newOrg(c, 'Third');
    expect((await addDomain(c, cOrg, a.domain)).status).toBe(409);
    // A removes it: the claim is released, C may add it.
    const del = await call('delete-organization-domain', {
      token: a.admin.auth,
      params: { organizationId: a.organizationId, domain: a.domain },
    });
    expect(del.status).toBe(200);
    expect(await getItem(keys.domainClaim(a.domain))).toBeUndefined();
    expect((await addDomain(c, cOrg, a.domain)).status).toBe(201);
  });
});
