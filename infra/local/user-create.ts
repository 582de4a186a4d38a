/**
 * `npm run user:create -- --name … --email … [--admin]`: creates a user and prints its token.
 * Against AWS: pass `--table <name>` (or TABLE_NAME) with AWS credentials and region in the
 * environment. Otherwise it uses the local data folder: the running local server's DynamoDB, or
 * a DynamoDB Local started for the moment on the same data.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys, LOCAL_DIR, readJson } from './environment.ts';
import { ensureTable } from './table.ts';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    admin: { type: 'boolean', default: false },
    table: { type: 'string' },
  },
});

const usage =
  'usage: npm run user:create -- --name "Ada" --email ada@example.com [--admin] [--table <aws table>]';

const main = async () => {
  if (!values.name || !values.email) throw new Error(usage);
  let local: RunningDynamoDb | undefined;
  const awsTable =
    values.table ?? (process.env.AWS_ENDPOINT_URL_DYNAMODB ? undefined : process.env.TABLE_NAME);
  if (awsTable) {
    process.env.TABLE_NAME = awsTable;
    // The signing keys are not needed to create a user; config only requires the table.
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
    const { createUser } = await import('#shared/users/users.ts');
    const user = await createUser({ name: values.name, email: values.email, isAdmin: values.admin });
    console.log(`User  ${user.id} ${user.email}${user.isAdmin ? ' (instance admin)' : ''}`);
    console.log(`Token  ${user.token}`);
  } finally {
    await local?.stop();
  }
};

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
