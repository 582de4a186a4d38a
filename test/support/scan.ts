import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#shared/db/client.ts';

type Item = Record<string, unknown>;

/** Every item of the test table (a consistent scan; for orphan and leak checks only). */
export const scanTable = async (): Promise<Item[]> => {
  const found: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: process.env.TABLE_NAME,
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
};

/** Every item of the test table whose pk or sk contains one of the ids (orphan checks after deletes). */
export const itemsMentioning = async (...ids: string[]): Promise<Item[]> =>
  (await scanTable()).filter((item) =>
    ids.some((id) => String(item.pk).includes(id) || String(item.sk).includes(id)),
  );
