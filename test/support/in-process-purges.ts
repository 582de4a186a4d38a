/**
 * Setup file of the integration and e2e projects (and imported by the bench): purge jobs run in
 * the test process, as on the local server (`shared/jobs/purge-queue.ts`); tests await them with
 * `drainPurges()`. Webhooks are delivered from it too (`shared/webhooks/queue.ts`).
 */
import { runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { runPurgeJob } from '#shared/trash/job-runner.ts';
import { deliverBase } from '#shared/webhooks/deliver.ts';
import { deliverWebhooksInProcess } from '#shared/webhooks/queue.ts';

runPurgesInProcess(runPurgeJob);
deliverWebhooksInProcess((baseId) => deliverBase(baseId));
