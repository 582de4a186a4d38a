import { describe, expect, it } from 'vitest';
import { addressProblem, forbiddenAddress, safeLookup, urlProblem } from '#shared/webhooks/targets.ts';

const cloud = { local: false };
const local = { local: true };

describe('webhook targets (SSRF)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback (IPv6)'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'link-local: the metadata service'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local (IPv6)'],
    ['fd00:ec2::254', 'unique local: the metadata service over IPv6'],
    ['fc00::1', 'unique local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified (IPv6)'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast (IPv6)'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmarking'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, in hex'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
  ])('refuses %s (%s)', (address) => {
    expect(forbiddenAddress(address, false)).toMatch(/loopback, private, link-local or reserved/);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(forbiddenAddress(address, false)).toBeUndefined();
    },
  );

  it('allows loopback in local mode only, and nothing else private there either', () => {
    expect(forbiddenAddress('127.0.0.1', true)).toBeUndefined();
    expect(forbiddenAddress('::1', true)).toBeUndefined();
    expect(forbiddenAddress('10.0.0.1', true)).toBeDefined();
    expect(forbiddenAddress('169.254.169.254', true)).toBeDefined();
  });

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
    expect(forbiddenAddress(allowed.address, true)).toBeUndefined();
  });
});
