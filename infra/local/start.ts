/**
 * `npm start`: DynamoDB Local (kept data in .local/, or `--in-memory`), the table from the shared
 * definition, an instance admin on first start, and the API on http://127.0.0.1:$PORT/api.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { JavaMissingError, startDynamoDbLocal } from './dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys, LOCAL_DIR } from './environment.ts';
import { ensureTable } from './table.ts';

const { values } = parseArgs({
  options: { 'in-memory': { type: 'boolean', default: false }, port: { type: 'string' } },
  allowPositionals: false,
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const inMemory = values['in-memory'] === true;
const tableName = process.env.TABLE_NAME || 'workspace-local';
const runFile = join(LOCAL_DIR, 'dynamodb.json');

const main = async () => {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const dynamo = await startDynamoDbLocal({ dbPath: inMemory ? undefined : join(LOCAL_DIR, 'dynamodb') });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await rm(runFile, { force: true });
    await dynamo.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  dynamo.process.once('exit', () => {
    if (!stopping) {
      console.error('DynamoDB Local stopped unexpectedly');
      void stop(1);
    }
  });
  try {
    configureEnvironment({
      endpoint: dynamo.endpoint,
      tableName,
      signingKeysFile: await ensureSigningKeys(LOCAL_DIR),
    });
    process.env.LOCAL_OUTBOX_DIR ??= join(LOCAL_DIR, 'outbox');
    if (!inMemory)
      await writeFile(runFile, JSON.stringify({ endpoint: dynamo.endpoint, pid: process.pid, tableName }));
    await ensureTable(tableName, dynamo.endpoint);
    // Only now may shared code load: it reads the environment set above.
    const { ensureAdmin } = await import('./admin.ts');
    const { createLocalServer, listen } = await import('./server.ts');
    const admin = await ensureAdmin(inMemory ? undefined : join(LOCAL_DIR, 'state.json'));
    const server = createLocalServer();
    // Permanent deletes a previous run left unfinished (the in-process purge queue died with it).
    const { sweepPurgeJobs } = await import('#shared/trash/purge-worker.ts');
    await sweepPurgeJobs(Date.now(), 0);
    // The repair worker's schedule: interrupted large writes are finished or undone within a minute or two.
    const { startRepairTimer } = await import('./repair-timer.ts');
    startRepairTimer();
    const bound = await listen(server, port);
    console.log(
      `DynamoDB Local ${dynamo.endpoint} (${inMemory ? 'in memory, nothing kept' : `data in ${join(LOCAL_DIR, 'dynamodb')}`})`,
    );
    console.log(`Admin ${admin.email}`);
    console.log(`API  http://127.0.0.1:${bound}/api`);
    console.log(`Token  ${admin.token}`);
  } catch (error) {
    console.error((error as Error).message);
    await stop(1);
  }
};

main().catch((error) => {
  console.error(error instanceof JavaMissingError ? error.message : error);
  process.exit(1);
});
