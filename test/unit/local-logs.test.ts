/**
 * What a person reads at `npm start`'s terminal (issue 43, item 12): one short line per request
 * (method, path, status, time, the error's code and message), for the requests no handler takes
 * too (a 404, a 405, a HEAD, a live socket), background jobs under their own name, the SDK's
 * warnings off stderr, and a job's retry a warning rather than an error.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { HttpError, ServiceUnavailableError } from '#shared/core/errors.ts';
import { readableLine } from '#shared/core/log-lines.ts';
import { logger, withLogContext } from '#shared/core/logger.ts';
import { SDK_LOGGER } from '#shared/db/client.ts';
import { drainPurges, enqueuePurge, runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { deliverWebhooksInProcess, settleWebhooks, webhookQueue } from '#shared/webhooks/queue.ts';
import { call } from '#test/support/invoke.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

type Line = Record<string, unknown>;

/** The JSON log lines a block wrote to stdout and stderr. */
const linesOf = async (block: () => unknown): Promise<Line[]> => {
  const out: string[] = [];
  const capture = (chunk: unknown) => {
    out.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await block();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return out
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{') && l.includes('"level"'))
    .map((l) => JSON.parse(l) as Line);
};

describe('readable lines', () => {
  const at = '2026-11-29T08:15:02.123Z';
  it('a request: time, method, path, status, milliseconds, and the error when it failed', () => {
    expect(
      readableLine({
        level: 'INFO',
        message: 'request',
        timestamp: at,
        method: 'GET',
        path: '/api/space',
        status: 200,
        durationMs: 12.4,
        requestId: 'r',
      }),
    ).toBe('08:15:02 GET /api/space 200 12ms');
    expect(
      readableLine({
        level: 'INFO',
        message: 'request',
        timestamp: at,
        method: 'POST',
        path: '/api/space',
        status: 400,
        durationMs: 3,
        error: { code: 'validation_error', message: 'Invalid body.name: too long' },
      }),
    ).toBe('08:15:02 POST /api/space 400 3ms validation_error: Invalid body.name: too long');
    expect(
      readableLine({
        level: 'INFO',
        message: 'request',
        timestamp: at,
        route: 'GET /health',
        status: 401,
        error: { code: 'unauthorized', message: 'no token' },
        reason: 'missing',
      }),
    ).toBe('08:15:02 GET /health 401 unauthorized: no token (missing)');
  });

  it('anything else: time, level, message, its job, and its own keys (long values cut)', () => {
    expect(
      readableLine({
        level: 'WARN',
        message: 'table job stopped',
        timestamp: at,
        job: 'table/tbl1',
        service: 'x',
        requestId: 'r',
        tries: 2,
        long: 'y'.repeat(300),
      }),
    ).toBe(`08:15:02 WARN table job stopped (table/tbl1) tries=2 long=${'y'.repeat(200)}…`);
  });
});

describe('the local server logs what it answers itself', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    const { createLocalServer, listen } = await import('#infra/local/server.ts');
    server = createLocalServer();
    origin = `http://127.0.0.1:${await listen(server, 0)}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  });

  it('an unrouted 404, a 405, a HEAD and a live socket each get a line', async () => {
    const lines = await linesOf(async () => {
      await fetch(`${origin}/api/nowhere`);
      await fetch(`${origin}/api/health`, { method: 'DELETE' });
      await fetch(`${origin}/api/health`, { method: 'HEAD' });
      const ws = new WebSocket(`${origin.replace('http', 'ws')}/api/live`);
      await new Promise((resolve) => ws.once('open', resolve));
      ws.close();
      await new Promise((resolve) => ws.once('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise<void>((resolve) => {
        const refused = new WebSocket(`${origin.replace('http', 'ws')}/api/elsewhere`);
        refused.on('error', () => resolve());
      });
    });
    const requests = lines.filter((l) => l.message === 'request');
    expect(requests.map((l) => [l.method, l.path, l.status, (l.error as { code?: string })?.code])).toEqual([
      ['GET', '/api/nowhere', 404, 'not_found'],
      ['DELETE', '/api/health', 405, 'method_not_allowed'],
      ['HEAD', '/api/health', 200, undefined],
    ]);
    expect(lines.map((l) => l.message)).toEqual(
      expect.arrayContaining(['live connected', 'live closed', 'upgrade refused']),
    );
  });
});

describe('the lines of requests and background work', () => {
  it("a refused request's line carries the error's code and message, at INFO", async () => {
    const lines = await linesOf(() =>
      call('get-space', { token: 'Bearer nope', params: { spaceId: 'spcNope' } }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'INFO', status: 401, error: { code: 'unauthorized' } });
    expect(lines[0]).toHaveProperty('path');
  });

  it("webhook delivery a request woke logs under its own name, not the request's", async () => {
    deliverWebhooksInProcess(async () => {
      logger.info('delivering');
      return undefined;
    });
    const lines = await linesOf(async () => {
      await withLogContext({ requestId: 'req-9', route: 'PATCH /x' }, async () => {
        await (await webhookQueue()).wake('bseLogged');
      });
      await settleWebhooks();
    });
    const line = lines.find((l) => l.message === 'delivering');
    expect(line).toMatchObject({ job: 'webhooks/bseLogged' });
    expect(line).not.toHaveProperty('requestId');
    expect(line).not.toHaveProperty('route');
  });

  it('a job stopped by a busy database or a conflict is a warning that says it goes on; an unknown failure is an error', async () => {
    let failure: unknown = new ServiceUnavailableError('DynamoDB is busy', 1);
    runPurgesInProcess(async () => {
      throw failure;
    });
    const busy = await linesOf(async () => {
      await enqueuePurge({ kind: 'import', resourceId: 'tblBusy' });
      await drainPurges().catch(() => undefined);
    });
    failure = new Error('boom');
    const broken = await linesOf(async () => {
      await enqueuePurge({ kind: 'import', resourceId: 'tblBroken' });
      await drainPurges().catch(() => undefined);
    });
    expect(busy).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: expect.stringMatching(/^import job stopped \(DynamoDB is busy\).*later run/),
      }),
    ]);
    expect(broken).toEqual([
      expect.objectContaining({ level: 'ERROR', message: expect.stringMatching(/^import job stopped/) }),
    ]);
    expect(failure).not.toBeInstanceOf(HttpError);
  });

  it("the SDK's HTTP warnings (slow requests, sockets at capacity) are debug lines, not warnings on stderr", async () => {
    const lines = await linesOf(() =>
      SDK_LOGGER.warn('@smithy/node-http-handler:WARN - socket usage at capacity=50'),
    );
    expect(lines).toEqual([]);
  });
});
