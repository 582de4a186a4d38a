import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local.ts';

export interface DynamoDbSupervisor {
  /** True from the moment DynamoDB Local exits until a restart of it answers again. */
  isDown(): boolean;
  /** Stops watching and stops DynamoDB Local (no restart after this). */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** The same data folder as the first start (undefined: in memory, so a restart starts empty). */
  dbPath?: string;
  /** Runs once a restarted DynamoDB Local answers, before requests are served again. */
  afterRestart?: () => Promise<void>;
  log?: (line: string) => void;
  /** Waits between failed restarts: doubles from `firstDelayMs` up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Keeps DynamoDB Local running for `npm start`: when it exits unexpectedly the API stays up
 * (and answers 503 while `isDown()`), and DynamoDB Local is started again on the same port with
 * the same data folder, so the endpoint every SDK client was built with stays right. Failed
 * restarts are retried with a growing wait.
 */
export const superviseDynamoDbLocal = (
  first: RunningDynamoDb,
  options: SuperviseOptions = {},
): DynamoDbSupervisor => {
  const log = options.log ?? ((line: string) => console.error(line));
  const firstDelay = options.firstDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 30_000;
  let current = first;
  let down = false;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  // A wait between restarts that `stop()` cuts short.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const restart = async () => {
    for (let attempt = 0; !stopping; attempt++) {
      if (attempt > 0) await pause(Math.min(maxDelay, firstDelay * 2 ** (attempt - 1)));
      if (stopping) return;
      let next: RunningDynamoDb | undefined;
      try {
        next = await startDynamoDbLocal({ dbPath: options.dbPath, port: first.port });
        if (!stopping) await options.afterRestart?.();
      } catch (error) {
        await next?.stop();
        const wait = Math.min(maxDelay, firstDelay * 2 ** attempt);
        log(
          `Restarting DynamoDB Local failed (${(error as Error).message.split('\n')[0]}); next try in ${wait / 1000} s. The API answers 503 meanwhile`,
        );
        continue;
      }
      if (stopping) {
        await next.stop();
        return;
      }
      current = next;
      down = false;
      log(`DynamoDB Local is back on ${next.endpoint}: the API serves requests again`);
      watch(next);
      return;
    }
  };

  const watch = (running: RunningDynamoDb) => {
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopping || running !== current) return;
      down = true;
      log(
        `DynamoDB Local stopped unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`}): the database is down and the API answers 503 until it is back. Restarting it on port ${first.port} ${options.dbPath ? `with the same data folder (${options.dbPath})` : 'in memory: the data it held is lost'}`,
      );
      restarting = restart().finally(() => {
        restarting = undefined;
      });
    };
    // It may have died already, between its restart and this watch.
    if (running.process.exitCode !== null || running.process.signalCode !== null)
      exited(running.process.exitCode, running.process.signalCode);
    else running.process.once('exit', exited);
  };
  watch(first);

  return {
    isDown: () => down,
    stop: async () => {
      stopping = true;
      wake?.();
      // A restart under way stops the DynamoDB Local it started itself.
      await restarting;
      await current.stop();
    },
  };
};
