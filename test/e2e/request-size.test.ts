import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10.5: the local server accepts the request line and headers API Gateway HTTP APIs accept
 * (10,240 bytes together) and answers anything larger with the contract's error body, never
 * Node's empty 431. Large batch deletes go in the body.
 */

/** API Gateway HTTP APIs' quota for the request line and header values together. */
const GATEWAY_MAX_REQUEST_LINE_AND_HEADERS = 10_240;

const api = useTestServer();
let port: number;
beforeAll(() => {
  port = Number(new URL(api.base).port);
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the body is whatever JSON the server answered
  body: any;
}

/**
 * Sends a request byte for byte (fetch adds headers of its own, so exact sizes need a socket) and
 * reads the answer of a `Connection: close` request.
 */
const rawRequest = (requestLine: string, headers: [string, string][]): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const head: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        head[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = text.slice(split + 4);
      if (head['transfer-encoding'] === 'chunked') {
        let out = '';
        for (let at = 0; ; ) {
          const eol = body.indexOf('\r\n', at);
          const size = Number.parseInt(body.slice(at, eol), 16);
          if (!size) break;
          out += body.slice(eol + 2, eol + 2 + size);
          at = eol + 2 + size + 2;
        }
        body = out;
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: head,
        body: body ? JSON.parse(body) : undefined,
      });
    });
    socket.write(`${requestLine}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`);
  });

/** Bytes the gateway's limit counts: the request line and every header name and value. */
const counted = (requestLine: string, headers: [string, string][]) =>
  Buffer.byteLength(requestLine) +
  headers.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

/** The headers of a `GET /auth/user/me` padded so that they and the line count `total` bytes. */
const padTo = (total: number, requestLine: string, token: string): [string, string][] => {
  const base: [string, string][] = [
    ['Host', '127.0.0.1'],
    ['Authorization', token],
    ['Connection', 'close'],
    ['X-Pad', ''],
  ];
  const pad = total - counted(requestLine, base);
  return base.map(([k, v]) => (k === 'X-Pad' ? [k, 'p'.repeat(pad)] : [k, v]));
};

describe('request line and headers on the local server', () => {
  it('serves a request of exactly 10,240 bytes of request line and headers; at 10,241 answers 431 with the error body', async () => {
    const user = await newUser();
    const line = 'GET /api/auth/user/me HTTP/1.1';
    const atLimit = padTo(GATEWAY_MAX_REQUEST_LINE_AND_HEADERS, line, user.auth);
    const overLimit = padTo(GATEWAY_MAX_REQUEST_LINE_AND_HEADERS + 1, line, user.auth);
    expect(counted(line, atLimit)).toBe(10_240);
    expect(counted(line, overLimit)).toBe(10_241);

    const ok = await rawRequest(line, atLimit);
    const refused = await rawRequest(line, overLimit);

    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: user.id });
    expect(refused.status).toBe(431);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      status: 431,
      code: 'request_header_fields_too_large',
      message:
        'The request line and headers are 10241 bytes; API Gateway takes at most 10240 bytes of them together',
      requestId: refused.headers['x-request-id'],
    });
    expect(refused.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });

  it('answers 414 with the error body when the request line alone is over 10,240 bytes', async () => {
    const user = await newUser();
    const line = `GET /api/auth/user/me?pad=${'q'.repeat(GATEWAY_MAX_REQUEST_LINE_AND_HEADERS)} HTTP/1.1`;

    const res = await rawRequest(line, [
      ['Host', '127.0.0.1'],
      ['Authorization', user.auth],
      ['Connection', 'close'],
    ]);

    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ status: 414, code: 'uri_too_long' });
    expect(res.body.message).toBe(
      `The request line is ${Buffer.byteLength(line)} bytes; API Gateway takes at most 10240 bytes of request line and headers together. Send long lists in the JSON body (batch delete: DELETE /table/{tableId}/record with {"recordIds": [...]})`,
    );
  });

  it("answers 431 with the error body for headers past Node's own limit (300 KB), not an empty answer", async () => {
    const res = await rawRequest('GET /api/auth/user/me HTTP/1.1', [
      ['Host', '127.0.0.1'],
      ['X-Pad', 'p'.repeat(300 * 1024)],
      ['Connection', 'close'],
    ]);

    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ status: 431, code: 'request_header_fields_too_large' });
    expect(res.body.message).toMatch(/API Gateway takes at most 10240 bytes/);
  });

  it('answers a request that is not HTTP with 400 and the error body, not an empty answer', async () => {
    const res = await rawRequest('GET /api/auth/user/me HTTP/1.1 trailing-junk', [['Host', '127.0.0.1']]);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: 'The request is not valid HTTP/1.1',
      requestId: res.headers['x-request-id'],
    });
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });

  it('answers a 1,000-id batch delete in the query with 414 (nothing deleted); the same ids in the JSON body delete all 1,000', async () => {
    const t = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: Array.from({ length: 1000 }, (_, i) => ({ fields: { Name: `r${i}` } })),
    });
    const ids = (t.table.records as { id: string }[]).map((r) => r.id);
    expect(ids).toHaveLength(1000);

    const inQuery = await fetch(
      `${api.base}/table/${t.tableId}/record?${ids.map((id) => `recordIds[]=${id}`).join('&')}`,
      { method: 'DELETE', headers: { authorization: t.owner.auth } },
    );
    expect(inQuery.status).toBe(414);
    expect(await inQuery.json()).toMatchObject({ status: 414, code: 'uri_too_long' });
    const stillThere = await api.request('GET', `/table/${t.tableId}/record?take=1000`, {
      token: t.owner.auth,
    });
    expect(stillThere.body.records).toHaveLength(1000);

    const inBody = await api.request('DELETE', `/table/${t.tableId}/record`, {
      token: t.owner.auth,
      body: { recordIds: ids },
    });

    expect(inBody.status).toBe(200);
    expect(inBody.body.records.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
    const left = await api.request('GET', `/table/${t.tableId}/record`, { token: t.owner.auth });
    expect(left.body.records).toEqual([]);
  }, 120_000);
});
