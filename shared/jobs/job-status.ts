import { NotFoundError } from '#shared/core/errors.ts';
import { jobStateLookups, readJobStateAtomically, type StoredJobItem } from '#shared/entities/jobs.ts';
import type { JobKind, PurgeJob } from './purge-job.ts';

/**
 * What the caller who started a background job can read of it (`GET /api/job/{kind}/{resourceId}`):
 * `queued` until a worker first runs it, `running` once one has (it may run several times, each
 * continuing from what is left), `done` when nothing is left to do, `failed` when it stopped
 * without doing it (an import whose file could not be read: `failure` says why).
 */
export interface JobStatus {
  kind: JobKind;
  resourceId: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  /** Worker runs so far. */
  runs: number;
  createdTime: string;
  /** When a worker last ran it. */
  lastRunTime?: string;
  finishedTime?: string;
  /** An import's progress: data rows written and (once counted) in the file. */
  progress?: { rowsDone: number; rowsTotal?: number };
  /** An import's rows taken otherwise than given (the first 1,000; `errorCount` counts them all). */
  errors?: unknown[];
  errorCount?: number;
  /** Why an import stopped without writing anything. */
  failure?: string;
}

/** An import's progress and report, from its item (nothing for other jobs). */
const importFacts = (item: StoredJobItem): Partial<JobStatus> =>
  item.kind === 'import'
    ? {
        progress: {
          rowsDone: typeof item.rowsDone === 'number' ? item.rowsDone : 0,
          ...(typeof item.rowsTotal === 'number' ? { rowsTotal: item.rowsTotal } : {}),
        },
        errors: Array.isArray(item.rowErrors) ? item.rowErrors : [],
        errorCount: typeof item.errorCount === 'number' ? item.errorCount : 0,
        ...(typeof item.failure === 'string' ? { failure: item.failure } : {}),
      }
    : {};

/** The two items that tell a job's state: the unfinished job, and the finished one. */
export const jobStatusLookups = (job: PurgeJob) => jobStateLookups(job);

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The job's state as its starter sees it, from its two items. A job that does not exist, that
 * someone else started, or whose finished item expired is a 404 (nothing is revealed).
 */
export const jobStatusOf = (
  job: PurgeJob,
  userId: string,
  pending: StoredJobItem | undefined,
  finished: StoredJobItem | undefined,
  now = new Date(),
): JobStatus => {
  const item =
    pending ?? (finished && Number(finished.expiresAt) * 1000 > now.getTime() ? finished : undefined);
  if (!item || item.userId !== userId)
    throw new NotFoundError(`no ${job.kind} job for ${job.resourceId} started by you`);
  const runs = typeof item.runs === 'number' ? item.runs : 0;
  const createdTime = text(item.createdTime) ?? '';
  if (item === finished)
    return {
      ...job,
      state: typeof finished.failure === 'string' ? 'failed' : 'done',
      runs,
      createdTime,
      finishedTime: text(finished.finishedTime),
      ...importFacts({ ...finished, kind: job.kind }),
    };
  const lastRunTime = text(item.updatedTime);
  return {
    ...job,
    state: runs > 0 ? 'running' : 'queued',
    runs,
    createdTime,
    ...(lastRunTime ? { lastRunTime } : {}),
    ...importFacts(item),
  };
};

/**
 * The job's state from the two items read with the request (`jobStatusLookups`); when neither was
 * there, read again in one transactional read before answering 404: the batch may have read the
 * two on either side of the transaction that finished the job.
 */
export const currentJobStatus = async (
  job: PurgeJob,
  userId: string,
  pending: StoredJobItem | undefined,
  finished: StoredJobItem | undefined,
): Promise<JobStatus> => {
  if (pending || finished) return jobStatusOf(job, userId, pending, finished);
  const [nowPending, nowFinished] = await readJobStateAtomically(job);
  return jobStatusOf(job, userId, nowPending, nowFinished);
};
