import { readFileSync } from 'node:fs';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { corsPreflightFor } from '#infra/api-construct.ts';
import { lambdaContext, toApiGatewayEvent } from '#infra/local/api-gateway-event.ts';
import { reportCaptureLag } from '#shared/changes/capture-lag.ts';
import { corsAnswerHeaders, corsPreflightHeaders, parseCorsOrigins } from '#shared/http/cors.ts';
import { definePublicHandler } from '#shared/http/handler.ts';
import { callerRequestId, requestIdOf } from '#shared/http/request-id.ts';
import { routeOf } from '#shared/routes.ts';
import { call } from '#test/support/invoke.ts';
import { batchGetFrom, signedInUser } from './support/fake-table.ts';

const ddbMock = mockClient(DynamoDBDocumentClient);
beforeEach(() => ddbMock.reset());

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('request id', () => {
  it.each([
    ['a plain id', 'abc-123', 'abc-123'],
    ['dots and underscores', 'trace_1.2-x', 'trace_1.2-x'],
    ['128 characters', 'a'.repeat(128), 'a'.repeat(128)],
    ['129 characters', 'a'.repeat(129), undefined],
    ['a space', 'abc 123', undefined],
    ['a newline', 'abc\nSet-Cookie: x', undefined],
    ['a slash', 'a/b', undefined],
    ['empty', '', undefined],
  ])("reuses the caller's X-Request-Id only when sane: %s", (_, value, expected) => {
    expect(callerRequestId({ 'x-request-id': value })).toBe(expected);
  });

  it('finds the header whatever its case, and ignores a repeated (array) header', () => {
    expect(callerRequestId({ 'X-Request-Id': 'Abc' })).toBe('Abc');
    expect(callerRequestId({ 'x-request-id': ['a', 'b'] })).toBeUndefined();
    expect(callerRequestId(undefined)).toBeUndefined();
  });

  it("is the caller's sane id, else API Gateway's request id, else the Lambda's", () => {
    const context = { awsRequestId: 'lambda-id' };

    expect(
      requestIdOf({ headers: { 'x-request-id': 'mine' }, requestContext: { requestId: 'gw' } }, context),
    ).toBe('mine');
    expect(
      requestIdOf({ headers: { 'x-request-id': 'not mine!' }, requestContext: { requestId: 'gw' } }, context),
    ).toBe('gw');
    expect(requestIdOf({ headers: {} }, context)).toBe('lambda-id');
  });
});

describe('request id on Lambda answers', () => {
  it("answers a success with API Gateway's request id in X-Request-Id", async () => {
    const user = signedInUser();
    ddbMock.on(BatchGetCommand).callsFake(batchGetFrom(user.items));
    const route = routeOf('get-current-user');
    const event = toApiGatewayEvent(
      {
        method: 'GET',
        path: '/api/auth/user/me',
        rawQueryString: '',
        headers: { authorization: user.auth },
        requestId: 'gw-1',
      },
      route,
      {},
    );
    const { handler } = await import('#functions/get-current-user.ts');

    const res = await handler(event, lambdaContext('get-current-user'));

    expect(res.statusCode).toBe(200);
    expect(res.headers?.['x-request-id']).toBe('gw-1');
  });

  it("echoes the caller's X-Request-Id on an error, in the header and as requestId in the body", async () => {
    const route = routeOf('get-current-user');
    const event = toApiGatewayEvent(
      {
        method: 'GET',
        path: '/api/auth/user/me',
        rawQueryString: '',
        headers: { 'x-request-id': 'trace-42' },
      },
      route,
      {},
    );
    const { handler } = await import('#functions/get-current-user.ts');

    const res = await handler(event, lambdaContext('get-current-user'));

    expect(res.statusCode).toBe(401);
    expect(res.headers?.['x-request-id']).toBe('trace-42');
    expect(JSON.parse(res.body ?? '')).toStrictEqual({
      message: 'Sign in, or send a valid bearer token',
      status: 401,
      code: 'unauthorized',
      requestId: 'trace-42',
    });
  });
});

describe('GET /api/health', () => {
  it('answers 200 {status, version} without a token and without a database call', async () => {
    const res = await call('get-health');

    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ status: 'ok', version: VERSION });
    expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it("says how far the change capture is behind where the process can tell (the local server's poller)", async () => {
    reportCaptureLag(() => 2_345);
    try {
      const res = await call('get-health');
      expect(res.body).toStrictEqual({ status: 'ok', version: VERSION, capture: { lagSeconds: 2.3 } });
    } finally {
      reportCaptureLag(undefined);
    }
    expect((await call('get-health')).body).toStrictEqual({ status: 'ok', version: VERSION });
  });

  it('ignores a token (even a bad one) rather than checking it', async () => {
    const res = await call('get-health', { token: 'Bearer nonsense' });

    expect(res.status).toBe(200);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('is the only kind of route definePublicHandler accepts', () => {
    // @ts-expect-error a route that needs a token is not public
    expect(() => definePublicHandler('get-current-user', () => ({}))).toThrow(/needs a token/);
  });
});

describe('CORS policy', () => {
  it('reads CORS_ORIGINS: unset is any origin, empty is none, a list is trimmed', () => {
    expect(parseCorsOrigins(undefined)).toEqual(['*']);
    expect(parseCorsOrigins('')).toEqual([]);
    expect(parseCorsOrigins(' http://localhost:5173/ , https://app.example.com')).toEqual([
      'http://localhost:5173',
      'https://app.example.com',
    ]);
  });

  it('allows any origin with * and exposes the request id, ETag and Retry-After', () => {
    expect(corsAnswerHeaders('https://x.example', ['*'])).toStrictEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'X-Request-Id, ETag, Retry-After',
    });
    expect(corsAnswerHeaders(undefined, ['*'])).toMatchObject({ 'access-control-allow-origin': '*' });
  });

  it('echoes a listed origin (varying by Origin) and gives an unlisted one nothing', () => {
    const allowed = ['https://app.example.com'];

    expect(corsAnswerHeaders('https://app.example.com', allowed)).toStrictEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-expose-headers': 'X-Request-Id, ETag, Retry-After',
      vary: 'origin',
    });
    expect(corsAnswerHeaders('https://evil.example', allowed)).toStrictEqual({ vary: 'origin' });
    expect(corsAnswerHeaders('https://app.example.com', [])).toStrictEqual({});
  });

  it('answers a preflight with the methods, headers and max age', () => {
    expect(corsPreflightHeaders('http://localhost:5173', ['*'])).toStrictEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': 'Authorization, Content-Type, If-Match, Idempotency-Key, X-Request-Id',
      'access-control-max-age': '3600',
    });
    expect(corsPreflightHeaders('https://evil.example', ['https://app.example.com'])).toStrictEqual({
      vary: 'origin',
    });
  });

  it("gives the HTTP API the same policy with the stage's origins, and no CORS for none", () => {
    const options = corsPreflightFor({ corsOrigins: ['https://app.example.com'] });

    expect(options).toMatchObject({
      allowOrigins: ['https://app.example.com'],
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key', 'X-Request-Id'],
      exposeHeaders: ['X-Request-Id', 'ETag', 'Retry-After'],
    });
    expect(options?.maxAge?.toSeconds()).toBe(3600);
    expect(corsPreflightFor({ corsOrigins: [] })).toBeUndefined();
  });
});
