/**
 * Fetching a file the caller names by URL (`uploadAttachment` with `fileUrl`), without letting
 * the service be used against the network it runs in (SSRF): `https` only in a deployed stage;
 * every address the name resolves to must be public (no loopback, private, link-local, carrier-
 * grade NAT, multicast or metadata range), checked on the very connection that is made (the
 * resolved address is the one connected to, so a name cannot resolve elsewhere the second time),
 * on every redirect too; loopback is allowed in local mode only, so a developer can fetch from
 * their own machine. Bounded: 10 s to the answer's headers, 20 s in all, `maxBytes` at most.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector, fetch } from 'undici';
import { PayloadTooLargeError, ValidationError } from '#shared/core/errors.ts';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['fec0::', 10],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2002::', 16],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Whether the service may connect to an address (loopback too when `allowLoopback`). Pure. */
export const isAllowedAddress = (address: string, allowLoopback: boolean): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (allowLoopback && loopback.check(address, type)) return true;
  return !blocked.check(address, type);
};

const refused = (what: string) =>
  Object.assign(new Error(`address not allowed: ${what}`), { code: 'EADDRNOTALLOWED' });

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

const agentFor = (allowLoopback: boolean): Agent => {
  const lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find((a) => !isAllowedAddress(a.address, allowLoopback));
      if (bad || addresses.length === 0)
        return callback(refused(`${hostname} (${bad?.address ?? 'none'})`), []);
      const [first] = addresses as [LookupAddress];
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
  const connector = buildConnector({ lookup: lookup as never, timeout: 5_000 });
  return new Agent({
    connect(options, callback) {
      // an address written in the URL is never looked up: checked here (redirects included)
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !isAllowedAddress(host, allowLoopback)) return callback(refused(host), null);
      return connector(options, callback);
    },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
};

const agents = new Map<boolean, Agent>();

/** The bytes at `url`, its type and a name for it; a clear 400 (or 413) for anything refused or failed. */
export const fetchFile = async (
  url: string,
  options: { deployed: boolean; maxBytes: number },
): Promise<{ bytes: Buffer; mimeType: string; filename: string }> => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('Invalid fileUrl: not a URL');
  }
  const schemes = options.deployed ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(parsed.protocol))
    throw new ValidationError(
      `Invalid fileUrl: only ${schemes.map((s) => s.slice(0, -1)).join(' or ')} URLs are fetched`,
    );
  const allowLoopback = !options.deployed;
  let agent = agents.get(allowLoopback);
  if (!agent) {
    agent = agentFor(allowLoopback);
    agents.set(allowLoopback, agent);
  }
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(parsed, { dispatcher: agent, redirect: 'follow', signal: AbortSignal.timeout(20_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'EADDRNOTALLOWED')
      throw new ValidationError('Invalid fileUrl: it leads to an address this service does not fetch from');
    // undici's own refusals (a port fetch never uses, a redirect loop) have a message but no code
    throw new ValidationError(
      `Invalid fileUrl: it could not be fetched (${cause?.code ?? cause?.message ?? (error as Error).name})`,
    );
  }
  if (!res.ok) throw new ValidationError(`Invalid fileUrl: it answered ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > options.maxBytes) {
    await res.body?.cancel();
    throw new PayloadTooLargeError(
      `The file at fileUrl is ${declared} bytes; the limit is ${options.maxBytes} bytes`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > options.maxBytes)
        throw new PayloadTooLargeError(`The file at fileUrl is larger than ${options.maxBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new ValidationError('Invalid fileUrl: the download failed or took too long');
  }
  const segment = parsed.pathname.split('/').filter(Boolean).pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(segment) || 'file';
  } catch {
    // not valid percent-encoding (`%zz`): the name as written
    name = segment;
  }
  return {
    bytes: Buffer.concat(chunks),
    mimeType: res.headers.get('content-type')?.split(';')[0]?.trim() || 'application/octet-stream',
    filename: name,
  };
};
