import { describe, expect, it } from 'vitest';
import { refusedAddress } from '#shared/net/addresses.ts';
import { addressProblem, safeLookup, urlProblem } from '#shared/webhooks/targets.ts';

const cloud = { local: false };
const local = { local: true };

/**
 * Webhook targets (SSRF): the URL's form, and its host checked by the one outbound address policy
 * (its classes are tested in test/unit/net/addresses.test.ts), at creation and on the connection.
 */
describe('webhook targets (SSRF)', () => {
  it('wants https in deployed stages, http(s) locally, an absolute URL without credentials', () => {
    expect(urlProblem('https://hooks.example.com/x', cloud)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/x', cloud)).toMatch(/https/);
    expect(urlProblem('http://127.0.0.1:8080/x', local)).toBeUndefined();
    expect(urlProblem('ftp://example.com/', local)).toMatch(/http\(s\)/);
    expect(urlProblem('/relative', local)).toMatch(/absolute/);
    expect(urlProblem('https://user:pw@example.com/', cloud)).toMatch(/password/);
  });

  it('checks every address a host name resolves to: localhost is loopback, refused but in local mode', async () => {
    expect(await addressProblem('https://localhost/hook', cloud)).toMatch(/localhost resolves to .*loopback/);
    expect(await addressProblem('http://localhost:9/hook', local)).toBeUndefined();
    expect(await addressProblem('https://169.254.169.254/latest/meta-data', cloud)).toMatch(/link-local/);
    expect(await addressProblem('https://[::1]/x', cloud)).toMatch(/loopback/);
    expect(await addressProblem('https://no-such-host.invalid/x', cloud)).toMatch(/does not resolve/);
  });

  it.each([
    'http://[::a9fe:a9fe]/',
    'http://[::7f00:1]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[64:ff9b:1::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[fec0::1]/',
    'http://192.0.2.1/',
  ])('refuses %s by the one address policy, in local mode too', async (url) => {
    expect(await addressProblem(url, local)).toMatch(/, not a public address$/);
    expect(await addressProblem(url, cloud)).toMatch(/, not a public address$/);
  });

  it('resolves at connection time through a lookup that refuses a forbidden answer (what http.request uses)', async () => {
    const lookupWith = (rules: { local: boolean }) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: string }>((resolve) =>
        safeLookup(rules)('localhost', { family: 0 }, (error, address) =>
          resolve({ error, address: String(address) }),
        ),
      );
    const refused = await lookupWith(cloud);
    expect(refused.error).toMatchObject({
      code: 'EREFUSEDADDRESS',
      message: expect.stringMatching(/loopback/),
    });
    const allowed = await lookupWith(local);
    expect(allowed.error).toBeNull();
    expect(refusedAddress(allowed.address, { allowLoopback: true })).toBeUndefined();
  });
});
