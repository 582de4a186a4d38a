/**
 * Setup file of the integration and e2e projects (and imported by the bench): purge jobs run in
 * the test process, as on the local server (`shared/jobs/purge-queue.ts`); tests await them with
 * `drainPurges()`.
 */
import { runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { runPurgeJob } from '#shared/trash/purge-worker.ts';

runPurgesInProcess(runPurgeJob);
