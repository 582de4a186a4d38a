import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll } from 'vitest';
import { ensureTable } from '#infra/local/table.ts';

/**
 * Setup file of the `capture` project: each file that reads the change stream gets a table of its
 * own (the shared definition, stream on) in the run's DynamoDB Local, so its stream poller reads
 * only what that file writes, and such files run side by side with each other and with the rest.
 * Runs before the file's modules load: everything the file starts (handlers, servers, programs)
 * takes this table from the environment. The table is deleted after the file.
 */
const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
const tableName = `${process.env.TABLE_NAME}-own-${process.pid}-${Date.now().toString(36)}`;
process.env.TABLE_NAME = tableName;
await ensureTable(tableName, endpoint);

afterAll(async () => {
  const client = new DynamoDBClient({ endpoint });
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    client.destroy();
  }
});
