import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { logger } from '#shared/core/logger.ts';

/** SQS allows at most 15 minutes of delay; a later retry is found by the sender's sweep. */
const MAX_DELAY_SECONDS = 900;

/**
 * The webhook queue of the cloud: one message `{baseId}` per wake-up. A send that still fails
 * after the SDK's retries is logged: the changes stay in the log, and the next change or the
 * sweep wakes the base again.
 */
export const sqsWebhookQueue = (queueUrl: string) => {
  const client = new SQSClient({ maxAttempts: 4 });
  return {
    async wake(baseId: string, delayMs = 0): Promise<void> {
      const delaySeconds = Math.ceil(delayMs / 1000);
      if (delaySeconds > MAX_DELAY_SECONDS) return;
      try {
        await client.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: JSON.stringify({ baseId }),
            DelaySeconds: Math.max(0, delaySeconds),
          }),
        );
      } catch (error) {
        logger.error('could not wake a base’s webhooks; the sweep or the next change will', {
          baseId,
          error: error as Error,
        });
      }
    },
  };
};
