import { type ChildProcess, execSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '#infra/local/dynamodb-local.ts';
import { ctrlC, startProgram, stopProgram, stopPrograms } from '#test/support/local-program.ts';
import { connectShareDb, fetchQuery } from '#test/support/sharedb-client.ts';

/** True while a DynamoDB Local runs whose command line holds `text` (its data folder, `-port <n>`). */
const javaRunning = (text: string): boolean => {
  const ps = execSync('ps -eo args', { encoding: 'utf8' });
  return ps.split('\n').some((line) => line.includes('DynamoDBLocal.jar') && line.includes(text));
};

/** The exit code of a program expected to stop by itself. */
const exitCode = async (child: ChildProcess): Promise<number | null> =>
  child.exitCode ?? ((await once(child, 'exit')) as [number | null])[0];

/** Waits up to `ms` for `test` to hold. */
const eventually = async (test: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (test()) return true;
  return test();
};

const dirs: string[] = [];
// a failed test's programs must not outlive it
afterEach(stopPrograms);
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints a working API URL and token, keeps data across restarts and stops DynamoDB Local on Ctrl-C and on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workspace-start-'));
    dirs.push(dataDir);

    const first = startProgram(dataDir);
    const { api, token } = await first.ready;
    expect(api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const me = await fetch(`${api}/auth/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'admin@example.com' });
    const created = await fetch(`${api}/space`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept' }),
    });
    expect(created.status).toBe(201);
    // the stream processor runs: a base's change feed shows its new table within seconds
    const spaceId = ((await created.json()) as { id: string }).id;
    const base = await fetch(`${api}/base`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ spaceId }),
    });
    const baseId = ((await base.json()) as { id: string }).id;
    const table = await fetch(`${api}/base/${baseId}/table`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Fed' }),
    });
    expect(table.status).toBe(201);
    // One write's entries may reach the log in different stream batches: wait for all it needs.
    const recordsCreated = (list: string[]) => list.filter((t) => t === 'record.created').length;
    let types: string[] = [];
    for (let i = 0; i < 100 && !(types.includes('table.created') && recordsCreated(types) >= 3); i++) {
      await new Promise((r) => setTimeout(r, 200));
      const feed = await fetch(`${api}/base/${baseId}/changes`, {
        headers: { authorization: `Bearer ${token}` },
      });
      types = ((await feed.json()) as { changes: { type: string }[] }).changes.map((c) => c.type);
    }
    expect(types).toContain('table.created');
    expect(types.filter((t) => t === 'record.created')).toHaveLength(3);
    // the health answer says how far the capture is behind (the poller runs in this process)
    const health = (await (await fetch(`${api}/health`)).json()) as { capture?: { lagSeconds: number } };
    expect(health.capture?.lagSeconds).toBeGreaterThanOrEqual(0);
    // Teable's realtime socket beside /api: ShareDB's own client reads the base's tables
    const socket = await connectShareDb(`${api.replace(/^http/, 'ws').replace(/\/api$/, '')}/socket`, {
      authorization: `Bearer ${token}`,
    });
    const tables = await fetchQuery(socket.connection, `tbl_${baseId}`, {});
    expect(tables.results.map((d) => (d.data as { name: string }).name)).toEqual(['Fed']);
    socket.socket.close();
    expect(javaRunning(dataDir)).toBe(true);
    // a person reads one short line per request, not JSON
    expect(first.output()).toMatch(/^\d\d:\d\d:\d\d GET \/api\/auth\/user\/me 200 \d+ms$/m);
    expect(first.output()).toMatch(/^\d\d:\d\d:\d\d POST \/api\/space 201 \d+ms$/m);
    expect(first.output()).not.toMatch(/^\{"level"/m);
    // A Ctrl-C reaches the program, not DynamoDB Local beside it: the program stops it in order
    // (no "stopped unexpectedly") and waits for it to exit before it exits itself.
    expect(await ctrlC(first.child)).toBe(0);
    expect(first.output()).not.toContain('stopped unexpectedly');
    expect(javaRunning(dataDir)).toBe(false);

    const second = startProgram(dataDir);
    const again = await second.ready;
    expect(again.token).toBe(token);
    const spaces = await fetch(`${again.api}/space`, { headers: { authorization: `Bearer ${again.token}` } });
    expect(((await spaces.json()) as { name: string }[]).map((s) => s.name)).toEqual(['Kept']);
    expect(await stopProgram(second.child)).toBe(0);
    expect(javaRunning(dataDir)).toBe(false);
  }, 120_000);

  it('puts DynamoDB Local on the port of --dynamodb-port and prints it; a second start on that port exits 1 with a message', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workspace-start-'));
    dirs.push(dataDir);
    const port = await freePort();

    const program = startProgram(dataDir, ['--in-memory', '--dynamodb-port', String(port)]);
    const { api, token } = await program.ready;

    expect(program.output()).toContain(`DynamoDB Local http://127.0.0.1:${port} (in memory, nothing kept)`);
    expect(program.output()).toContain(`  from a container: http://host.docker.internal:${port} `);
    expect(javaRunning(`-port ${port}`)).toBe(true);
    const me = await fetch(`${api}/auth/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);

    const taken = startProgram(dataDir, ['--in-memory', '--dynamodb-port', String(port)]);
    taken.ready.catch(() => {});
    expect(await exitCode(taken.child)).toBe(1);
    expect(taken.output()).toContain(
      `DynamoDB Local cannot listen on port ${port}: something else listens on it (stop it, or choose another port)`,
    );
    expect(taken.output()).not.toMatch(/^\s+at /m);
    // The first one is unharmed.
    expect((await fetch(`${api}/space`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    // A frame over the limit closes its socket (1009) and nothing else: the program serves on.
    const socket = new WebSocket(`${api.replace('http:', 'ws:')}/live`);
    await once(socket, 'open');
    socket.send('x'.repeat(70 * 1024));
    const [code] = (await once(socket, 'close')) as [number];
    expect(code).toBe(1009);
    expect((await fetch(`${api}/health`)).status).toBe(200);
    expect(program.child.exitCode).toBeNull();

    // However the program ends, DynamoDB Local ends with it: here it is killed outright.
    program.child.kill('SIGKILL');
    await once(program.child, 'exit');
    expect(await eventually(() => !javaRunning(`-port ${port}`), 10_000)).toBe(true);
  }, 120_000);

  it.each([
    [['--dynamodb-port', '70000'], '--dynamodb-port must be a whole number from 1 to 65535, not "70000"'],
    [['--dynamodb-port'], "Option '--dynamodb-port <value>' argument missing"],
  ])(
    'refuses %j with a message, the usage and exit code 1, before starting anything',
    async (args, message) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'workspace-start-'));
      dirs.push(dataDir);

      const program = startProgram(dataDir, args);
      program.ready.catch(() => {});

      expect(await exitCode(program.child)).toBe(1);
      expect(program.output()).toContain(message);
      expect(program.output()).toContain(
        'usage: npm start -- [--port <0-65535>] [--dynamodb-port <1-65535>]',
      );
      expect(program.output()).not.toMatch(/^\s+at /m);
    },
  );
});
