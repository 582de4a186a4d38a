import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { TEST_WORKERS } from './workers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The capture project's own DynamoDB Locals, one per worker, and where files lease one (`support/own-table.ts`). */
    captureDynamoDb: { endpoints: string[]; leases: string };
  }
}

/**
 * Global setup of the `capture` project: DynamoDB Locals of its own, one per worker. DynamoDB Local
 * answers every request through one SQLite thread; once the shared one holds the run's data
 * (~190,000 items and their stream), each stream read took it seconds and two stream pollers
 * starved it (a GetItem took up to 1.6 s). One instance for both workers held its thread at 100 %
 * of a core while the second core sat idle (test/README.md): each worker now has one, so the two
 * files running at once never wait on each other's requests. The endpoints reach the files
 * through `inject`, so the other projects' environment is left alone.
 */
export default async function setup(project: TestProject) {
  const started = await Promise.all(Array.from({ length: TEST_WORKERS }, () => startDynamoDbLocal()));
  const leases = await mkdtemp(join(tmpdir(), 'capture-leases-'));
  project.provide('captureDynamoDb', { endpoints: started.map((d) => d.endpoint), leases });
  return async () => {
    await rm(leases, { recursive: true, force: true });
    await Promise.race([
      Promise.all(started.map((d) => d.stop())),
      new Promise((r) => setTimeout(r, 10_000).unref()),
    ]);
  };
}
