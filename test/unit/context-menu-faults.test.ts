import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';
import { moveContextMenuPlugin } from '#shared/plugins/context-menu.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
const TABLE_ID = 'tbl0000000000000001';
const entry = (id: string, orderKey: string) => ({
  ...keys.contextMenuItem(TABLE_ID, id),
  type: 'contextMenuPlugin',
  id,
  pluginId: 'plg0000000000000001',
  name: id,
  orderKey,
});
const [A, B, C] = ['pli000000000000000A', 'pli000000000000000B', 'pli000000000000000C'];

beforeEach(() => ddbMock.reset());

describe('moving a context-menu entry when the menu changes at the same time', () => {
  it('an entry removed between the read and the write is a 404, nothing else written', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [entry(A, 'U'), entry(B, 'k'), entry(C, 't')] });
    ddbMock
      .on(UpdateCommand)
      .rejects(
        new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }),
      );
    await expect(
      moveContextMenuPlugin({ tableId: TABLE_ID, pluginInstallId: C, anchorId: B, position: 'before' }),
    ).rejects.toMatchObject({ status: 404, message: `Plugin install ${C} not found in this context menu` });
    expect(ddbMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: keys.contextMenuItem(TABLE_ID, C),
      ConditionExpression: 'attribute_exists(pk)',
    });
    expect(ddbMock).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('a rebalance (tied keys) that meets a removed entry is a 409, in one transaction', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [entry(A, 'U'), entry(B, 'k'), entry(C, 'k')] });
    ddbMock.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      }),
    );
    await expect(
      moveContextMenuPlugin({ tableId: TABLE_ID, pluginInstallId: A, anchorId: B, position: 'after' }),
    ).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(ddbMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    expect(ddbMock).not.toHaveReceivedCommand(UpdateCommand);
  });

  it('moving an entry relative to itself is a 400 before any read', async () => {
    await expect(
      moveContextMenuPlugin({ tableId: TABLE_ID, pluginInstallId: A, anchorId: A, position: 'after' }),
    ).rejects.toMatchObject({ status: 400 });
    expect(ddbMock).not.toHaveReceivedCommand(QueryCommand);
  });
});
