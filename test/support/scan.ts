import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#shared/db/client.ts';

/** Every item of the test table whose pk or sk contains one of the ids (orphan checks after deletes). */
export const itemsMentioning = async (...ids: string[]): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: process.env.TABLE_NAME,
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? [])
      if (ids.some((id) => String(item.pk).includes(id) || String(item.sk).includes(id))) found.push(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
};
