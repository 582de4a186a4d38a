import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE_DEFINITION } from '#shared/db/table-definition.ts';

/** Creates the table from the shared definition unless it exists (local and tests only). */
export const ensureTable = async (tableName: string, endpoint: string): Promise<void> => {
  const client = new DynamoDBClient({ endpoint });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
    }),
  );
  client.destroy();
};
