import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext, toApiGatewayEvent } from '#infra/local/api-gateway-event.ts';
import { routeOf } from '#shared/routes.ts';
import { signedInUser } from './support/fake-table.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddbMock.reset();
});

describe('a request about to pass the Lambda time limit', () => {
  it('is answered 503 with Retry-After, not a bare 500', async () => {
    const user = signedInUser();
    // The database never answers within the (short) remaining time.
    ddbMock
      .on(BatchGetCommand)
      .callsFake(() => new Promise((resolve) => setTimeout(() => resolve({}), 2000)));
    const { handler } = await import('#functions/get-current-user.ts');
    const route = routeOf('get-current-user');
    const event = toApiGatewayEvent(
      { method: 'GET', path: '/api/auth/user/me', rawQueryString: '', headers: { authorization: user.auth } },
      route,
      {},
    );
    const res = await handler(event, lambdaContext('get-current-user', 600));
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(res.body ?? '')).toEqual({
      message:
        'The request did not finish within the time limit; retry, or ask for less (a narrower filter, a lower take)',
      status: 503,
      code: 'service_unavailable',
    });
  });
});
