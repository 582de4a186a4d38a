/**
 * The SSRF guard of `uploadAttachment`'s `fileUrl` (shared/attachments/fetch-url.ts): which
 * addresses the service connects to, on plain data; and `fetchFile`'s refusals that need no
 * network (a deployed stage: https only, no loopback, whether written in the URL or resolved from
 * a name), plus its size limit and failures against a loopback server of the test's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFile, isAllowedAddress } from '#shared/attachments/fetch-url.ts';

const REFUSED_ADDRESS = {
  status: 400,
  code: 'validation_error',
  message: 'Invalid fileUrl: it leads to an address this service does not fetch from',
};

describe('isAllowedAddress', () => {
  // [address, allowed, allowed with allowLoopback]
  it.each<[string, boolean, boolean]>([
    // public
    ['8.8.8.8', true, true],
    ['1.1.1.1', true, true],
    ['2606:4700::1111', true, true],
    ['::ffff:8.8.8.8', true, true],
    // loopback: only with allowLoopback (the local stage)
    ['127.0.0.1', false, true],
    ['127.255.255.254', false, true],
    ['::1', false, true],
    ['::ffff:127.0.0.1', false, true],
    // "this network", unspecified
    ['0.0.0.0', false, false],
    ['0.1.2.3', false, false],
    ['::', false, false],
    // private (RFC 1918) and their edges
    ['10.0.0.1', false, false],
    ['10.255.255.255', false, false],
    ['11.0.0.0', true, true],
    ['172.16.0.1', false, false],
    ['172.31.255.255', false, false],
    ['172.15.255.255', true, true],
    ['172.32.0.0', true, true],
    ['192.168.0.1', false, false],
    ['192.168.255.255', false, false],
    ['192.169.0.1', true, true],
    // carrier-grade NAT 100.64.0.0/10
    ['100.64.0.1', false, false],
    ['100.127.255.255', false, false],
    ['100.63.255.255', true, true],
    ['100.128.0.0', true, true],
    // link-local and the metadata address
    ['169.254.169.254', false, false],
    ['169.254.0.1', false, false],
    ['169.253.255.255', true, true],
    // IETF protocol assignments, benchmarking, multicast, reserved, broadcast
    ['192.0.0.1', false, false],
    ['198.18.0.1', false, false],
    ['198.19.255.255', false, false],
    ['224.0.0.1', false, false],
    ['239.255.255.250', false, false],
    ['240.0.0.1', false, false],
    ['255.255.255.255', false, false],
    // IPv4-mapped IPv6 of refused IPv4 addresses, dotted and in hex
    ['::ffff:10.0.0.1', false, false],
    // IPv4-compatible (deprecated) and site-local (deprecated) addresses are refused too
    ['::7f00:1', false, false],
    ['::a00:1', false, false],
    ['fec0::1', false, false],
    ['::ffff:a00:1', false, false],
    ['::ffff:169.254.169.254', false, false],
    ['::ffff:192.168.1.1', false, false],
    ['::ffff:100.64.0.1', false, false],
    // unique local fc00::/7, link-local fe80::/10, multicast
    ['fc00::1', false, false],
    ['fd12:3456:789a::1', false, false],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false, false],
    ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, true],
    ['fe80::1', false, false],
    ['febf::1', false, false],
    ['ff02::1', false, false],
    // IPv6 forms that embed an IPv4 address: NAT64, 6to4
    ['64:ff9b::a00:1', false, false],
    ['2002:a00:1::1', false, false],
    // not an address at all (a name is resolved first; the guard sees addresses only)
    ['localhost', false, false],
    ['example.com', false, false],
    ['', false, false],
    ['0x7f000001', false, false],
    ['127.1', false, false],
  ])('%s: allowed %s, with loopback allowed %s', (address, allowed, withLoopback) => {
    expect(isAllowedAddress(address, false)).toBe(allowed);
    expect(isAllowedAddress(address, true)).toBe(withLoopback);
  });
});

describe('fetchFile in a deployed stage', () => {
  const deployed = { deployed: true, maxBytes: 1024 };

  it('refuses http (400) before any connection: https only', async () => {
    await expect(fetchFile('http://example.com/file.txt', deployed)).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'Invalid fileUrl: only https URLs are fetched',
    });
  });

  it.each([
    // port 2: no listener, and not one of the ports fetch refuses to use (1 is: "bad port")
    ['loopback written in the URL', 'https://127.0.0.1:2/'],
    ['IPv6 loopback written in the URL', 'https://[::1]:2/'],
    ['IPv4-mapped loopback written in the URL', 'https://[::ffff:127.0.0.1]:2/'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['a private address', 'https://10.0.0.1/'],
    ['a name that resolves to loopback (localhost)', 'https://localhost:2/'],
  ])('refuses %s (400) at connect time, before any request', async (_, url) => {
    await expect(fetchFile(url, deployed)).rejects.toMatchObject(REFUSED_ADDRESS);
  });

  it.each([
    ['ftp', 'ftp://example.com/file.txt'],
    ['file', 'file:///etc/passwd'],
    ['data', 'data:text/plain,hello'],
  ])('refuses the %s scheme (400)', async (_, url) => {
    await expect(fetchFile(url, deployed)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid fileUrl: only https URLs are fetched',
    });
  });

  it('refuses what is not a URL (400)', async () => {
    await expect(fetchFile('not a url', deployed)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid fileUrl: not a URL',
    });
  });
});

describe('fetchFile locally (http and loopback allowed), against a loopback server', () => {
  const LIMIT = 10;
  const local = { deployed: false, maxBytes: LIMIT };
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/declared-too-large') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(LIMIT + 1) });
        res.end('x'.repeat(LIMIT + 1));
      } else if (req.url === '/chunked-too-large') {
        // no Content-Length: the limit is counted on the bytes as they come
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(LIMIT));
        res.end('y');
      } else if (req.url === '/exactly') {
        res.writeHead(200, { 'content-type': 'Text/Plain; charset=utf-8' });
        res.end('x'.repeat(LIMIT));
      } else if (req.url === '/cut') {
        // the connection drops halfway through the promised body
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '8' });
        res.write('half', () => res.destroy());
      } else if (req.url === '/loop') {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else if (req.url === '/') {
        res.writeHead(200);
        res.end('root');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it('answers the bytes at the limit, the type without its parameters and the name from the path', async () => {
    const file = await fetchFile(`${base}/exactly`, local);

    expect(file).toEqual({
      bytes: Buffer.from('x'.repeat(LIMIT)),
      mimeType: 'Text/Plain',
      filename: 'exactly',
    });
  });

  it('names a file at the root `file` and types a file served without a type application/octet-stream', async () => {
    const file = await fetchFile(`${base}/`, local);

    expect(file).toEqual({
      bytes: Buffer.from('root'),
      mimeType: 'application/octet-stream',
      filename: 'file',
    });
  });

  it('refuses a declared Content-Length over the limit (413) without reading the body', async () => {
    await expect(fetchFile(`${base}/declared-too-large`, local)).rejects.toMatchObject({
      status: 413,
      code: 'payload_too_large',
      message: `The file at fileUrl is ${LIMIT + 1} bytes; the limit is ${LIMIT} bytes`,
    });
  });

  it('refuses a body without Content-Length once it passes the limit (413)', async () => {
    await expect(fetchFile(`${base}/chunked-too-large`, local)).rejects.toMatchObject({
      status: 413,
      code: 'payload_too_large',
      message: `The file at fileUrl is larger than ${LIMIT} bytes`,
    });
  });

  it('reports a body cut short (400)', async () => {
    await expect(fetchFile(`${base}/cut`, local)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid fileUrl: the download failed or took too long',
    });
  });

  it('refuses an answer that is not a success (400)', async () => {
    await expect(fetchFile(`${base}/missing`, local)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid fileUrl: it answered 404',
    });
  });

  it('reports a refused connection (400, the cause named)', async () => {
    await expect(fetchFile('http://127.0.0.1:2/', local)).rejects.toMatchObject({
      status: 400,
      message: 'Invalid fileUrl: it could not be fetched (ECONNREFUSED)',
    });
  });

  it.each([
    ['a port fetch never uses', 'http://127.0.0.1:1/', 'bad port'],
    ['a redirect loop', '/loop', 'redirect count exceeded'],
  ])('reports %s (400, the reason named)', async (_, url, reason) => {
    await expect(fetchFile(url.startsWith('/') ? `${base}${url}` : url, local)).rejects.toMatchObject({
      status: 400,
      message: `Invalid fileUrl: it could not be fetched (${reason})`,
    });
  });

  it('still refuses private and metadata addresses (400)', async () => {
    await expect(fetchFile('http://169.254.169.254/', local)).rejects.toMatchObject(REFUSED_ADDRESS);
    await expect(fetchFile('http://[fd00::1]/', local)).rejects.toMatchObject(REFUSED_ADDRESS);
  });
});
