import { defineConfig } from 'vitest/config';
import { ScansFirstSequencer } from './test/support/sequencer.ts';

/** Unit tests need no database; integration and e2e share a DynamoDB Local started per run. */
const unitEnv = {
  TABLE_NAME: 'unit-test-table',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  CDK_DISABLE_VERSION_CHECK: '1',
};

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
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/dynamodb-global-setup.ts'],
          setupFiles: ['test/support/in-process-purges.ts'],
          env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Teable's own client (@teable/openapi) against the local server
          name: 'compat',
          include: ['test/compat/**/*.test.ts'],
          globalSetup: ['test/support/dynamodb-global-setup.ts'],
          setupFiles: ['test/support/in-process-purges.ts'],
          env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/dynamodb-global-setup.ts'],
          setupFiles: ['test/support/in-process-purges.ts'],
          env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
