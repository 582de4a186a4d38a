/**
 * Where a webhook may deliver (data-flow.md 4, SSRF): `https` in deployed stages (`http` too in
 * local mode), and never to an address inside a network — loopback, private, shared (CGNAT),
 * link-local (the cloud's metadata service), multicast, reserved, unspecified — whether the URL
 * names it or a hostname resolves to it (every address it resolves to is checked). Local mode
 * allows loopback, so a developer receives on their own machine. Checked when a webhook is
 * created or its URL changed, and again on every delivery, where the connection goes only to the
 * address just checked (`safeLookup`): a name that resolves elsewhere later is refused then.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Address ranges no delivery may reach. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local (AWS's IPv6 metadata fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['100::', 64], // discard
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), if any. Pure. */
const embeddedIpv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const [hi, lo] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
};

/**
 * Why an address may not be delivered to, or undefined when it may. `allowLoopback`: local mode.
 * Pure.
 */
export const forbiddenAddress = (address: string, allowLoopback: boolean): string | undefined => {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  const [checked, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  if (allowLoopback && LOOPBACK.check(checked, type)) return undefined;
  return FORBIDDEN.check(checked, type)
    ? `${address} is a loopback, private, link-local or reserved address`
    : undefined;
};

export interface TargetRules {
  /** Local mode: `http` and loopback allowed. */
  local: boolean;
}

/** Why a URL may not be a webhook's target, before any lookup (scheme, form); undefined when it may. Pure. */
export const urlProblem = (url: string, rules: TargetRules): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http(s) URL';
  if (parsed.protocol === 'http:' && !rules.local)
    return 'must be an https URL (http is allowed in local mode only)';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  return undefined;
};

const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Every address the URL's host resolves to, checked: answers why one is refused (or the name does
 * not resolve), or undefined when all may be reached.
 */
export const addressProblem = async (url: string, rules: TargetRules): Promise<string | undefined> => {
  const host = hostOf(new URL(url));
  let addresses: string[];
  try {
    addresses = isIP(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `its host ${host} does not resolve`;
  }
  for (const address of addresses) {
    const why = forbiddenAddress(address, rules.local);
    if (why) return host === address ? why : `its host ${host} resolves to ${why}`;
  }
  return undefined;
};

/**
 * A `lookup` for `http.request` that resolves the name and refuses, as a connection error, any
 * address `forbiddenAddress` refuses: the connection goes to the address checked, never to one a
 * second resolution answers.
 */
export const safeLookup =
  (rules: TargetRules): LookupFunction =>
  (hostname, options, callback) => {
    lookup(hostname, { all: true, verbatim: true })
      .then((found) => {
        const family = typeof options === 'object' && options.family ? options.family : 0;
        const usable = found.filter((a) => family === 0 || a.family === family);
        const refused = usable.map((a) => forbiddenAddress(a.address, rules.local)).find((w) => w);
        const first = usable[0];
        if (refused || !first) {
          const error = Object.assign(new Error(refused ?? `${hostname} does not resolve`), {
            code: 'EREFUSEDADDRESS',
          });
          return callback(error, '', 0);
        }
        if (typeof options === 'object' && options.all)
          return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
            null,
            usable,
          );
        return callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
