import { releaseDueFiles } from '#shared/attachments/release.ts';
import { makeThumbnails } from '#shared/attachments/thumbnails.ts';
import { runExportJob } from '#shared/bulk/export.ts';
import { runImport } from '#shared/bulk/import.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { transact } from '#shared/db/commit.ts';
import { finishJobOps, readJobItem, startJobRun, unfinishedJobItems } from '#shared/entities/jobs.ts';
import {
  type Budget,
  baseIdsOfSpace,
  deleteBaseRef,
  deleteTableRef,
  firstTablesOfBase,
  purgeBaseRest,
  purgeSpaceRest,
  purgeTableItems as purgeTable,
  trashIdOfBase,
  trashIdOfSpace,
} from '#shared/entities/purges.ts';
import { deleteBaseWebhooks } from '#shared/entities/webhooks.ts';
import type { PurgeJob } from '#shared/jobs/purge-job.ts';
import { enqueuePurge, purgeJobOf, type StoredPurgeJob } from '#shared/jobs/purge-queue.ts';
import { renameUserInRecords } from '#shared/records/user-names.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { dropLinkSides } from '#shared/tables/tables.ts';

const unlimited: Budget = () => true;

/** A budget that lasts `ms` from now (the worker Lambda keeps a margin before its timeout). */
export const budgetOf = (ms: number): Budget => {
  const end = performance.now() + ms;
  return () => performance.now() < end;
};

/**
 * Deletes every item of a base for good: each of its tables (live or in the trash), then its
 * partition (table references, project nodes, dashboards and their plugin installs, listing
 * copies of trashed tables), its trash item, and the base item last. True when done.
 */
export const purgeBase = async (baseId: string, budget: Budget = unlimited): Promise<boolean> => {
  const trashId = await trashIdOfBase(baseId);
  for (;;) {
    const refs = await firstTablesOfBase(baseId);
    for (const tableId of refs.tableIds) {
      if (!(await purgeTable(tableId, budget))) return false;
      await deleteTableRef(baseId, tableId);
      logger.info('purge progress: a table of the base is gone', { baseId, tableId });
      if (!budget()) return false;
    }
    if (!refs.more) break;
  }
  // its webhooks (their delivery logs expire by TTL)
  await deleteBaseWebhooks(baseId);
  return purgeBaseRest(baseId, trashId, budget);
};

/**
 * Deletes every item of a space for good: each base, the members' mirrors, the space's
 * partition (members, base references, listing copies of trashed bases), its trash item, and
 * the space item last. True when done.
 */
export const purgeSpace = async (spaceId: string, budget: Budget = unlimited): Promise<boolean> => {
  const trashId = await trashIdOfSpace(spaceId);
  for (const baseId of await baseIdsOfSpace(spaceId)) {
    if (!(await purgeBase(baseId, budget))) return false;
    await deleteBaseRef(spaceId, baseId);
    logger.info('purge progress: a base of the space is gone', { spaceId, baseId });
    if (!budget()) return false;
  }
  return purgeSpaceRest(spaceId, trashId, budget);
};

/**
 * Runs one purge job as far as the budget allows: `done` when nothing of the resource is left
 * (the job item is deleted last), `more` when the budget ran out (the caller sends the job
 * again). Idempotent and safe to run twice at once: it only deletes, and reads what is left
 * rather than remembering progress; a job whose item is gone was finished by an earlier run.
 */
export const runPurgeJob = async (job: PurgeJob, budget: Budget = unlimited): Promise<'done' | 'more'> => {
  const pending = await startJobRun(job);
  if (!pending) return 'done';
  const started = performance.now();
  const run = pending.runs;
  logger.info('background job started', { job, run });
  let done: boolean;
  if (job.kind === 'table') {
    // the request already dropped the other sides of the links; a run after a fault there repeats it
    const schema = await loadSchema(job.resourceId).catch(() => undefined);
    if (schema) await dropLinkSides(job.resourceId, schema.fields);
    done = await purgeTable(job.resourceId, budget);
  } else if (job.kind === 'base') done = await purgeBase(job.resourceId, budget);
  else if (job.kind === 'space') done = await purgeSpace(job.resourceId, budget);
  else if (job.kind === 'import') done = await runImport(job.resourceId, budget);
  else if (job.kind === 'export') done = await runExportJob(job.resourceId, budget);
  else if (job.kind === 'thumbnails') {
    await makeThumbnails(job.resourceId); // one run; a failure throws and the job runs again
    done = true;
  } else done = await renameUserInRecords(job.resourceId, budget);
  const durationMs = Math.round(performance.now() - started);
  if (!done) {
    logger.info('background job paused: its time was spent, the rest runs next', { job, run, durationMs });
    return 'more';
  }
  // an import's item moved with its chunks: its report is what the finished item keeps
  const latest = job.kind === 'import' ? ((await readJobItem(job)) ?? pending) : pending;
  await transact(finishJobOps(job, latest, new Date()), () => new NotFoundError('purge job finished'));
  logger.info('background job finished', { job, runs: run, durationMs });
  return 'done';
};

/** How long a job may go without a run before the sweep sends it again (its message was lost). */
export const STALE_JOB_MS = 20 * 60 * 1000;

/**
 * Sends again every job that no worker has run for `STALE_JOB_MS` (a message lost, a send that
 * failed after the delete committed, a message in the dead-letter queue). One query: unfinished
 * jobs share one partition. Answers how many were sent.
 */
export const sweepPurgeJobs = async (now = Date.now(), staleMs = STALE_JOB_MS): Promise<number> => {
  const jobs = await unfinishedJobItems();
  const stale = jobs
    .map(purgeJobOf)
    .filter((j): j is StoredPurgeJob => j !== undefined && now - Date.parse(j.lastTouched) >= staleMs);
  for (const { kind, resourceId } of stale) await enqueuePurge({ kind, resourceId });
  return stale.length;
};

/**
 * The worker's scheduled sweep (hourly in the stack, every few minutes under `npm start`): jobs
 * whose message was lost are sent again, and files no cell has held for a day are released. Each
 * half runs even if the other fails (logged). Answers what each did.
 */
export const sweepWorker = async (now = new Date()): Promise<{ resent: number; released: number }> => {
  const [resent, released] = await Promise.all([
    sweepPurgeJobs(now.getTime()).catch((error: unknown) => {
      logger.error('purge sweep failed', error as Error);
      return 0;
    }),
    releaseDueFiles(now).then(
      (r) => r.released,
      (error: unknown) => {
        logger.error('file release sweep failed', error as Error);
        return 0;
      },
    ),
  ]);
  return { resent, released };
};
