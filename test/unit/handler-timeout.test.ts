import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#infra/local/api-gateway-event.ts';
import { REPAIR_WITHIN_SECONDS } from '#shared/db/commit.ts';
import { deadlineError } from '#shared/http/handler.ts';
import { type HandlerName, routeOf } from '#shared/routes.ts';
import { batchGetFrom, signedInUser } from './support/fake-table.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddbMock.reset();
});

const stall = (ms: number) => () => new Promise((resolve) => setTimeout(() => resolve({}), ms));

const invoke = async (name: HandlerName, path: string, auth: string, timeoutMs: number, body?: unknown) => {
  const { handler } = await import(`../../functions/${name}.ts`);
  const route = routeOf(name);
  const event = toApiGatewayEvent(
    {
      method: route.method,
      path,
      rawQueryString: '',
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? Buffer.from(JSON.stringify(body)) : undefined,
    },
    route,
    {},
  );
  const res = await handler(event, lambdaContext(name, timeoutMs));
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body ?? '') };
};

describe('a request about to pass the Lambda time limit', () => {
  it('is answered 503 "nothing was written" with Retry-After while it has only read', async () => {
    const user = signedInUser();
    // The database never answers within the (short) remaining time.
    ddbMock.on(BatchGetCommand).callsFake(stall(2000));

    const res = await invoke('get-current-user', '/api/auth/user/me', user.auth, 600);

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({
      message:
        'The request did not finish within the time limit; nothing was written. Retry, or ask for less (a narrower filter, a lower take)',
      status: 503,
      code: 'service_unavailable',
      requestId: res.headers['x-request-id'],
    });
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  });

  it('is answered 504 outcome_unknown, never "nothing was written", once a write was sent', async () => {
    const user = signedInUser();
    ddbMock.on(BatchGetCommand).callsFake(batchGetFrom(user.items));
    // The write of the new space stalls past the deadline: it may still land.
    ddbMock.on(TransactWriteCommand).callsFake(stall(3000));
    ddbMock.on(PutCommand).callsFake(stall(3000));

    const res = await invoke('create-space', '/api/space', user.auth, 1500, { name: 'Slow' });

    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ status: 504, code: 'outcome_unknown' });
    expect(res.body.message).toMatch(/may or may not have been made/);
    expect(res.body.message).not.toMatch(/nothing was written/);
  });

  it('refuses to start writing with under a second left: 503, and no write is sent', async () => {
    const user = signedInUser();
    // Authentication itself eats the time: 700 ms of a 1,500 ms budget (less the 250 ms early answer).
    ddbMock.on(BatchGetCommand).callsFake(async (input) => {
      await new Promise((r) => setTimeout(r, 700));
      return batchGetFrom(user.items)(input);
    });

    const res = await invoke('create-space', '/api/space', user.auth, 1500, { name: 'Late' });

    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'service_unavailable' });
    expect(res.body.message).toMatch(/nothing was written/);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
  });
});

describe('deadlineError', () => {
  it.each([
    ['no write sent', { writesSent: 0, openWrites: 0 }, 503, 'service_unavailable'],
    ['a write sent', { writesSent: 2, openWrites: 0 }, 504, 'outcome_unknown'],
    ['a journaled write open', { writesSent: 9, openWrites: 1 }, 504, 'write_interrupted'],
  ] as const)('%s: %i %s', (_, scope, status, code) => {
    const error = deadlineError(scope);

    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    if (code === 'write_interrupted')
      expect(error.headers['retry-after']).toBe(String(REPAIR_WITHIN_SECONDS));
  });
});
