/** DynamoDB's size and value limits (issue 10.5): refusals become 4xx, large writes are chunked by size. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, HttpError } from '#shared/core/errors.ts';
import { dynamoValidationError, putItem, type TransactOp, transact } from '#shared/db/client.ts';
import { chunkSteps, type Step } from '#shared/db/commit.ts';
import { MAX_CELL_BYTES, MAX_RECORD_BYTES } from '#shared/records/limits.ts';

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

// The journal of a large write holds each step's undo image: a record at the size limit (256 KB of
// cells and its envelope) must still fit a journal item. chunkSteps closes a journal at 300 KB, or
// after one step larger than that.
describe('chunkSteps: every journal item stays under 400 KB with records at the size limit', () => {
  const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  const record = (i: number) => ({
    pk: 'RECORDS#tblAAAAAAAAAAAAAAAA',
    sk: `recAAAAAAAAAAAAA${String(i).padStart(3, '0')}`,
    type: 'record',
    id: `recAAAAAAAAAAAAA${String(i).padStart(3, '0')}`,
    autoNumber: i,
    createdTime: '2026-11-25T00:00:00.000Z',
    lastModifiedTime: '2026-11-25T00:00:00.000Z',
    cb: { id: 'usrAAAAAAAAAAAAAAAA', title: 'A user with a long name'.repeat(10), email: 'a@example.com' },
    mb: { id: 'usrAAAAAAAAAAAAAAAA', title: 'A user with a long name'.repeat(10), email: 'a@example.com' },
    version: 7,
    ord: Object.fromEntries(
      Array.from({ length: 50 }, (_, v) => [`viw${String(v).padStart(16, 'A')}`, 'a0V']),
    ),
    fldAAAAAAAAAAAAAAAA: 'x'.repeat(MAX_CELL_BYTES - 2),
    fldBBBBBBBBBBBBBBBB: 'y'.repeat(MAX_RECORD_BYTES - MAX_CELL_BYTES - 2),
  });
  const update = (i: number): Step => ({
    op: {
      update: { key: { pk: 'RECORDS#tbl', sk: `rec${i}` }, update: 'SET #f0 = :f0', values: { ':f0': 1 } },
    },
    undo: { put: record(i) },
  });

  it('150 updates of records at the limit: one per journal, each under 400 KB', () => {
    const steps = Array.from({ length: 150 }, (_, i) => update(i));

    const chunks = chunkSteps(steps);

    expect(chunks.flat()).toEqual(steps);
    expect(chunks).toHaveLength(150);
    for (const chunk of chunks) expect(size(chunk.map((s) => s.undo))).toBeLessThan(400 * 1024 - 4096);
  });
});
