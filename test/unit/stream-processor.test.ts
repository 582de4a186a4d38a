import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it } from 'vitest';
import { handler } from '#functions/workers/stream-processor.ts';

/**
 * Issue 28: the stream Lambda's fault paths that DynamoDB Local cannot stage. A batch whose log
 * write fails reports the first record not captured (partial batch response), so Lambda hands the
 * batch again from there; a batch that is captured reports nothing.
 */

const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());

const B = 'bseAAAAAAAAAAAAAAAA';
const table = (id: string, name: string) => ({
  pk: `TABLE#${id}`,
  sk: 'TABLE',
  type: 'table',
  id,
  baseId: B,
  name,
});
const event = (...pairs: [string, string][]): DynamoDBStreamEvent => ({
  Records: pairs.map(([id, seq]) => ({
    eventID: `ev-${seq}`,
    eventName: 'MODIFY',
    dynamodb: {
      SequenceNumber: seq,
      ApproximateCreationDateTime: 1_796_000_000,
      OldImage: marshall(table(id, 'a')) as never,
      NewImage: marshall(table(id, 'b')) as never,
    },
  })),
});

/** The reads the capture makes: schemas (tables gone: empty), markers (none), the head (none). */
const reads = () => {
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(GetCommand).resolves({});
};

describe('stream processor Lambda', () => {
  it('reports nothing when every record is captured', async () => {
    reads();
    ddb.on(TransactWriteCommand).resolves({});

    const out = await handler(event(['tblAAAAAAAAAAAAAAAA', '100'], ['tblAAAAAAAAAAAAAAAA', '101']));

    expect(out).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });

  it("reports the base's first record when its log cannot be written (the batch resumes there)", async () => {
    reads();
    ddb.on(TransactWriteCommand).rejects(Object.assign(new Error('boom'), { name: 'InternalServerError' }));

    const out = await handler(event(['tblAAAAAAAAAAAAAAAA', '100'], ['tblAAAAAAAAAAAAAAAA', '101']));

    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '100' }] });
  });

  it('an empty or foreign event reports nothing and writes nothing', async () => {
    reads();

    expect(await handler({ Records: [] })).toEqual({ batchItemFailures: [] });
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 0);
  });
});
