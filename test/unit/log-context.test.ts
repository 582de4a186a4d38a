/**
 * Log lines (`shared/core/logger.ts`): a request's keys live in its async context, so requests
 * served at once and a job that outlives its request each log their own; a request writes one
 * line at INFO (a 401's reason and a service error on that line, not on a second one).
 */
import { describe, expect, it, vi } from 'vitest';
import { logger, withLogContext } from '#shared/core/logger.ts';
import { drainPurges, enqueuePurge, runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { call } from '#test/support/invoke.ts';

// The level a Lambda starts with (each invocation goes back to it), before the logger is made.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

type Line = Record<string, unknown>;

/** The JSON log lines a block wrote to stdout. */
const linesOf = async (block: () => unknown): Promise<Line[]> => {
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out.push(String(chunk));
    return true;
  });
  try {
    await block();
  } finally {
    spy.mockRestore();
  }
  return out
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{') && l.includes('"level"'))
    .map((l) => JSON.parse(l) as Line);
};

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('log context', () => {
  it('keeps the keys of each unit of work apart when they interleave', async () => {
    const lines = await linesOf(() =>
      Promise.all(
        ['a', 'b', 'c'].map((id) =>
          withLogContext({ requestId: id }, async () => {
            for (let i = 0; i < 3; i++) {
              logger.info('step', { i, of: id });
              await pause();
            }
          }),
        ),
      ),
    );
    expect(lines).toHaveLength(9);
    for (const line of lines) expect(line.requestId).toBe(line.of);
    expect(lines.map((l) => l.requestId)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('gives a job sent by a request its own keys, not the request’s, even after it answered', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    runPurgesInProcess(async () => {
      await gate;
      logger.info('job line');
      return 'done';
    });
    const lines = await linesOf(async () => {
      await withLogContext({ requestId: 'req-1', route: 'DELETE /x' }, async () => {
        await enqueuePurge({ kind: 'table', resourceId: 'tblJob' });
        logger.info('request line');
      });
      await withLogContext({ requestId: 'req-2' }, async () => {
        release();
        await drainPurges();
        logger.info('other request line');
      });
    });
    const byMessage = new Map(lines.map((l) => [l.message, l]));
    expect(byMessage.get('request line')).toMatchObject({ requestId: 'req-1', route: 'DELETE /x' });
    expect(byMessage.get('job line')).toMatchObject({ job: 'table/tblJob' });
    expect(byMessage.get('job line')).not.toHaveProperty('requestId');
    expect(byMessage.get('job line')).not.toHaveProperty('route');
    expect(byMessage.get('other request line')).toMatchObject({ requestId: 'req-2' });
    expect(byMessage.get('other request line')).not.toHaveProperty('job');
  });

  it('writes one line per request, with its own request id when requests run at once', async () => {
    const lines = await linesOf(() =>
      Promise.all(
        ['id-one', 'id-two', 'id-three'].map((id) => call('get-health', { headers: { 'x-request-id': id } })),
      ),
    );
    expect(lines.map((l) => [l.message, l.requestId, l.status, l.route]).sort()).toEqual([
      ['request', 'id-one', 200, 'GET /health'],
      ['request', 'id-three', 200, 'GET /health'],
      ['request', 'id-two', 200, 'GET /health'],
    ]);
  });

  it('puts a refusal’s reason on the request’s one line', async () => {
    const lines = await linesOf(() => call('get-current-user', { headers: { 'x-request-id': 'no-token' } }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: 'request', status: 401, requestId: 'no-token', level: 'INFO' });
    expect(typeof lines[0]?.reason).toBe('string');
  });
});
