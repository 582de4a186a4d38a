/**
 * Where the operator's tools (`npm run user:create`, `npm run user:token`) write: the AWS table
 * named by `--table` (or TABLE_NAME, with AWS credentials and region in the environment), or else
 * the local data folder: the running local server's DynamoDB, or a DynamoDB Local started for the
 * moment on the same data.
 */
import { join } from 'node:path';
import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys, LOCAL_DIR, readJson } from './environment.ts';
import { ensureTable } from './table.ts';

/** Runs `work` with the environment pointed at the operator's table; stops what it started. */
export const withOperatorTable = async <T>(table: string | undefined, work: () => Promise<T>): Promise<T> => {
  let local: RunningDynamoDb | undefined;
  const awsTable = table ?? (process.env.AWS_ENDPOINT_URL_DYNAMODB ? undefined : process.env.TABLE_NAME);
  if (awsTable) {
    // the signing keys are not needed to write users and tokens; config only requires the table
    process.env.TABLE_NAME = awsTable;
  } else {
    const running = await readJson<{ endpoint: string; tableName: string }>(join(LOCAL_DIR, 'dynamodb.json'));
    const alive =
      running &&
      (await fetch(running.endpoint).then(
        () => true,
        () => false,
      ));
    const tableName = running?.tableName ?? 'workspace-local';
    let endpoint = alive ? running.endpoint : undefined;
    if (!endpoint) {
      local = await startDynamoDbLocal({ dbPath: join(LOCAL_DIR, 'dynamodb') });
      endpoint = local.endpoint;
    }
    configureEnvironment({ endpoint, tableName, signingKeysFile: await ensureSigningKeys(LOCAL_DIR) });
    await ensureTable(tableName, endpoint);
  }
  try {
    return await work();
  } finally {
    await local?.stop();
  }
};
