/**
 * Fetching a file the caller names by URL (`uploadAttachment` with `fileUrl`), without letting
 * the service be used against the network it runs in (SSRF): `https` only in a deployed stage;
 * every address the name resolves to must be public by the one outbound address policy
 * (`shared/net/addresses.ts`, which webhooks follow too), checked on the very connection that is
 * made (`shared/net/outbound.ts`: the resolved address is the one connected to, so a name cannot
 * resolve elsewhere the second time), on every redirect too; loopback is allowed in local mode
 * only, so a developer can fetch from their own machine. Bounded: 10 s to the answer's headers,
 * 20 s in all, `maxBytes` at most.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch } from 'undici';
import { PayloadTooLargeError, ValidationError } from '#shared/core/errors.ts';
import { refusedAddress } from '#shared/net/addresses.ts';
import { guardedLookup, REFUSED_ADDRESS, refusal } from '#shared/net/outbound.ts';

const agentFor = (allowLoopback: boolean): Agent => {
  const policy = { allowLoopback };
  const connector = buildConnector({ lookup: guardedLookup(policy), timeout: 5_000 });
  return new Agent({
    connect(options, callback) {
      // an address written in the URL is never looked up: checked here (redirects included)
      const host = options.hostname.replace(/^\[|\]$/g, '');
      const why = isIP(host) ? refusedAddress(host, policy) : undefined;
      if (why) return callback(refusal(why), null);
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
    if (cause?.code === REFUSED_ADDRESS)
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
