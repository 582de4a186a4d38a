import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';
import { basesWithRetriesDue, deliverBase } from '#shared/webhooks/deliver.ts';
import { webhookQueue } from '#shared/webhooks/queue.ts';

/** Time kept back from the Lambda's timeout: an attempt started before it has its 10 s and its save. */
const MARGIN_MS = 30_000;

/**
 * The webhook sender (not a route): consumes the webhook queue (`{baseId}` messages, sent by the
 * stream processor after it writes a base's changes, by routes that redeliver or enable a webhook,
 * and by itself for a retry due within 15 minutes), and every minute sweeps the webhooks whose
 * retry is due (a scheduled invocation: no `Records`). Each base's webhooks deliver apart
 * (`webhooks/deliver.ts`); a base whose run throws is reported alone (partial batch response) and
 * retried by SQS, then moved to the dead-letter queue — its changes stay in the log, and the next
 * change or the sweep delivers them.
 */
export const handler = async (event: Partial<SQSEvent>, context: Context): Promise<SQSBatchResponse> => {
  const deadline = Date.now() + Math.max(5_000, context.getRemainingTimeInMillis() - MARGIN_MS);
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  const queue = await webhookQueue();
  const run = async (baseId: string) => {
    const next = await deliverBase(baseId, { deadline });
    if (next !== undefined) await queue.wake(baseId, Math.max(0, next - Date.now()));
  };
  if (!event.Records) {
    const due = await basesWithRetriesDue();
    await Promise.all(
      due.map((baseId) =>
        run(baseId).catch((error: unknown) =>
          logger.error('webhook retry sweep failed for a base', { baseId, error: error as Error }),
        ),
      ),
    );
    return { batchItemFailures: [] };
  }
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const { baseId } = JSON.parse(record.body) as { baseId?: unknown };
        if (typeof baseId !== 'string') {
          logger.warn('dropped a message that names no base', { messageId: record.messageId });
          return;
        }
        await run(baseId);
      } catch (error) {
        logger.error('webhook delivery failed', { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
