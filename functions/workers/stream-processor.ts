import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { captureBatch } from '#shared/changes/processor.ts';
import { config } from '#shared/config.ts';
import { logger } from '#shared/core/logger.ts';
import { type StreamRecord, streamRecordOf, type WireStreamRecord } from '#shared/db/stream.ts';

/**
 * The stream processor (not a route): the table's change stream → the change log (data-flow.md
 * 1). A batch whose records cannot all be captured reports the first one not captured (partial
 * batch response): Lambda hands the batch again from there, and records already captured are not
 * written twice. After the mapping's retries the batch goes to the on-failure queue.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const records = (event.Records ?? [])
    // the event's records are the wire shape GetRecords answers too
    .map((r) => streamRecordOf(r as WireStreamRecord))
    .filter((r): r is StreamRecord => !!r);
  try {
    const outcome = await captureBatch(records, config.changeLogDays);
    if (!outcome.firstFailed) return { batchItemFailures: [] };
    logger.warn('change capture stopped at a record', { sequence: outcome.firstFailed.sequence });
    return { batchItemFailures: [{ itemIdentifier: outcome.firstFailed.sequence }] };
  } catch (error) {
    logger.error('change capture failed', error as Error);
    const first = records[0];
    return { batchItemFailures: first ? [{ itemIdentifier: first.sequence }] : [] };
  }
};
