/**
 * Requests no route takes (`shared/http/unmatched.ts`, the stack's `$default` route and the local
 * server): a known path under another method is a 405 naming the methods it takes in `Allow`;
 * anything else is a 404; both with the contract's error body and the request's id.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '#functions/gateway/unmatched-request.ts';
import { methodsAt, unmatchedError } from '#shared/http/unmatched.ts';
import { ROUTES } from '#shared/routes.ts';

const context = { awsRequestId: 'lambda-id' } as Parameters<typeof handler>[1];
const event = (method: string, rawPath: string, headers: Record<string, string> = {}) =>
  ({
    rawPath,
    headers,
    requestContext: { requestId: 'gateway-id', http: { method } },
  }) as unknown as Parameters<typeof handler>[0];

describe('requests no route takes', () => {
  it('knows the methods of a path, literal and with parameters, and of no path', () => {
    expect(methodsAt(ROUTES, '/api/space').sort()).toEqual(['GET', 'POST']);
    expect(methodsAt(ROUTES, '/api/space/spc0000000000000000').sort()).toEqual(['DELETE', 'GET', 'PATCH']);
    expect(methodsAt(ROUTES, '/api/space/')).toEqual(methodsAt(ROUTES, '/api/space'));
    expect(methodsAt(ROUTES, '/api/no/such/path')).toEqual([]);
    expect(methodsAt(ROUTES, '/space')).toEqual([]);
  });

  it('answers a known path under another method 405 with Allow, with the error body and request id', async () => {
    const res = await handler(event('PUT', '/api/space', { 'x-request-id': 'mine-1' }), context);
    expect(res.statusCode).toBe(405);
    expect(res.headers).toMatchObject({ allow: 'POST, GET', 'x-request-id': 'mine-1' });
    expect(JSON.parse(res.body as string)).toEqual({
      message: '/api/space does not take PUT; it takes POST, GET',
      status: 405,
      code: 'method_not_allowed',
      requestId: 'mine-1',
    });
  });

  it('answers an unknown path 404 with the error body and the gateway’s request id', async () => {
    const res = await handler(event('GET', '/api/nothing/here'), context);
    expect(res.statusCode).toBe(404);
    expect(res.headers).not.toHaveProperty('allow');
    expect(JSON.parse(res.body as string)).toEqual({
      message: 'No route for GET /api/nothing/here',
      status: 404,
      code: 'not_found',
      requestId: 'gateway-id',
    });
  });

  it('is a 404, not a 405, when the method is one the path takes (a route the gateway did not match)', () => {
    expect(unmatchedError(ROUTES, 'GET', '/api/space').status).toBe(404);
  });
});
