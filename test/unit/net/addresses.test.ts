/**
 * The one outbound address policy (shared/net/addresses.ts), which webhook targets and
 * `uploadAttachment`'s `fileUrl` both follow: a table of address classes, each with addresses the
 * class holds (refused, in every stage) and its public neighbours just outside it (allowed).
 */
import { describe, expect, it } from 'vitest';
import { type AddressKind, classifyAddress, isPublicAddress, refusedAddress } from '#shared/net/addresses.ts';

const cloud = { allowLoopback: false };
const local = { allowLoopback: true };

/** [class, what it is, addresses of the class, public addresses next to it] */
const CLASSES: [AddressKind, string, string[], string[]][] = [
  ['this-network', '0.0.0.0/8', ['0.0.0.0', '0.1.2.3', '0.255.255.255'], ['1.0.0.0']],
  [
    'private',
    '10/8, 172.16/12, 192.168/16',
    ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.0.1', '192.168.255.255'],
    ['9.255.255.255', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.1'],
  ],
  [
    'shared',
    'carrier-grade NAT 100.64/10',
    ['100.64.0.1', '100.127.255.255'],
    ['100.63.255.255', '100.128.0.0'],
  ],
  ['loopback', '127/8 and ::1', ['127.0.0.1', '127.255.255.254', '::1'], ['126.255.255.255', '128.0.0.0']],
  [
    'link-local',
    '169.254/16 (the metadata service), fe80::/10',
    ['169.254.169.254', '169.254.0.1', 'fe80::1', 'febf::1', 'fe80::1%eth0'],
    ['169.253.255.255', '169.255.0.0'],
  ],
  [
    'ietf-protocol',
    '192.0.0/24, 2001::/23',
    ['192.0.0.1', '192.0.0.255', '2001:10::1', '2001:1ff::1'],
    ['192.0.1.0'],
  ],
  [
    'documentation',
    '192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20',
    [
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.255',
      '2001:db8::1',
      '2001:db8:ffff::1',
      '3fff::1',
      '3fff:fff::1',
    ],
    ['192.0.3.0', '198.51.101.0', '203.0.114.0', '2001:db9::1', '3fff:1000::1'],
  ],
  [
    'benchmarking',
    '198.18/15, 2001:2::/48',
    ['198.18.0.1', '198.19.255.255', '2001:2::1'],
    ['198.17.255.255', '198.20.0.0'],
  ],
  [
    'multicast',
    '224/4, ff00::/8',
    ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1'],
    ['223.255.255.255'],
  ],
  ['broadcast', '255.255.255.255', ['255.255.255.255'], []],
  [
    'reserved',
    '240/4, the 6to4 relay 192.88.99/24, and IPv6 outside 2000::/3',
    [
      '240.0.0.1',
      '255.255.255.254',
      '192.88.99.1',
      '1::1',
      '4000::1',
      '5f00::1',
      'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ],
    ['192.88.98.255', '192.88.100.0', '2000::1', '3ffe::1'],
  ],
  ['unspecified', '::', ['::', '0:0:0:0:0:0:0:0'], []],
  [
    'unique-local',
    'fc00::/7 (the IPv6 metadata service fd00:ec2::254)',
    ['fc00::1', 'fd00:ec2::254', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    [],
  ],
  ['site-local', 'fec0::/10 (deprecated)', ['fec0::1', 'feff::1'], []],
  ['discard', '100::/64', ['100::1', '100::ffff:ffff:ffff:ffff'], []],
  [
    'ipv4-compatible',
    '::/96 (deprecated), whatever it embeds',
    ['::7f00:1', '::a9fe:a9fe', '::a00:1', '::8.8.8.8', '::127.0.0.1'],
    [],
  ],
  [
    'ipv4-translated',
    '::ffff:0:0:0/96, whatever it embeds',
    ['::ffff:0:a9fe:a9fe', '::ffff:0:808:808', '::ffff:0:8.8.8.8'],
    [],
  ],
  [
    '6to4',
    '2002::/16, whatever it embeds',
    ['2002:a9fe:a9fe::1', '2002:a00:1::1', '2002:808:808::1'],
    ['2003::1'],
  ],
  ['teredo', '2001::/32', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'], ['2001:4860:4860::8888']],
  ['local-nat64', '64:ff9b:1::/48, whatever it embeds', ['64:ff9b:1::a9fe:a9fe', '64:ff9b:1::808:808'], []],
];

/** IPv6 forms judged by the IPv4 address a connection through them reaches: [address, its IPv4, class]. */
const CARRIED: [string, string, AddressKind][] = [
  ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
  ['::ffff:a9fe:a9fe', '169.254.169.254', 'link-local'],
  ['::ffff:169.254.169.254', '169.254.169.254', 'link-local'],
  ['::ffff:10.0.0.1', '10.0.0.1', 'private'],
  ['::ffff:a00:1', '10.0.0.1', 'private'],
  ['::ffff:192.168.1.1', '192.168.1.1', 'private'],
  ['::ffff:100.64.0.1', '100.64.0.1', 'shared'],
  ['::ffff:192.0.2.1', '192.0.2.1', 'documentation'],
  ['64:ff9b::10.0.0.1', '10.0.0.1', 'private'],
  ['64:ff9b::a00:1', '10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'link-local'],
  ['64:ff9b::7f00:1', '127.0.0.1', 'loopback'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
];

describe('the outbound address policy', () => {
  describe.each(CLASSES)('%s (%s)', (kind, _, members, neighbours) => {
    it.each(members)('%s is of the class, refused in every stage', (address) => {
      expect(classifyAddress(address).kind).toBe(kind);
      expect(isPublicAddress(address)).toBe(false);
      expect(refusedAddress(address, cloud)).toMatch(/, not a public address$/);
      if (kind !== 'loopback') expect(refusedAddress(address, local)).toBeDefined();
    });

    if (neighbours.length)
      it.each(neighbours)('%s, next to it, is public', (address) => {
        expect(classifyAddress(address)).toEqual({ kind: 'public' });
        expect(refusedAddress(address, cloud)).toBeUndefined();
      });
  });

  it.each(CARRIED)('%s carries %s and is judged by it (%s)', (address, embedded, kind) => {
    expect(classifyAddress(address)).toMatchObject({ kind, embedded });
    expect(refusedAddress(address, cloud)).toBeDefined();
  });

  it.each(PUBLIC)('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(refusedAddress(address, cloud)).toBeUndefined();
    expect(refusedAddress(address, local)).toBeUndefined();
  });

  it.each([
    'localhost',
    'example.com',
    '',
    '0x7f000001',
    '127.1',
    '010.0.0.1',
    '1.2.3.4.5',
    '::ffff:1.2.3',
    'fe80::1::2',
  ])('%j is not an address (names are resolved first; the policy judges addresses only)', (text) => {
    expect(classifyAddress(text)).toEqual({ kind: 'not-an-address' });
    expect(refusedAddress(text, local)).toBe(`${text} is not an IP address`);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    // loopback only where the socket itself talks to this machine: not through a gateway or relay
    ['64:ff9b::7f00:1', false],
    ['::7f00:1', false],
    ['::ffff:0:7f00:1', false],
    ['2002:7f00:1::1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['169.254.169.254', false],
    ['fd00::1', false],
  ])(
    'in local mode %s is allowed: %s (loopback, for receivers on the developer’s machine)',
    (address, allowed) => {
      expect(refusedAddress(address, local) === undefined).toBe(allowed);
      expect(refusedAddress(address, cloud)).toBeDefined();
    },
  );

  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address, not a public address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address, not a public address'],
    [
      '::ffff:a9fe:a9fe',
      '::ffff:a9fe:a9fe is an IPv4-mapped form of 169.254.169.254, a link-local address, not a public address',
    ],
    ['64:ff9b::a00:1', '64:ff9b::a00:1 is a NAT64 form of 10.0.0.1, a private address, not a public address'],
    ['2002:a9fe:a9fe::1', '2002:a9fe:a9fe::1 is a 6to4 address (of 169.254.169.254), not a public address'],
    [
      '::a9fe:a9fe',
      '::a9fe:a9fe is a deprecated IPv4-compatible address (of 169.254.169.254), not a public address',
    ],
    ['fe80::1%eth0', 'fe80::1 is a link-local address, not a public address'],
    ['100.64.0.1', '100.64.0.1 is a shared (carrier-grade NAT) address, not a public address'],
  ])('says why %s is refused', (address, why) => {
    expect(refusedAddress(address, cloud)).toBe(why);
  });
});
