import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { newUser } from '#test/support/fixtures.ts';

/**
 * Operations over real HTTP against the local server: the health check, request ids on every
 * answer, and CORS as the HTTP API answers it. Plain `fetch`, so every header is seen as sent.
 */

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const servers: Server[] = [];
/** A local server on a free port; `corsOrigins` as CORS_ORIGINS would set it (unset: the default). */
const start = async (corsOrigins?: string): Promise<string> => {
  const before = process.env.CORS_ORIGINS;
  if (corsOrigins === undefined) delete process.env.CORS_ORIGINS;
  else process.env.CORS_ORIGINS = corsOrigins;
  try {
    const server = createLocalServer();
    servers.push(server);
    return `http://127.0.0.1:${await listen(server, 0)}/api`;
  } finally {
    if (before === undefined) delete process.env.CORS_ORIGINS;
    else process.env.CORS_ORIGINS = before;
  }
};
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

let api: string;
let auth: string;
beforeAll(async () => {
  api = await start();
  auth = (await newUser()).auth;
});

describe('GET /api/health', () => {
  it('answers 200 with the status and the package version, without a token', async () => {
    const res = await fetch(`${api}/health`);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toStrictEqual({ status: 'ok', version: VERSION });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('answers HEAD as monitors ask: 200, the headers, no body; another method is a 405 that allows both', async () => {
    const head = await fetch(`${api}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await head.text()).toBe('');

    const post = await fetch(`${api}/health`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // other GET routes take no HEAD
    expect((await fetch(`${api}/openapi.json`, { method: 'HEAD' })).status).toBe(405);
  });
});

describe('an answer with no content', () => {
  it('says no content type and a length of 0, as the API description promises (no JSON type, not chunked)', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${api}/notifications/read-all`);
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(url, { method: 'PATCH', headers: { authorization: auth } }, resolve);
      req.on('error', reject);
      req.end();
    });
    let body = '';
    for await (const chunk of res) body += chunk;

    expect(res.statusCode).toBe(200);
    expect(body).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['transfer-encoding']).toBeUndefined();
  });
});

describe('X-Request-Id', () => {
  it('is on a success answer, a new id per request', async () => {
    const first = await fetch(`${api}/auth/user/me`, { headers: { authorization: auth } });
    const second = await fetch(`${api}/auth/user/me`, { headers: { authorization: auth } });

    expect(first.status).toBe(200);
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('is on an error answer, and in its body as requestId, the same id', async () => {
    const res = await fetch(`${api}/auth/user/me`);
    const id = res.headers.get('x-request-id');

    expect(res.status).toBe(401);
    expect(id).toMatch(UUID);
    expect(await res.json()).toStrictEqual({
      message: 'Sign in, or send a valid bearer token',
      status: 401,
      code: 'unauthorized',
      requestId: id,
    });
  });

  it('is on the errors the local gateway answers itself (no route)', async () => {
    const res = await fetch(`${api}/no/such/route`);
    const id = res.headers.get('x-request-id');

    expect(res.status).toBe(404);
    expect(id).toMatch(UUID);
    expect(await res.json()).toMatchObject({ status: 404, code: 'not_found', requestId: id });
  });

  it("echoes the caller's sane X-Request-Id on a success and on an error", async () => {
    const ok = await fetch(`${api}/auth/user/me`, {
      headers: { authorization: auth, 'x-request-id': 'client-trace.1_A' },
    });
    const refused = await fetch(`${api}/space`, { headers: { 'x-request-id': 'client-trace.2_B' } });

    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('client-trace.1_A');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('client-trace.2_B');
    expect(await refused.json()).toMatchObject({ requestId: 'client-trace.2_B' });
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with a space', 'two words'],
    ['with a slash', 'a/b'],
  ])('replaces a caller id %s with one of its own', async (_, sent) => {
    const res = await fetch(`${api}/auth/user/me`, { headers: { 'x-request-id': sent } });

    expect(res.headers.get('x-request-id')).toMatch(UUID);
    expect(((await res.json()) as { requestId: string }).requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('CORS', () => {
  const preflight = (base: string, origin: string) =>
    fetch(`${base}/space`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });

  it('answers a preflight with 204 and the policy, any origin by default', async () => {
    const res = await preflight(api, 'http://localhost:5173');

    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, If-Match, Idempotency-Key, X-Request-Id',
    );
    expect(res.headers.get('access-control-max-age')).toBe('3600');
  });

  it('adds Access-Control-Allow-Origin and the exposed headers to answers, errors too', async () => {
    const ok = await fetch(`${api}/auth/user/me`, {
      headers: { authorization: auth, origin: 'http://localhost:5173' },
    });
    const refused = await fetch(`${api}/auth/user/me`, { headers: { origin: 'http://localhost:5173' } });

    for (const res of [ok, refused]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id, ETag, Retry-After');
    }
    expect([ok.status, refused.status]).toEqual([200, 401]);
  });

  it('with CORS_ORIGINS, allows the listed origins only, echoing the one that called', async () => {
    const listed = await start('https://app.example.com, http://localhost:5173');

    const allowed = await preflight(listed, 'https://app.example.com');
    const other = await preflight(listed, 'https://evil.example');
    const answer = await fetch(`${listed}/health`, { headers: { origin: 'http://localhost:5173' } });
    const unlisted = await fetch(`${listed}/health`, { headers: { origin: 'https://evil.example' } });

    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('vary')).toBe('origin');
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(unlisted.status).toBe(200);
    expect(unlisted.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with an empty CORS_ORIGINS, adds no CORS header and answers no preflight, like a stage without CORS', async () => {
    const none = await start('');

    const res = await preflight(none, 'http://localhost:5173');
    const answer = await fetch(`${none}/health`, { headers: { origin: 'http://localhost:5173' } });

    // no preflight answer: the OPTIONS is a request like any other, which no route takes (405)
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
