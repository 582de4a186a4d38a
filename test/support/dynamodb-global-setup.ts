import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys } from '#infra/local/environment.ts';
import { s3Environment, startS3Local } from '#infra/local/s3-local.ts';
import { ensureTable } from '#infra/local/table.ts';
import { TEST_WORKERS } from './workers.ts';

/**
 * Starts the real DynamoDB Local in memory for the run, one per worker (DynamoDB Local answers
 * every request on one SQLite thread: one for two workers held a core while the other waited,
 * test/README.md), creates the table from the shared definition in each, starts the real local
 * S3-compatible server (files in a temporary folder) and hands the endpoints to the test workers
 * through the environment (a file leases one no other running file holds: `worker-dynamodb.ts`). Every
 * database project names this setup; they share one start (the first starts, the last teardown
 * stops), so the files one worker runs, whatever their project, share one table.
 */
interface Shared {
  users: number;
  started: Promise<() => Promise<void>>;
}
const SHARED = Symbol.for('workspace-test-database');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export default async function setup() {
  const shared = registry[SHARED] ?? { users: 0, started: start() };
  registry[SHARED] = shared;
  shared.users++;
  const stop = await shared.started;
  return async () => {
    if (--shared.users > 0) return;
    registry[SHARED] = undefined;
    await stop();
  };
}

async function start(): Promise<() => Promise<void>> {
  const started = await Promise.all(Array.from({ length: TEST_WORKERS }, () => startDynamoDbLocal()));
  const dir = await mkdtemp(join(tmpdir(), 'workspace-test-'));
  const tableName = `test-${Date.now()}`;
  const endpoints = started.map((d) => d.endpoint);
  configureEnvironment({
    endpoint: endpoints[0],
    tableName,
    signingKeysFile: await ensureSigningKeys(dir),
  });
  // a file takes one no other file running at the same moment uses (`worker-dynamodb.ts`)
  process.env.TEST_DYNAMODB_ENDPOINTS = endpoints.join(',');
  process.env.TEST_DYNAMODB_LEASES = await mkdtemp(join(dir, 'leases-'));
  process.env.LOCAL_OUTBOX_DIR = join(dir, 'outbox');
  await Promise.all(endpoints.map((endpoint) => ensureTable(tableName, endpoint)));
  const s3 = await startS3Local();
  Object.assign(process.env, s3Environment(s3));
  return async () => {
    // a stop that hangs must not hold the run open (a CI job would wait out its limit)
    const bounded = (stop: Promise<void>, what: string) =>
      Promise.race([
        stop,
        new Promise<void>((resolve) =>
          setTimeout(() => {
            console.error(`${what} did not stop within 10 s; going on`);
            resolve();
          }, 10_000).unref(),
        ),
      ]);
    await bounded(s3.stop(), 'the local S3 server');
    await bounded(
      Promise.all(started.map((d) => d.stop())).then(() => undefined),
      'DynamoDB Local',
    );
    await rm(dir, { recursive: true, force: true });
  };
}
