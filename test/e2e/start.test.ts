import { execSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram, stopProgram } from '#test/support/local-program.ts';

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

    const first = startProgram(dataDir);
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
    expect(await stopProgram(first.child)).toBe(0);
    expect(javaRunning(dataDir)).toBe(false);

    const second = startProgram(dataDir);
    const again = await second.ready;
    expect(again.token).toBe(token);
    const spaces = await fetch(`${again.api}/space`, { headers: { authorization: `Bearer ${again.token}` } });
    expect(((await spaces.json()) as { name: string }[]).map((s) => s.name)).toEqual(['Kept']);
    await stopProgram(second.child);
  }, 120_000);
});
