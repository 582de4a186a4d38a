import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys } from '#infra/local/environment.ts';
import { ensureTable } from '#infra/local/table.ts';

/**
 * Starts the real DynamoDB Local in memory for the run, creates the table from the shared
 * definition and hands the endpoint to the test workers through the environment.
 */
export default async function setup() {
  const dynamo = await startDynamoDbLocal();
  const dir = await mkdtemp(join(tmpdir(), 'workspace-test-'));
  const tableName = `test-${Date.now()}`;
  configureEnvironment({
    endpoint: dynamo.endpoint,
    tableName,
    signingKeysFile: await ensureSigningKeys(dir),
  });
  process.env.LOCAL_OUTBOX_DIR = join(dir, 'outbox');
  await ensureTable(tableName, dynamo.endpoint);
  return async () => {
    await dynamo.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
