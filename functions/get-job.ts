import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { currentJobStatus, jobStatusLookups } from '#shared/jobs/job-status.ts';
import { JOB_KINDS } from '#shared/jobs/purge-job.ts';

const params = z.object({ kind: z.enum(JOB_KINDS), resourceId: z.string().check(z.minLength(1)) });

// The job's two items are read in the same call as the token: one round trip in all.
export const handler = defineHandler(
  'get-job',
  { params, preload: (_userId, { params: job }) => jobStatusLookups(job) },
  async ({ params: job, principal, loaded }) => {
    const [pending, finished] = jobStatusLookups(job).map((l) => loaded.valueFor(l));
    return currentJobStatus(job, principal.userId, pending, finished);
  },
);
