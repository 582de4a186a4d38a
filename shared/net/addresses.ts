/**
 * The one address policy of every outbound request the service makes on a caller's behalf
 * (webhook deliveries, `uploadAttachment`'s `fileUrl`): which IP addresses are public, so that the
 * service cannot be aimed at the network it runs in (SSRF). Pure: no DNS, no socket.
 *
 * IPv4 follows IANA's special-purpose registry: "this network" 0/8, private 10/8, 172.16/12,
 * 192.168/16, shared (CGNAT) 100.64/10, loopback 127/8, link-local 169.254/16 (the metadata
 * service), IETF protocol assignments 192.0.0/24, documentation 192.0.2/24, 198.51.100/24,
 * 203.0.113/24, the deprecated 6to4 relay anycast 192.88.99/24, benchmarking 198.18/15, multicast
 * 224/4, reserved 240/4 and broadcast.
 *
 * IPv6: only global unicast (2000::/3) can be public, and within it Teredo, benchmarking, the IETF
 * protocol block (2001::/23), 6to4 (2002::/16: it hides an IPv4 address behind a relay) and the
 * documentation ranges are not. Two forms carry an IPv4 address a connection really reaches, and
 * are judged by it: IPv4-mapped `::ffff:a.b.c.d` (the socket talks IPv4) and the well-known NAT64
 * prefix `64:ff9b::/96` (a NAT64 gateway talks to it). The other forms that embed IPv4 addresses
 * — IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, local-use NAT64
 * `64:ff9b:1::/48` — are never public, whatever they embed. Unique local fc00::/7, link-local
 * fe80::/10, site-local fec0::/10, multicast ff00::/8, discard 100::/64 and everything else
 * outside 2000::/3 are refused by name or as reserved.
 */
import { isIP } from 'node:net';

/** What an address is, as far as reaching it goes. */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'ietf-protocol'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'site-local'
  | 'discard'
  | 'ipv4-compatible'
  | 'ipv4-translated'
  | '6to4'
  | 'teredo'
  | 'local-nat64'
  | 'not-an-address';

/** An address classified. `via`: an IPv6 form judged by the IPv4 address it carries (`embedded`). */
export interface AddressClass {
  kind: AddressKind;
  /** The IPv4 address an IPv6 form carries, when it carries one. */
  embedded?: string;
  via?: 'IPv4-mapped' | 'NAT64';
}

/** What the caller's stage allows beyond public addresses. */
export interface AddressPolicy {
  /** Local mode: loopback (127/8, ::1, and their IPv4-mapped form) may be reached. */
  allowLoopback: boolean;
}

type Range<T> = readonly [T, number, AddressKind];

// Most specific first: the first range that holds an address names it.
const V4_RANGES: readonly Range<string>[] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'ietf-protocol'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: readonly Range<string>[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'ipv4-compatible'],
  ['::ffff:0:0:0', 96, 'ipv4-translated'],
  ['64:ff9b:1::', 48, 'local-nat64'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'ietf-protocol'],
  ['2002::', 16, '6to4'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** An IPv4 address in dotted-quad form (already checked by `isIP`) as a 32-bit number. */
const v4Number = (address: string): number =>
  address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

const v4Text = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** An IPv6 address (already checked by `isIP`, zone left off) as a 128-bit number. */
const v6Number = (address: string): bigint => {
  let text = address.toLowerCase();
  // a trailing dotted quad is two groups
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4Number(quad[1] as string);
    text = `${text.slice(0, quad.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
};

const v4Table = V4_RANGES.map(([net, bits, kind]) => ({
  net: v4Number(net),
  mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0,
  kind,
}));
const V6_ALL = (1n << 128n) - 1n;
const v6Table = V6_RANGES.map(([net, bits, kind]) => ({
  net: v6Number(net),
  mask: (V6_ALL << BigInt(128 - bits)) & V6_ALL,
  kind,
}));

const classifyV4 = (n: number): AddressKind =>
  v4Table.find((r) => (n & r.mask) >>> 0 === r.net)?.kind ?? 'public';

const MAPPED = v6Number('::ffff:0:0');
const NAT64 = v6Number('64:ff9b::');
const LOW32 = 0xffffffffn;

/** What an IP address is (v4 or v6, in any form `net.isIP` accepts); `not-an-address` for anything else. Pure. */
export const classifyAddress = (address: string): AddressClass => {
  const family = isIP(address);
  if (family === 4) return { kind: classifyV4(v4Number(address)) };
  if (family !== 6) return { kind: 'not-an-address' };
  const n = v6Number(address.replace(/%.*$/, ''));
  const low = Number(n & LOW32);
  // the forms a connection really takes to the IPv4 address they carry: judged by it
  if (n >> 32n === MAPPED >> 32n) return { kind: classifyV4(low), embedded: v4Text(low), via: 'IPv4-mapped' };
  if (n >> 32n === NAT64 >> 32n) return { kind: classifyV4(low), embedded: v4Text(low), via: 'NAT64' };
  const kind = v6Table.find((r) => (n & r.mask) === r.net)?.kind;
  if (kind === 'ipv4-compatible' || kind === 'ipv4-translated') return { kind, embedded: v4Text(low) };
  if (kind === '6to4') return { kind, embedded: v4Text(Number((n >> 80n) & LOW32)) };
  if (kind) return { kind };
  // global unicast is 2000::/3; IANA has allocated nothing else
  return { kind: n >> 125n === 1n ? 'public' : 'reserved' };
};

/** Whether an address is public: one the service may reach in every stage. Pure. */
export const isPublicAddress = (address: string): boolean => classifyAddress(address).kind === 'public';

const WHAT: Record<Exclude<AddressKind, 'public' | 'not-an-address'>, string> = {
  unspecified: 'the unspecified address',
  'this-network': 'a "this network" address',
  loopback: 'a loopback address',
  private: 'a private address',
  shared: 'a shared (carrier-grade NAT) address',
  'link-local': 'a link-local address',
  'ietf-protocol': 'an IETF protocol assignment',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  'unique-local': 'a unique local address',
  'site-local': 'a deprecated site-local address',
  discard: 'a discard-only address',
  'ipv4-compatible': 'a deprecated IPv4-compatible address',
  'ipv4-translated': 'an IPv4-translated address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  'local-nat64': 'a local-use NAT64 address',
};

/**
 * Why the service may not connect to an address under a policy (loopback in local mode only), or
 * undefined when it may: `<address> is <what>, not a public address`. Pure.
 */
export const refusedAddress = (address: string, policy: AddressPolicy): string | undefined => {
  const found = classifyAddress(address);
  if (found.kind === 'public') return undefined;
  if (found.kind === 'not-an-address') return `${address} is not an IP address`;
  if (found.kind === 'loopback' && policy.allowLoopback && found.via !== 'NAT64') return undefined;
  const what = WHAT[found.kind];
  const shown = address.replace(/%.*$/, '');
  if (found.via)
    return `${shown} is ${found.via === 'NAT64' ? 'a' : 'an'} ${found.via} form of ${found.embedded}, ${what}, not a public address`;
  return `${shown} is ${what}${found.embedded ? ` (of ${found.embedded})` : ''}, not a public address`;
};
