import { type ChildProcess, execSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram, stopProgram } from '#test/support/local-program.ts';

/**
 * Issue 10.5: when DynamoDB Local dies under `npm start`, the API keeps answering (503 with the
 * error body and Retry-After), says so in its log, starts DynamoDB Local again with the same data
 * folder and serves normally once it is back.
 */

/** Process ids of the DynamoDB Local started on this data folder (or in memory on this port). */
const javaPids = (marker: string): number[] =>
  execSync('ps -eo pid=,args=', { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar') && line.includes(marker))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

const until = async <T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) await stopProgram(c);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const json = async (res: Response) => ({
  status: res.status,
  retryAfter: res.headers.get('retry-after'),
  type: res.headers.get('content-type'),
  body: (await res.json()) as Record<string, unknown>,
});

describe('npm start when DynamoDB Local dies', () => {
  it('answers 503 with the error body while the database is down, restarts it on the same data and serves again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workspace-db-down-'));
    dirs.push(dataDir);
    const run = startProgram(dataDir);
    children.push(run.child);
    const { api, token } = await run.ready;
    const auth = { authorization: `Bearer ${token}` };
    const createSpace = (name: string) =>
      fetch(`${api}/space`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    expect((await createSpace('Before')).status).toBe(201);
    // DynamoDB Local acknowledges a write before its SQLite file holds it (under load a kill right
    // after the 201 lost it once): wait until the file has it, as a crash test of ours must
    const dbFile = join(dataDir, 'dynamodb', 'shared-local-instance.db');
    await until(
      async () =>
        (await readFile(dbFile).catch(() => Buffer.alloc(0))).includes('Before') ? true : undefined,
      30_000,
      "DynamoDB Local's file to hold the space",
    );
    const [pid] = javaPids(dataDir);
    expect(pid).toBeGreaterThan(0);

    process.kill(pid as number, 'SIGKILL');
    const read = await json(await fetch(`${api}/auth/user/me`, { headers: auth }));
    const write = await json(await createSpace('While down'));

    for (const answer of [read, write]) {
      expect(answer.status).toBe(503);
      expect(answer.type).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(typeof answer.body.message).toBe('string');
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(run.output()).toMatch(
      /DynamoDB Local stopped unexpectedly \(signal SIGKILL\): the database is down and the API answers 503 until it is back\. Restarting it on port \d+ with the same data folder/,
    );
    const back = await until(
      async () => {
        const res = await fetch(`${api}/auth/user/me`, { headers: auth });
        return res.status === 200 ? res : undefined;
      },
      60_000,
      'the API to serve again',
    );
    expect(await back.json()).toMatchObject({ email: 'admin@example.com' });
    expect(run.output()).toMatch(
      /DynamoDB Local is back on http:\/\/127\.0\.0\.1:\d+: the API serves requests again/,
    );
    expect(javaPids(dataDir)).toHaveLength(1);
    expect(javaPids(dataDir)[0]).not.toBe(pid);
    // Same data: the space made before is there; the write refused while down is not.
    expect((await createSpace('After')).status).toBe(201);
    const spaces = await fetch(`${api}/space`, { headers: auth });
    expect(((await spaces.json()) as { name: string }[]).map((s) => s.name).sort()).toEqual([
      'After',
      'Before',
    ]);

    expect(await stopProgram(run.child)).toBe(0);
    expect(javaPids(dataDir)).toEqual([]);
  }, 120_000);

  it('in memory: restarts DynamoDB Local empty, with the table and a new admin token, and says so', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workspace-db-down-mem-'));
    dirs.push(dataDir);
    const run = startProgram(dataDir, ['--in-memory']);
    children.push(run.child);
    const { api, token } = await run.ready;
    const port = /^DynamoDB Local http:\/\/127\.0\.0\.1:(\d+) /m.exec(run.output())?.[1] as string;
    const [pid] = javaPids(`-port ${port} -inMemory`);
    expect(pid).toBeGreaterThan(0);

    process.kill(pid as number, 'SIGKILL');
    const down = await fetch(`${api}/auth/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 503, code: 'service_unavailable' });

    const fresh = await until(
      async () => /restarted empty \(in memory\): a new admin token\nToken {2}(\S+)/.exec(run.output())?.[1],
      60_000,
      'a new admin token',
    );
    expect(run.output()).toMatch(/Restarting it on port \d+ in memory: the data it held is lost/);
    expect(fresh).not.toBe(token);
    const me = await fetch(`${api}/auth/user/me`, { headers: { authorization: `Bearer ${fresh}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'admin@example.com' });

    expect(await stopProgram(run.child)).toBe(0);
    expect(javaPids(`-port ${port} -inMemory`)).toEqual([]);
  }, 120_000);
});
