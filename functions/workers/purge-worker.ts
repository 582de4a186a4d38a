import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';
import { isPurgeJob, purgeQueue } from '#shared/jobs/purge-queue.ts';
import { budgetOf, runPurgeJob, sweepWorker } from '#shared/trash/job-runner.ts';

/** Time kept back from the Lambda's timeout: a page of deletes in flight finishes within it. */
const MARGIN_MS = 60_000;

/**
 * The purge worker (not a route): consumes the purge queue. Each job runs until its budget (the
 * Lambda's remaining time less a margin) is spent, then is sent again and continues from what is
 * left. A failing job is reported alone (partial batch response), retried by SQS and moved to the
 * dead-letter queue after a few receives; its job item stays, so the sweep sends it again later.
 * Every invocation then sweeps (`sweepWorker`: lost jobs sent again, files no cell holds released);
 * a scheduled invocation (no `Records`) only sweeps.
 */
export const handler = async (event: Partial<SQSEvent>, context: Context): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records ?? []) {
    try {
      const job: unknown = JSON.parse(record.body);
      if (!isPurgeJob(job)) {
        logger.warn('dropped a message that is not a purge job', { messageId: record.messageId });
        continue;
      }
      const budget = budgetOf(Math.max(10_000, context.getRemainingTimeInMillis() - MARGIN_MS));
      if ((await runPurgeJob(job, budget)) === 'more') await (await purgeQueue()).send(job);
    } catch (error) {
      logger.error('purge job failed', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  const { resent } = await sweepWorker();
  if (resent) logger.info('sent stale purge jobs again', { resent });
  return { batchItemFailures: failures };
};
