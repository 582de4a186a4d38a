import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#shared/db/client.ts';

type Item = Record<string, unknown>;

/** Segments of a parallel scan: the shared test table grows over a suite run. */
const SEGMENTS = 4;

/**
 * Items of the test table (a consistent, parallel scan; for orphan and leak checks only), all of
 * them or those a filter expression keeps (filtered by DynamoDB, so only matches cross the wire).
 */
export const scanTable = async (filter?: {
  expression: string;
  values: Record<string, unknown>;
}): Promise<Item[]> => {
  const segment = async (n: number) => {
    const found: Item[] = [];
    let startKey: Item | undefined;
    do {
      const page = await documentClient.send(
        new ScanCommand({
          TableName: process.env.TABLE_NAME,
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
          Segment: n,
          TotalSegments: SEGMENTS,
          ...(filter
            ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values }
            : {}),
        }),
      );
      found.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  };
  return (await Promise.all(Array.from({ length: SEGMENTS }, (_, n) => segment(n)))).flat();
};

/**
 * Every item of the test table whose pk or sk contains one of the ids (orphan checks after
 * deletes). Not the record of a finished background job (`keys.finishedJob`, `JOB#…`): a permanent
 * delete leaves it on purpose, for a week, so its starter can read that the delete is done.
 */
export const itemsMentioning = async (...ids: string[]): Promise<Item[]> => {
  if (ids.length === 0) return [];
  const values = { ...Object.fromEntries(ids.map((id, i) => [`:i${i}`, id])), ':job': 'JOB#' };
  const mentions = ids.map((_, i) => `contains(pk, :i${i}) OR contains(sk, :i${i})`).join(' OR ');
  return scanTable({ expression: `(${mentions}) AND NOT begins_with(pk, :job)`, values });
};
