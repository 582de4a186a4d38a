/** DynamoDB's size and value limits (issue 10.5): refusals become 4xx, large writes are chunked by size. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoValidationError, putItem, type TransactOp, transact } from '#shared/db/client.ts';
import { chunkSteps, type Step } from '#shared/db/commit.ts';
import { ConflictError, HttpError } from '#shared/http/errors.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
afterEach(() => ddbMock.reset());

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });
const statusOf = (error: unknown) => (error instanceof HttpError ? [error.status, error.code] : error);

describe('dynamoValidationError', () => {
  it.each([
    ['Item size has exceeded the maximum allowed size', 413, 'payload_too_large'],
    ['Item size to update has exceeded the maximum allowed size', 413, 'payload_too_large'],
    ['Transaction payload size cannot exceed 4MB. Payload Size: 4352143', 413, 'payload_too_large'],
    ['Transaction request cannot be larger than 4 MB', 413, 'payload_too_large'],
    [
      'Number overflow. Attempting to store a number with magnitude larger than supported range',
      400,
      'validation_error',
    ],
    [
      'Number underflow. Attempting to store a number with magnitude smaller than supported range',
      400,
      'validation_error',
    ],
    [
      'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes',
      400,
      'validation_error',
    ],
  ])('%s → %i %s', (message, status, code) => {
    expect(statusOf(dynamoValidationError(message))).toEqual([status, code]);
  });

  it('leaves a malformed request (a fault of ours) alone: it is logged and answered 500', () => {
    expect(dynamoValidationError('Invalid UpdateExpression: Syntax error; token: "SETT"')).toBeUndefined();
  });
});

describe('the client maps refusals of size', () => {
  it('a put refused for its size is a 413, not a 500', async () => {
    ddbMock.on(PutCommand).rejects(validation('Item size has exceeded the maximum allowed size'));

    const error = await putItem({ pk: 'a', sk: 'b' }).catch((e: unknown) => e);

    expect(statusOf(error)).toEqual([413, 'payload_too_large']);
  });

  it('a transaction cancelled for an item over 400 KB is a 413, not a 409 race', async () => {
    ddbMock.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None]',
        $metadata: {},
        CancellationReasons: [
          { Code: 'ValidationError', Message: 'Item size to update has exceeded the maximum allowed size' },
          { Code: 'None' },
        ],
      }),
    );
    const ops: TransactOp[] = [{ put: { pk: 'a', sk: 'b' } }, { put: { pk: 'a', sk: 'c' } }];

    const error = await transact(ops, () => new ConflictError('condition')).catch((e: unknown) => e);

    expect(statusOf(error)).toEqual([413, 'payload_too_large']);
  });

  it('any other ValidationException stays an unexpected error', async () => {
    ddbMock.on(PutCommand).rejects(validation('ExpressionAttributeValues must not be empty'));

    const error = await putItem({ pk: 'a', sk: 'b' }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'ValidationException' });
  });
});

describe('chunkSteps keeps every transaction under 4 MB and every journal under 400 KB', () => {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  const record = (i: number, bytes: number) => ({
    pk: 'RECORDS#tbl',
    sk: `rec${i}`,
    fldA: 'x'.repeat(bytes),
  });
  const update = (i: number, bytes: number): Step => ({
    op: {
      update: {
        key: { pk: 'RECORDS#tbl', sk: `rec${i}` },
        update: 'SET #f0 = :f0',
        names: { '#f0': 'fldB' },
        values: { ':f0': 'y'.repeat(bytes) },
      },
    },
    undo: { put: record(i, 256 * 1024) },
  });

  it.each([
    ['max-size undo images, small edits', Array.from({ length: 150 }, (_, i) => update(i, 10))],
    [
      'small undo images, 50 KB edits',
      Array.from({ length: 150 }, (_, i) => ({ ...update(i, 50 * 1024), undo: null })),
    ],
    ['max-size undo images and 128 KB edits', Array.from({ length: 60 }, (_, i) => update(i, 128 * 1024))],
  ])('%s', (_, steps) => {
    const chunks = chunkSteps(steps);

    expect(chunks.flat()).toEqual(steps);
    for (const chunk of chunks) {
      const journal = size(chunk.map((s) => s.undo));
      const transaction = size(chunk.map((s) => s.op)) + journal;
      expect(chunk.length).toBeLessThanOrEqual(97);
      expect(journal <= 300_000 || chunk.length === 1).toBe(true);
      expect(journal).toBeLessThan(400 * 1024 - 2048);
      expect(transaction).toBeLessThanOrEqual(3_000_000 + 1024);
    }
  });
});
