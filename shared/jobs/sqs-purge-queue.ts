import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '#shared/core/logger.ts';
import type { PurgeJob, PurgeQueue } from './purge-job.ts';

/** SQS allows at most 15 minutes of delay. */
const MAX_DELAY_SECONDS = 900;

/**
 * The purge queue of the cloud: one SQS message per job, consumed by the purge-worker Lambda
 * (functions/workers/purge-worker.ts). A send that still fails after the SDK's retries is logged,
 * not answered: the delete itself is done (the resource is invisible, its references gone) and
 * the job item is durable, so the worker's sweep of unfinished jobs sends it again.
 */
export const sqsPurgeQueue = (queueUrl: string): PurgeQueue => {
  const client = new SQSClient({ maxAttempts: 4 });
  return {
    async send(job: PurgeJob, options = {}) {
      try {
        await client.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: JSON.stringify(job),
            DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, options.delaySeconds ?? 0)),
          }),
        );
      } catch (error) {
        logger.error('could not enqueue a purge job; the sweep will', { job, error: error as Error });
      }
    },
  };
};
