/**
 * `npm start`: DynamoDB Local (kept data in .local/, or `--in-memory`; on any free port, or the
 * one of `--dynamodb-port`), the table from the shared definition, an instance admin on first
 * start, the stream processor that writes the change log, a local S3-compatible server for
 * attachments (files in .local/s3), and the API on
 * http://127.0.0.1:$PORT/api. When DynamoDB Local dies the API stays up,
 * answers 503 and starts it again (same port, same data folder).
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JavaMissingError, PortUnavailableError, startDynamoDbLocal } from './dynamodb-local.ts';
import { superviseDynamoDbLocal } from './dynamodb-supervisor.ts';
import { configureEnvironment, ensureSigningKeys, LOCAL_DIR } from './environment.ts';
import { parseStartOptions, START_HELP, START_USAGE, StartUsageError } from './start-options.ts';
import { ensureTable } from './table.ts';

const parsed = (() => {
  try {
    return parseStartOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof StartUsageError)) throw error;
    console.error(`${error.message}\n${START_USAGE}`);
    process.exit(1);
  }
})();
if (parsed.help) {
  console.log(START_HELP);
  process.exit(0);
}
const { port, inMemory, dynamoDbPort, web } = parsed;
const tableName = process.env.TABLE_NAME || 'workspace-local';
const runFile = join(LOCAL_DIR, 'dynamodb.json');

const main = async () => {
  // INFO: one line per request (method, path, status, time, the error's code), and the background
  // jobs' lines; readable lines unless LOG_FORMAT=json
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const dbPath = inMemory ? undefined : join(LOCAL_DIR, 'dynamodb');
  const dynamo = await startDynamoDbLocal({ dbPath, port: dynamoDbPort });
  // Once the API is up, a restarted in-memory DynamoDB Local is empty: table and admin again.
  let afterRestart = async () => {};
  const supervisor = superviseDynamoDbLocal(dynamo, { dbPath, afterRestart: () => afterRestart() });
  let stopping = false;
  let stopPoller = async () => {};
  let stopS3 = async () => {};
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await stopPoller();
    await stopS3();
    await rm(runFile, { force: true });
    await supervisor.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    configureEnvironment({
      endpoint: dynamo.endpoint,
      tableName,
      signingKeysFile: await ensureSigningKeys(LOCAL_DIR),
    });
    process.env.LOCAL_OUTBOX_DIR ??= join(LOCAL_DIR, 'outbox');
    // anyone may sign up on a local server (SIGNUP=closed to try a deployed stage's default)
    process.env.SIGNUP ??= 'open';
    // Attachments: a real S3-compatible server, its files beside the data (or a temporary folder).
    const { startS3Local, s3Environment } = await import('./s3-local.ts');
    const s3 = await startS3Local(inMemory ? {} : { directory: join(LOCAL_DIR, 's3') });
    stopS3 = s3.stop;
    Object.assign(process.env, s3Environment(s3));
    if (!inMemory)
      await writeFile(runFile, JSON.stringify({ endpoint: dynamo.endpoint, pid: process.pid, tableName }));
    await ensureTable(tableName, dynamo.endpoint);
    // Only now may shared code load: it reads the environment set above.
    if (process.env.LOG_FORMAT !== 'json') (await import('./readable-logs.ts')).useReadableLogs();
    const { ensureAdmin } = await import('./admin.ts');
    const { createLocalServer, listen } = await import('./server.ts');
    const admin = await ensureAdmin(inMemory ? undefined : join(LOCAL_DIR, 'state.json'));
    const server = createLocalServer(undefined, { databaseDown: supervisor.isDown, ...(web ? { web } : {}) });
    // Permanent deletes a previous run left unfinished (the in-process purge queue died with it).
    const { sweepPurgeJobs } = await import('#shared/trash/job-runner.ts');
    await sweepPurgeJobs(Date.now(), 0);
    // The purge worker's schedule: lost jobs sent again, files no cell has held for a day released.
    const { startSweepTimer } = await import('./sweep-timer.ts');
    startSweepTimer(undefined, supervisor.isDown);
    // The webhook sender's schedule: retries a previous run left are woken when due.
    const { startWebhookTimer } = await import('./webhook-timer.ts');
    startWebhookTimer(undefined, supervisor.isDown);
    // The repair worker's schedule: interrupted large writes are finished or undone within a minute or two.
    const { startRepairTimer } = await import('./repair-timer.ts');
    startRepairTimer(undefined, supervisor.isDown);
    // The stream processor: the same capture as the cloud's stream Lambda, over DynamoDB Local's
    // stream; where it got to is kept beside the data, so a restart resumes there.
    const { startStreamPoller } = await import('./stream-poller.ts');
    const poller = startStreamPoller({
      endpoint: dynamo.endpoint,
      tableName,
      ...(inMemory
        ? {}
        : {
            checkpointFile: join(LOCAL_DIR, 'stream-checkpoints.json'),
            failuresFile: join(LOCAL_DIR, 'stream-failures.jsonl'),
          }),
      startAt: 'TRIM_HORIZON',
      isDown: supervisor.isDown,
    });
    stopPoller = () => poller.stop();
    // `GET /api/health` says how far the capture is behind (this process runs it)
    const { reportCaptureLag } = await import('#shared/changes/capture-lag.ts');
    reportCaptureLag(() => poller.lagMs());
    const bound = await listen(server, port);
    console.log(
      `DynamoDB Local ${dynamo.endpoint} (${inMemory ? 'in memory, nothing kept' : `data in ${join(LOCAL_DIR, 'dynamodb')}`})`,
    );
    // A fixed port is for a container (`sam local`): DynamoDB Local listens on every interface.
    if (dynamoDbPort !== undefined)
      console.log(
        `  from a container: http://host.docker.internal:${dynamo.port} (it listens on every interface)`,
      );
    console.log(
      `S3   ${s3.endpoint} (bucket ${s3.bucket}; ${inMemory ? 'in memory, nothing kept' : `files in ${s3.directory}`})`,
    );
    console.log(`Admin ${admin.email}`);
    console.log(`API  http://127.0.0.1:${bound}/api`);
    console.log(`Socket  ws://127.0.0.1:${bound}/socket  (realtime, ShareDB: Teable's web app)`);
    if (web)
      console.log(
        `Web  http://127.0.0.1:${bound}/  (the web app at ${web.origin}, on this origin; start it with PORT=${bound})`,
      );
    console.log(`Token  ${admin.token}`);
    console.log(
      admin.password
        ? `Sign in  ${admin.email} / ${admin.password}  (POST /api/auth/signin, or the web app's login page)`
        : `Sign in  ${admin.email} with the password you set (npm start shows only the one it made)`,
    );
    afterRestart = async () => {
      await ensureTable(tableName, dynamo.endpoint);
      if (!inMemory) return;
      const fresh = await ensureAdmin(undefined);
      console.log(`DynamoDB Local restarted empty (in memory): a new admin token`);
      console.log(`Token  ${fresh.token}`);
    };
  } catch (error) {
    console.error((error as Error).message);
    await stop(1);
  }
};

main().catch((error) => {
  const known = error instanceof JavaMissingError || error instanceof PortUnavailableError;
  console.error(known ? error.message : error);
  process.exit(1);
});
