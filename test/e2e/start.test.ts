import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** Runs `npm start`'s program as a person would, on its own data folder and port. */
const start = (dataDir: string) => {
  // The test run's own DynamoDB settings must not leak into the program under test.
  const { AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME, SIGNING_KEYS_FILE, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--port', '0'], {
    env: { ...env, LOCAL_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const ready = new Promise<{ api: string; token: string }>((resolve, reject) => {
    const timer = setInterval(() => {
      const api = /^API {2}(\S+)$/m.exec(out)?.[1];
      const token = /^Token {2}(\S+)$/m.exec(out)?.[1];
      if (api && token) {
        clearInterval(timer);
        resolve({ api, token });
      }
      if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`start exited early:\n${out}`));
      }
    }, 100);
  });
  return { child, ready, output: () => out };
};

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

const javaRunning = (dataDir: string): boolean => {
  const ps = execSync('ps -eo args', { encoding: 'utf8' });
  return ps.split('\n').some((line) => line.includes('DynamoDBLocal.jar') && line.includes(dataDir));
};

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('npm start', () => {
  it('prints a working API URL and token, keeps data across restarts and stops DynamoDB Local on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workspace-start-'));
    dirs.push(dataDir);

    const first = start(dataDir);
    const { api, token } = await first.ready;
    expect(api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const me = await fetch(`${api}/auth/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'admin@localhost' });
    const created = await fetch(`${api}/space`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept' }),
    });
    expect(created.status).toBe(201);
    expect(javaRunning(dataDir)).toBe(true);
    // The program waits for DynamoDB Local to exit before it exits itself.
    expect(await stop(first.child)).toBe(0);
    expect(javaRunning(dataDir)).toBe(false);

    const second = start(dataDir);
    const again = await second.ready;
    expect(again.token).toBe(token);
    const spaces = await fetch(`${again.api}/space`, { headers: { authorization: `Bearer ${again.token}` } });
    expect(((await spaces.json()) as { name: string }[]).map((s) => s.name)).toEqual(['Kept']);
    await stop(second.child);
  }, 120_000);
});
