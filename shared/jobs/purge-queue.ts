import { config } from '#shared/config.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger, withLogContext } from '#shared/core/logger.ts';
import type { TransactOp } from '#shared/db/commit.ts';
import { outsideRequestScope } from '#shared/db/request-scope.ts';
import { markPurgedOp, markResourcePurgedOp, putJobOp, type StoredJobItem } from '#shared/entities/jobs.ts';
import { JOB_KINDS, type PurgeJob, type PurgeQueue } from './purge-job.ts';

/** The durable job item, to join the transaction that marks the resource. Pure. */
export const purgeJobOp = (
  job: PurgeJob,
  context: { spaceId?: string; baseId?: string; userId: string },
  now: Date,
): TransactOp => putJobOp(job, context, now);

/**
 * The update that makes a space, base or table invisible for good (`purgeTime`), keeping when and
 * by whom it was first deleted; fails if it is gone or already being purged (the entity's builder).
 */
export { markPurgedOp, markResourcePurgedOp };

/** True when a message body is a purge job (anything else is dropped by the worker). */
export const isPurgeJob = (value: unknown): value is PurgeJob => {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, resourceId } = value as Record<string, unknown>;
  return (
    typeof kind === 'string' &&
    (JOB_KINDS as readonly string[]).includes(kind) &&
    typeof resourceId === 'string'
  );
};

/** A stored job item as the sweep reads it: the job, and when it last ran (or was created). */
export interface StoredPurgeJob extends PurgeJob {
  lastTouched: string;
}

/** The job stored in an item, or undefined for an item that is not a well-formed job. */
export const purgeJobOf = (item: StoredJobItem): StoredPurgeJob | undefined => {
  if (!isPurgeJob(item)) return undefined;
  const touched = typeof item.updatedTime === 'string' ? item.updatedTime : item.createdTime;
  return {
    kind: item.kind,
    resourceId: item.resourceId,
    lastTouched: typeof touched === 'string' ? touched : '',
  };
};

/** Runs one job as far as it can: `trash/job-runner.ts` `runPurgeJob`. */
export type PurgeRunner = (job: PurgeJob) => Promise<'done' | 'more'>;

/**
 * Runs jobs in this process, after the request that sent them has answered (local server,
 * tests, bench). A job whose budget runs out is sent again, as the cloud worker does. The worker
 * is handed in (`runPurgesInProcess`) rather than imported, so route bundles do not carry it.
 * With no worker handed in, a job is logged and left to the sweep (its job item is durable).
 */
class InProcessPurgeQueue implements PurgeQueue {
  private readonly running = new Set<Promise<void>>();
  private readonly failures: unknown[] = [];
  runner: PurgeRunner | undefined;

  async send(job: PurgeJob): Promise<void> {
    const runner = this.runner;
    if (!runner) {
      logger.warn('no purge queue and no in-process worker: the job waits for the sweep', { job });
      return;
    }
    // outside the sending request's scope (its deadline, its id, its log keys), as the cloud's worker runs it
    const run: Promise<void> = outsideRequestScope(() =>
      withLogContext({ job: `${job.kind}/${job.resourceId}` }, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        if ((await runner(job)) === 'more') await this.send(job);
      }),
    )
      .catch((error: unknown) => {
        // a busy or unreachable database, a conflict: the run is tried again, nothing is wrong
        const passing = error instanceof HttpError && (error.status < 500 || error.status === 503);
        logger[passing ? 'warn' : 'error'](
          `${job.kind} job stopped (${passing ? (error as HttpError).message : 'an error'}); its item stays and a later run continues it`,
          { job, ...(passing ? {} : { error: error as Error }) },
        );
        this.failures.push(error);
      })
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Waits until every job sent (and every job those sent) has finished; rethrows the first failure. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
    const failure = this.failures.shift();
    this.failures.length = 0;
    if (failure) throw failure;
  }
}

const inProcess = new InProcessPurgeQueue();
let chosen: Promise<PurgeQueue> | undefined;

/**
 * The queue of this environment: Amazon SQS when `PURGE_QUEUE_URL` is set (the cloud), the
 * in-process queue otherwise (local server, tests).
 */
export const purgeQueue = (): Promise<PurgeQueue> => {
  chosen ??= config.purgeQueueUrl
    ? import('./sqs-purge-queue.ts').then((m) => m.sqsPurgeQueue(config.purgeQueueUrl as string))
    : Promise.resolve(inProcess);
  return chosen;
};

/** Sends a job on this environment's queue, with the grace delay for writes still in flight. */
export const enqueuePurge = async (job: PurgeJob): Promise<void> =>
  (await purgeQueue()).send(job, { delaySeconds: config.purgeDelaySeconds });

/** Makes this process run purge jobs itself when there is no SQS queue (local server, tests, bench). */
export const runPurgesInProcess = (runner: PurgeRunner): void => {
  inProcess.runner = runner;
};

/** Waits for every purge of the in-process queue (tests, bench). */
export const drainPurges = (): Promise<void> => inProcess.drain();
