import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, inject } from 'vitest';
import { ensureTable } from '#infra/local/table.ts';
import { leaseSlot } from './workers.ts';

/**
 * Setup file of the `capture` project: each file that reads the change stream gets a table of its
 * own (the shared definition, stream on) in a DynamoDB Local of the project's own that no
 * other file running at the same moment uses (`support/capture-dynamodb.ts`), so its stream poller reads only what that file writes, and two
 * such files run side by side. Runs before the file's modules load: everything the file starts
 * (handlers, servers, programs) takes this endpoint and table from the environment. The table is
 * deleted after the file.
 */
// one no other file running at the same moment uses
const { endpoints, leases } = inject('captureDynamoDb');
const { slot, release } = leaseSlot(leases, endpoints.length);
const endpoint = endpoints[slot] as string;
process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
const tableName = `${process.env.TABLE_NAME}-own-${process.pid}-${Date.now().toString(36)}`;
process.env.TABLE_NAME = tableName;
await ensureTable(tableName, endpoint);

afterAll(async () => {
  release();
  const client = new DynamoDBClient({ endpoint });
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    client.destroy();
  }
});
