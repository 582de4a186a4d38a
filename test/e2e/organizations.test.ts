import { describe, expect, it } from 'vitest';
import { randomBase62 } from '#shared/ids.ts';
import { createUser } from '#shared/users/users.ts';
import { latestCode, mailsTo } from '#test/support/outbox.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe('organizations and domain verification over HTTP', () => {
  it('creates an organization, adds a domain, mails a code to the outbox, verifies it with that code', async () => {
    const domain = `e2e${randomBase62(8).toLowerCase()}.example.test`;
    const user = await createUser({ name: 'Grace', email: `grace@${domain}` });
    const token = `Bearer ${user.token}`;

    const org = await api.request('POST', '/enterprise', { token, body: { name: 'Hopper Inc' } });
    expect(org).toMatchObject({ status: 201, body: { name: 'Hopper Inc' } });
    const base = `/enterprise/${org.body.id}/domain-verification`;

    const added = await api.request('POST', base, { token, body: { domain: domain.toUpperCase() } });
    expect(added).toMatchObject({ status: 201, body: { domain, status: 'pending' } });

    const sent = await api.request('POST', `${base}/send-verification-email`, { token, body: { domain } });
    expect(sent).toMatchObject({ status: 200, body: { domain, sentTo: `grace@${domain}` } });
    const again = await api.request('POST', `${base}/send-verification-email`, { token, body: { domain } });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);

    const mails = await mailsTo(`grace@${domain}`);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toContain(domain);
    const code = await latestCode(`grace@${domain}`);

    const wrong = await api.request('POST', `${base}/verify`, {
      token,
      body: { domain, code: String((Number(code) + 1) % 1_000_000).padStart(6, '0') },
    });
    expect(wrong).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const verified = await api.request('POST', `${base}/verify`, { token, body: { domain, code } });
    expect(verified).toEqual(expect.objectContaining({ status: 200, body: { domain, status: 'verified' } }));

    const got = await api.request('GET', `/enterprise/${org.body.id}`, { token });
    expect(got.body).toMatchObject({
      id: org.body.id,
      name: 'Hopper Inc',
      domains: [{ domain, status: 'verified' }],
    });
    const listed = await api.request('GET', base, { token });
    expect(listed.body).toMatchObject([{ domain, status: 'verified' }]);
    const unread = await api.request('GET', '/notifications/unread-count', { token });
    expect(unread.body).toEqual({ unreadCount: 1 });

    const removed = await api.request('DELETE', `${base}/${domain}`, { token });
    expect(removed.status).toBe(200);
    expect((await api.request('GET', base, { token })).body).toEqual([]);
    expect((await api.request('DELETE', `${base}/${domain}`, { token })).status).toBe(404);
  });
});
