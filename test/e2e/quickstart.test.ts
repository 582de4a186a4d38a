/**
 * The README's quickstart, run as it stands: the shell block between the quickstart markers is
 * executed by bash (with curl and jq, as a user would) against the local server over real HTTP,
 * with a fresh user's token. Skipped, and saying so, where curl, jq or bash is missing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { newUser } from '#test/support/fixtures.ts';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const TOOLS = ['bash', 'curl', 'jq'].every(has);

/** The quickstart's shell text from the README. */
const quickstartScript = (readme: string): string => {
  const block = readme.slice(
    readme.indexOf('<!-- quickstart:start -->'),
    readme.indexOf('<!-- quickstart:end -->'),
  );
  const match = /```sh\n([\s\S]*?)```/.exec(block);
  if (!match) throw new Error('README has no quickstart block');
  return match[1] as string;
};

let server: Server;
let api: string;
beforeAll(async () => {
  server = createLocalServer();
  api = `http://127.0.0.1:${await listen(server, 0)}/api`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe.skipIf(!TOOLS)("the README's quickstart", () => {
  it('runs from a space to a temporary token, every step answering as the README says', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const user = await newUser({ name: 'Quickstart' });
    // asynchronously: the server answers from this same process
    const { stdout: out } = await promisify(execFile)(
      'bash',
      ['-euo', 'pipefail', '-c', quickstartScript(readme)],
      {
        env: { ...process.env, API: api, TOKEN: user.token },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const lines = out.trim().split('\n');
    expect(JSON.parse(lines[0] as string)).toEqual([{ Title: 'Test it', Hours: 5, Status: 'todo' }]);
    expect(JSON.parse(lines[1] as string)).toEqual({
      // groups of a select follow its choices' order (todo, done); hours descending inside each
      titles: ['Build the API', 'Test it'],
      groups: ['todo', 'done'],
    });
    expect(JSON.parse(lines[2] as string)).toMatchObject({ Title: 'Write the spec', Hours: 4 });
    // stale ETag, delete of the copy, table to the trash, restored (a POST: 201)
    expect(lines.slice(3, 7)).toEqual(['412', '200', '200', '201']);
    expect(JSON.parse(lines[7] as string)).toEqual({ rowCount: 3 });
    // a file uploaded with a signature, confirmed, put in a cell and downloaded; then a second by form
    expect(lines[8]).toBe('hello, file');
    expect(JSON.parse(lines[9] as string)).toEqual(['hello.txt', 'second.txt']);
    // an upsert (one match updated, one new), the export's header, the imported rows
    expect(JSON.parse(lines[10] as string)).toEqual({ created: 1, updated: 1 });
    expect(lines[11]).toBe('Title,Hours,Status,Files');
    expect(lines[12]).toBe('import done');
    expect(JSON.parse(lines[13] as string)).toEqual([
      { Name: 'bolt', Qty: 4 },
      { Name: 'nut', Qty: 9 },
    ]);
    expect(lines).toHaveLength(14);
  }, 90_000);
});

if (!TOOLS) console.warn('quickstart: bash, curl or jq is missing; the README quickstart is not run');
