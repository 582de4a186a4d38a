/**
 * The SSRF guard of `uploadAttachment`'s `fileUrl` (shared/attachments/fetch-url.ts), which
 * follows the one outbound address policy (its classes: test/unit/net/addresses.test.ts):
 * `fetchFile`'s refusals that need no network (a deployed stage: https only, no loopback, whether
 * written in the URL or resolved from a name), plus its size limit and failures against a loopback
 * server of the test's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFile } from '#shared/attachments/fetch-url.ts';

const REFUSED_ADDRESS = {
  status: 400,
  code: 'validation_error',
  message: 'Invalid fileUrl: it leads to an address this service does not fetch from',
};

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
    // the one outbound policy (shared/net/addresses.ts), as webhooks have it
    ['a documentation address (TEST-NET-1)', 'https://192.0.2.1/'],
    ['a documentation address (IPv6)', 'https://[2001:db8::1]/'],
    ['an IPv4-translated metadata address', 'https://[::ffff:0:a9fe:a9fe]/'],
    ['a local-use NAT64 address', 'https://[64:ff9b:1::a9fe:a9fe]/'],
    ['a Teredo address', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
    ['a discard-only address', 'https://[100::1]/'],
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
