/**
 * The README's examples beyond the quickstart, run as they stand: the shell blocks between the
 * `<!-- example:<name>:start -->` and `<!-- example:<name>:end -->` markers, in README order, as
 * one bash script (a reader pastes them in order into one shell), with curl, jq and Node (the
 * webhook and live examples are Node scripts in a heredoc), against the local server over real
 * HTTP and WebSocket, fed by a stream poller as under `npm start`, with a fresh user's token.
 * Skipped, and saying so, where bash, curl or jq is missing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { newUser } from '#test/support/fixtures.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const TOOLS = ['bash', 'curl', 'jq'].every(has);

/** The examples the README has, in its order. */
const EXAMPLES = ['setup', 'computed', 'history', 'feed', 'webhooks', 'live', 'sharedb'] as const;
type Example = (typeof EXAMPLES)[number];

/** Every marked example of the README, by name, in README order: its shell text. */
const readmeExamples = (readme: string): Map<string, string> => {
  const examples = new Map<string, string>();
  for (const [, name, inside] of readme.matchAll(
    /<!-- example:([a-z-]+):start -->\n([\s\S]*?)<!-- example:\1:end -->/g,
  )) {
    const block = /^```sh\n([\s\S]*?)^```$/m.exec(inside as string);
    if (!block) throw new Error(`README example ${name} has no sh block`);
    examples.set(name as string, block[1] as string);
  }
  return examples;
};

/** Each example's lines of output, split on the marker line the script prints before each one. */
const outputsOf = (stdout: string): Map<string, string[]> => {
  const outputs = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of stdout.split('\n')) {
    const marker = /^### example (\S+)$/.exec(line);
    if (marker) {
      current = [];
      outputs.set(marker[1] as string, current);
    } else if (line !== '') current.push(line);
  }
  return outputs;
};

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

useStreamPoller();
let server: Server;
let run: { outputs: Map<string, string[]>; stderr: string; failure?: string };
beforeAll(async () => {
  server = createLocalServer();
  const api = `http://127.0.0.1:${await listen(server, 0)}/api`;
  if (!TOOLS) return;
  const user = await newUser({ name: 'Examples' });
  const script = [...readmeExamples(readme)]
    .map(([name, text]) => `echo '### example ${name}'\n${text}`)
    .join('\n');
  // asynchronously: the server, the poller and the webhook sender answer from this same process
  const { stdout, stderr, failure } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    // the project folder, where the Node examples find their packages
    cwd: new URL('../../', import.meta.url).pathname,
    env: { ...process.env, API: api, TOKEN: user.token },
    encoding: 'utf8',
    timeout: 60_000,
  }).then(
    (done) => ({ ...done, failure: undefined }),
    (error: Error & { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
      failure: error.message,
    }),
  );
  run = { outputs: outputsOf(stdout), stderr, failure };
}, 90_000);
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

/** The lines one example printed (it fails saying why when the example did not run). */
const printed = (name: Example): string[] => {
  const lines = run.outputs.get(name);
  if (!lines) throw new Error(`example ${name} did not run: ${run.failure ?? ''}\n${run.stderr}`);
  return lines;
};

describe.skipIf(!TOOLS)("the README's examples", () => {
  it('are the ones this test checks, each a marked sh block, in this order', () => {
    expect([...readmeExamples(readme).keys()]).toEqual([...EXAMPLES]);
  });

  it('run to the end, every command succeeding', () => {
    expect(run.failure, run.stderr).toBeUndefined();
    expect([...run.outputs.keys()]).toEqual([...EXAMPLES]);
    expect(printed('setup')).toEqual([]);
  });

  it('computed fields: the write answers the lookup, rollup and formula, which follow a linked record', () => {
    expect(printed('computed').map((line) => JSON.parse(line))).toEqual([
      { Names: ['bolt', 'nut'], Cost: 7, Total: 21 },
      // the bolt's cost 5 → 6: the rollup 7 → 8, the formula 3 × 8
      { Cost: 8, Total: 24 },
    ]);
  });

  it('record history: one item per field each update changed, newest first', () => {
    const items = printed('history').map((line) => JSON.parse(line));
    expect(items).toHaveLength(3);
    // the second update changed two fields at once: their items share its time, in either order
    expect(items.slice(0, 2)).toEqual(
      expect.arrayContaining([
        { field: 'Title', before: 'Draft', after: 'Final' },
        { field: 'Hours', before: 2, after: 3 },
      ]),
    );
    expect(items[2]).toEqual({ field: 'Hours', before: 1, after: 2 });
  });

  it('the change feed: from the cursor of now, the one update made after it, its cells named', () => {
    const lines = printed('feed');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      seq: expect.any(Number),
      type: 'record.updated',
      before: { Hours: 3 },
      after: { Hours: 5 },
      actor: 'Examples',
    });
  });

  it.each([
    ['webhooks', /^verified record\.created (\{.*\})$/, ['Hooked', 2]],
    ['live', /^change record\.created (\{.*\})$/, ['Live', 1]],
  ] as const)(
    '%s: the record written arrives as record.created, its cells by field id',
    (name, line, cells) => {
      const lines = printed(name);
      expect(lines).toHaveLength(1);
      const after = JSON.parse(line.exec(lines[0] as string)?.[1] ?? 'null') as Record<string, unknown>;
      expect(Object.keys(after)).toEqual([expect.stringMatching(/^fld/), expect.stringMatching(/^fld/)]);
      expect(Object.values(after)).toEqual(expect.arrayContaining([...cells]));
    },
  );

  it('ShareDB: the query answers the table, and the record written arrives as an insert at version 1', () => {
    const lines = printed('sharedb');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^records \d+$/);
    expect(lines[1]).toBe('inserted Realtime at version 1');
  });
});

if (!TOOLS) console.warn('readme examples: bash, curl or jq is missing; the README examples are not run');
