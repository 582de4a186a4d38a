import {
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, InternalServerError } from '#shared/core/errors.ts';
import { TABLE } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { createUser } from '#shared/users/users.ts';
import { call } from '#test/support/invoke.ts';
import { batchGetFrom, signedInUser } from './support/fake-table.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);

const UNAVAILABLE_BODY = {
  message: 'The database is busy or unreachable; nothing was written, retry later',
  status: 503,
  code: 'service_unavailable',
};
const INTERNAL_BODY = { message: 'Internal server error', status: 500, code: 'internal_server_error' };

const named = (name: string, message = name) => Object.assign(new Error(message), { name });
const withCode = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

let user: ReturnType<typeof signedInUser>;

beforeEach(() => {
  ddbMock.reset();
  user = signedInUser();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('a failing BatchGetItem (authentication read)', () => {
  it('ProvisionedThroughputExceededException is a 503 service_unavailable with Retry-After', async () => {
    ddbMock
      .on(BatchGetCommand)
      .rejects(new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} }));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(503);
    expect(res.body).toStrictEqual(UNAVAILABLE_BODY);
    expect(res.headers['retry-after']).toBe('1');
  });

  it.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
    'ServiceUnavailable',
    'TimeoutError',
    'RequestTimeout',
  ])('an Error named %s is a 503 with Retry-After', async (name) => {
    ddbMock.on(BatchGetCommand).rejects(named(name));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(503);
    expect(res.body).toStrictEqual(UNAVAILABLE_BODY);
    expect(res.headers['retry-after']).toBe('1');
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'])(
    'a network error with code %s is a 503',
    async (code) => {
      ddbMock.on(BatchGetCommand).rejects(withCode(code));

      const res = await call('get-current-user', { token: user.auth });

      expect(res.status).toBe(503);
      expect(res.body).toStrictEqual(UNAVAILABLE_BODY);
      expect(res.headers['retry-after']).toBe('1');
    },
  );

  it('an unexpected TypeError is a 500 saying only "Internal server error"', async () => {
    ddbMock.on(BatchGetCommand).rejects(new TypeError("Cannot read properties of undefined (reading 'pk')"));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(500);
    expect(res.body).toStrictEqual(INTERNAL_BODY);
    expect(JSON.stringify(res.body)).not.toMatch(/TypeError|pk|at /);
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('a DynamoDB ValidationException (a fault of ours) is a 500, not echoed', async () => {
    ddbMock
      .on(BatchGetCommand)
      .rejects(named('ValidationException', 'The provided key element does not match'));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(500);
    expect(res.body).toStrictEqual(INTERNAL_BODY);
  });

  it('unprocessed keys are read again, and the request then succeeds', async () => {
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [] },
        UnprocessedKeys: { [TABLE]: { Keys: user.items.map((i) => ({ pk: i.pk, sk: i.sk })) } },
      })
      .callsFake(batchGetFrom(user.items));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.userId, name: 'Ada', email: 'ada@example.test' });
    expect(ddbMock).toHaveReceivedCommandTimes(BatchGetCommand, 2);
  });

  it('keys left unprocessed on every try are a 503 after 9 tries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    ddbMock.on(BatchGetCommand).resolves({
      Responses: { [TABLE]: [] },
      UnprocessedKeys: { [TABLE]: { Keys: user.items.map((i) => ({ pk: i.pk, sk: i.sk })) } },
    });

    const pending = call('get-current-user', { token: user.auth });
    await vi.advanceTimersByTimeAsync(10_000);
    const res = await pending;

    expect(res.status).toBe(503);
    expect(res.body).toStrictEqual(UNAVAILABLE_BODY);
    expect(ddbMock).toHaveReceivedCommandTimes(BatchGetCommand, 9);
  });
});

describe('a failing TransactWriteItems (create-space)', () => {
  beforeEach(() => {
    ddbMock.on(BatchGetCommand).callsFake(batchGetFrom(user.items));
  });

  it('the request succeeds when the transaction does (control)', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});

    const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.stringMatching(/^spc[0-9A-Za-z]{16}$/), name: 'Plans' });
    expect(ddbMock).toHaveReceivedCommandOnce(TransactWriteCommand);
  });

  it.each(['ThrottlingError', 'ProvisionedThroughputExceeded'])(
    'a cancellation for %s is a 503 and nothing is sent after it',
    async (code) => {
      ddbMock.on(TransactWriteCommand).rejects(cancelled(code, 'None', 'None'));

      const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

      expect(res.status).toBe(503);
      expect(res.body).toStrictEqual(UNAVAILABLE_BODY);
      expect(res.headers['retry-after']).toBe('1');
      expect(ddbMock.calls().map((c) => c.args[0].constructor.name)).toStrictEqual([
        'BatchGetCommand',
        'TransactWriteCommand',
      ]);
    },
  );

  it('a TransactionConflict is retried 3 times and then answered 409 conflict', async () => {
    ddbMock.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None', 'None'));

    const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

    expect(res.status).toBe(409);
    expect(res.body).toStrictEqual({
      message: 'A concurrent change to the same items won; retry the request',
      status: 409,
      code: 'conflict',
    });
    expect(ddbMock).toHaveReceivedCommandTimes(TransactWriteCommand, 4);
  });

  it('a TransactionConflict followed by success is a 201 (the retry sends the same items)', async () => {
    ddbMock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'TransactionConflict', 'None'))
      .resolves({});

    const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

    expect(res.status).toBe(201);
    const sent = ddbMock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toStrictEqual(sent[0]);
  });

  it('a ConditionalCheckFailed on the new space item is a 409 from the route mapping', async () => {
    ddbMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));

    const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

    expect(res.status).toBe(409);
    expect(res.body).toStrictEqual({ message: 'Space id collision; retry', status: 409, code: 'conflict' });
    expect(ddbMock).toHaveReceivedCommandOnce(TransactWriteCommand);
  });

  it('an unexpected error from the transaction is a 500', async () => {
    ddbMock.on(TransactWriteCommand).rejects(new TypeError('boom'));

    const res = await call('create-space', { token: user.auth, body: { name: 'Plans' } });

    expect(res.status).toBe(500);
    expect(res.body).toStrictEqual(INTERNAL_BODY);
  });

  it('a throttled Query (default name lookup) is a 503 and no transaction is sent', async () => {
    ddbMock.on(QueryCommand).rejects(named('ThrottlingException'));

    const res = await call('create-space', { token: user.auth, body: {} });

    expect(res.status).toBe(503);
    expect(ddbMock).not.toHaveReceivedCommand(TransactWriteCommand);
  });
});

describe('the lastUsedTime refresh', () => {
  it('a failing refresh does not fail the request', async () => {
    const [token, profile] = user.items as [Record<string, unknown>, Record<string, unknown>];
    ddbMock.on(BatchGetCommand).callsFake(batchGetFrom([{ ...token, lastUsedTime: null }, profile]));
    ddbMock.on(UpdateCommand).rejects(named('ThrottlingException'));

    const res = await call('get-current-user', { token: user.auth });

    expect(res.status).toBe(200);
    expect(ddbMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: keys.accessToken(user.userId, user.tokenId),
      UpdateExpression: 'SET lastUsedTime = :t',
    });
  });
});

describe('transact onConditionFailed mapping (createUser)', () => {
  it('ConditionalCheckFailed at index 0 (the email claim) is a 409 email in use', async () => {
    ddbMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));

    const error = await createUser({ name: 'Ada', email: 'Ada@Example.test' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).toBody()).toStrictEqual({
      message: 'The email Ada@Example.test is already in use',
      status: 409,
      code: 'conflict',
    });
  });

  it('ConditionalCheckFailed at another index is an internal error', async () => {
    ddbMock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));

    await expect(createUser({ name: 'Ada', email: 'ada@example.test' })).rejects.toBeInstanceOf(
      InternalServerError,
    );
  });

  it('claims the lower-case email with a condition, in the same transaction as the user and token', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});

    const created = await createUser({ name: 'Ada', email: ' Ada@Example.test ' });

    const input = ddbMock.commandCalls(TransactWriteCommand)[0]?.args[0].input;
    expect(input?.TransactItems).toHaveLength(3);
    expect(input?.TransactItems?.[0]).toStrictEqual({
      Put: {
        TableName: TABLE,
        Item: { pk: 'EMAIL#ada@example.test', sk: 'EMAIL', type: 'userEmail', userId: created.id },
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeNames: undefined,
        ExpressionAttributeValues: undefined,
      },
    });
    expect(input?.TransactItems?.[1]?.Put?.Item).toMatchObject({
      ...keys.user(created.id),
      email: 'Ada@Example.test',
    });
    expect(input?.TransactItems?.[2]?.Put?.Item).toMatchObject(keys.accessToken(created.id, created.tokenId));
  });
});
