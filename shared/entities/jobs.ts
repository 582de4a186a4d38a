import { NotFoundError } from '#shared/core/errors.ts';
import { getItems, getItemsAtomically, queryAll, type TransactOp, updateItem } from '#shared/db/client.ts';
import { EXISTS, NOT_PURGED } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { withStamps } from '#shared/db/request-scope.ts';
import { type Lookup, lookupOf } from './batch-read.ts';
import { IMPORT_ATTRIBUTES } from './import-jobs.ts';

/**
 * The items of a background job of the purge worker. Unfinished: `PURGE` `<kind>#<resourceId>`,
 * type `purgeJob` (one partition, so the sweep lists them), with its starter, its runs and when
 * it last ran. Finished: `JOB#<kind>#<resourceId>` `DONE`, type `finishedJob`, kept a week (TTL
 * on `expiresAt`) so its starter can read that it is done. An import's job item carries its plan
 * and progress too (`import-jobs.ts`).
 */

/** The kinds of jobs stored (`shared/jobs/purge-job.ts` names them for the worker). */
export type StoredJobKind = Parameters<typeof keys.purgeJob>[0];

/** A job as the queue names it: its kind and the resource it works on. */
export interface JobRef {
  kind: StoredJobKind;
  resourceId: string;
}

/**
 * A job's item as stored, unfinished or finished: read by the status route as the attributes it
 * holds (an import's report is a list of its rows' errors).
 */
export type StoredJobItem = Readonly<Record<string, unknown>>;

/** How long a finished job can still be read as done (then DynamoDB's TTL removes its item). */
export const FINISHED_JOB_TTL_SECONDS = 7 * 24 * 3600;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The two items that tell a job's state, to read in a batch: the unfinished job, and the finished one. */
export const jobStateLookups = (job: JobRef): [Lookup<StoredJobItem>, Lookup<StoredJobItem>] => [
  lookupOf(keys.purgeJob(job.kind, job.resourceId), (item) => item),
  lookupOf(keys.finishedJob(job.kind, job.resourceId), (item) => item),
];

/** The durable job item, to join the transaction that starts the job's work. Pure. */
export const putJobOp = (
  job: JobRef,
  context: { spaceId?: string; baseId?: string; userId: string },
  now: Date,
): TransactOp => ({
  put: {
    ...keys.purgeJob(job.kind, job.resourceId),
    type: 'purgeJob',
    ...job,
    ...context,
    createdTime: now.toISOString(),
    runs: 0,
  },
});

/**
 * The operations that finish a job, in one transaction: its unfinished item goes, a finished item
 * (same starter, creation time and runs) stays a week. Pure.
 */
export const finishJobOps = (job: JobRef, pending: StoredJobItem, now: Date): TransactOp[] => [
  { delete: keys.purgeJob(job.kind, job.resourceId) },
  {
    put: {
      ...keys.finishedJob(job.kind, job.resourceId),
      type: 'finishedJob',
      kind: job.kind,
      resourceId: job.resourceId,
      userId: text(pending.userId) ?? '',
      createdTime: text(pending.createdTime) ?? now.toISOString(),
      runs: typeof pending.runs === 'number' ? pending.runs : 0,
      finishedTime: now.toISOString(),
      expiresAt: Math.floor(now.getTime() / 1000) + FINISHED_JOB_TTL_SECONDS,
      // an import's report stays readable with its end
      ...Object.fromEntries(
        IMPORT_ATTRIBUTES.filter((a) => pending[a] !== undefined).map((a) => [a, pending[a]]),
      ),
    },
  },
];

/**
 * Counts a run of a job and stamps when it started; answers the job's item after it, or
 * undefined when the job is finished (its item gone).
 */
export const startJobRun = async (job: JobRef, now = new Date()): Promise<StoredJobItem | undefined> => {
  try {
    return await updateItem(
      {
        key: keys.purgeJob(job.kind, job.resourceId),
        update: 'SET updatedTime = :now ADD runs :one',
        condition: EXISTS,
        values: { ':now': now.toISOString(), ':one': 1 },
      },
      () => new NotFoundError('purge job finished'),
    );
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
};

/** The unfinished job's item as it is now, or undefined when it is finished. */
export const readJobItem = async (job: JobRef): Promise<StoredJobItem | undefined> => {
  const key = keys.purgeJob(job.kind, job.resourceId);
  return (await getItems([key])).get(key);
};

/**
 * A job's two items read together in one transactional read: it never falls between the
 * transaction that finishes the job (the unfinished item gone, the finished one not yet seen), as
 * a batch read of the two can. Answers `[unfinished, finished]`.
 */
export const readJobStateAtomically = async (
  job: JobRef,
): Promise<[StoredJobItem | undefined, StoredJobItem | undefined]> => {
  const pending = keys.purgeJob(job.kind, job.resourceId);
  const finished = keys.finishedJob(job.kind, job.resourceId);
  const found = await getItemsAtomically([pending, finished]);
  return [found.get(pending), found.get(finished)];
};

/** Every unfinished job's item (one query: they share one partition). */
export const unfinishedJobItems = async (): Promise<StoredJobItem[]> => queryAll(keys.purgeJobs());

/**
 * The update that makes a stored resource invisible for good (`purgeTime`), keeping when and by
 * whom it was first deleted; fails if it is gone or already being purged. Pure.
 */
export const markPurgedOp = (key: Key, userId: string, now: Date): TransactOp => {
  // stamped: a table deleted for good is a `table.deleted` of this request in the change log
  const stamped = withStamps([
    'deletedTime = if_not_exists(deletedTime, :now)',
    'deletedBy = if_not_exists(deletedBy, :by)',
    'purgeTime = :now',
  ]);
  return {
    update: {
      key,
      update: stamped.update,
      names: stamped.names,
      condition: NOT_PURGED,
      values: { ...stamped.values, ':now': now.toISOString(), ':by': userId },
    },
  };
};

/** The key of a space, base or table item (the resource a permanent delete marks). */
const resourceItemKey = (kind: 'space' | 'base' | 'table', id: string): Key =>
  kind === 'space' ? keys.space(id) : kind === 'base' ? keys.base(id) : keys.table(id);

/** `markPurgedOp` on a space, base or table named by its kind and id. Pure. */
export const markResourcePurgedOp = (
  kind: 'space' | 'base' | 'table',
  id: string,
  userId: string,
  now: Date,
): TransactOp => markPurgedOp(resourceItemKey(kind, id), userId, now);
