/**
 * Connections the service opens on a caller's behalf, held to the one address policy
 * (`addresses.ts`): a host written as an address is checked as written; a name is resolved and
 * every address it resolves to is checked, on the very connection that is made (`guardedLookup`
 * is the socket's `lookup`, so the address checked is the address connected to, and a name that
 * resolves elsewhere the second time — DNS rebinding — is refused then). Webhook deliveries
 * (`node:http`) and `fileUrl` fetches (undici) both connect through it. No AWS.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressPolicy, refusedAddress } from './addresses.ts';

/** The `code` of the error a connection fails with when the policy refuses where it would go. */
export const REFUSED_ADDRESS = 'EREFUSEDADDRESS';

/** An error as a socket's: the reason, and the code that says it is the policy's refusal. */
export const refusal = (why: string): NodeJS.ErrnoException =>
  Object.assign(new Error(why), { code: REFUSED_ADDRESS });

/** The host of a URL as an address or a name (an IPv6 address without its brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why the service may not connect to a host (an address, or a name and every address it resolves
 * to), or undefined when it may. Asked before a connection to say why early (a webhook's URL at
 * creation); the connection itself is checked again (`guardedLookup`).
 */
export const hostProblem = async (host: string, policy: AddressPolicy): Promise<string | undefined> => {
  if (isIP(host)) return refusedAddress(host, policy);
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookupAll(host, { all: true, verbatim: true });
  } catch {
    return `its host ${host} does not resolve`;
  }
  if (!addresses.length) return `its host ${host} does not resolve`;
  for (const { address } of addresses) {
    const why = refusedAddress(address, policy);
    if (why) return `its host ${host} resolves to a refused address: ${why}`;
  }
  return undefined;
};

/**
 * A socket `lookup` (for `http.request`, `net.connect`, undici's connector) that resolves a name
 * and fails, with a `REFUSED_ADDRESS` error, when any address it answers is refused. A socket never
 * looks up an address written as one: check those with `refusedAddress` before connecting.
 */
export const guardedLookup =
  (policy: AddressPolicy): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = found.filter((a) => family === 0 || a.family === family);
      const why = found.map((a) => refusedAddress(a.address, policy)).find((w) => w !== undefined);
      const first = usable[0];
      if (why !== undefined)
        return callback(refusal(`${hostname} resolves to a refused address: ${why}`), '', 0);
      if (!first) return callback(refusal(`${hostname} does not resolve to an IPv${family} address`), '', 0);
      if (options.all) return callback(null, usable);
      return callback(null, first.address, first.family);
    });
  };
