/**
 * A bench section run as a script of its own (`npx tsx test/bench/<section>.ts`): its own
 * DynamoDB Local and table, its own local S3-compatible server, logs silenced, and a new user whose token the section gets.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys } from '#infra/local/environment.ts';
import { ensureTable } from '#infra/local/table.ts';

/** Whether the module at `moduleUrl` is the script Node was started with. */
export const isScript = (moduleUrl: string): boolean =>
  moduleUrl === pathToFileURL(process.argv[1] ?? '').href;

/** Runs `section` with the token of a new user, on a DynamoDB Local of its own (stopped after). */
export const runAlone = async (
  name: string,
  section: (token: string) => Promise<void>,
  options: { inProcessPurges?: boolean } = {},
): Promise<void> => {
  const dynamo = await startDynamoDbLocal();
  let stopS3 = async () => {};
  try {
    const tableName = `bench-${name}-${Date.now()}`;
    configureEnvironment({
      endpoint: dynamo.endpoint,
      tableName,
      signingKeysFile: await ensureSigningKeys(join(new URL('../../', import.meta.url).pathname, '.bench')),
    });
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    await ensureTable(tableName, dynamo.endpoint);
    const { startS3Local, s3Environment } = await import('#infra/local/s3-local.ts');
    const s3 = await startS3Local();
    stopS3 = s3.stop;
    Object.assign(process.env, s3Environment(s3));
    if (options.inProcessPurges) await import('#test/support/in-process-purges.ts');
    const { newUser } = await import('#test/support/fixtures.ts');
    const owner = await newUser({ name: 'Bench' });
    await section(owner.auth);
  } finally {
    await stopS3();
    await dynamo.stop();
  }
};
