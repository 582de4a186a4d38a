import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { ScansFirstSequencer } from './test/support/sequencer.ts';
import { TEST_WORKERS } from './test/support/workers.ts';

/** Unit tests need no database; the database projects share one DynamoDB Local per worker, started per run. */
const unitEnv = {
  TABLE_NAME: 'unit-test-table',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  CDK_DISABLE_VERSION_CHECK: '1',
};

/**
 * Files that read the table's change stream (a stream poller of their own, started at the
 * stream's end): on the shared table two at once would both capture what either writes. They run
 * in the `capture` project, each on a table of its own (`support/own-table.ts`) in one of the
 * project's own DynamoDB Locals that no other running file uses (`support/capture-dynamodb.ts`):
 * stream reads on a full DynamoDB Local starved it (test/README.md). Every project shares the two
 * workers; `support/sequencer.ts` orders the files.
 */
const readsTheStream = (path: string) =>
  /\b(useStreamPoller|startStreamPoller)\(/.test(readFileSync(path, 'utf8'));
const testFilesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
const streamReaders = ['test/integration', 'test/compat', 'test/e2e']
  .flatMap(testFilesUnder)
  .filter(readsTheStream);

const databaseProject = (name: string, include: string[]) => ({
  test: {
    name,
    include,
    exclude: name === 'capture' ? [] : streamReaders,
    globalSetup: [
      'test/support/dynamodb-global-setup.ts',
      ...(name === 'capture' ? ['test/support/capture-dynamodb.ts'] : []),
    ],
    setupFiles: [
      name === 'capture' ? 'test/support/own-table.ts' : 'test/support/worker-dynamodb.ts',
      'test/support/in-process-purges.ts',
    ],
    // sign-up open, as under `npm start`
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', SIGNUP: 'open' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: TEST_WORKERS,
    sequence: { groupOrder: 0 },
  },
});

export default defineConfig({
  test: {
    // files that scan the shared table first (test/support/sequencer.ts); the suite's wall time at the end
    sequence: { sequencer: ScansFirstSequencer },
    reporters: ['default', './test/support/wall-time-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'],
          env: unitEnv,
          testTimeout: 60_000,
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      databaseProject('integration', ['test/integration/**/*.test.ts']),
      // Teable's own client (@teable/openapi) against the local server
      databaseProject('compat', ['test/compat/**/*.test.ts']),
      databaseProject('e2e', ['test/e2e/**/*.test.ts']),
      databaseProject('capture', streamReaders),
    ],
  },
});
