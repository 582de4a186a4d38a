import { describe, expect, it } from 'vitest';
import {
  compileRoute,
  lambdaContext,
  routeMatcher,
  toApiGatewayEvent,
} from '#infra/local/api-gateway-event.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';

const match = routeMatcher(ROUTES);
const route = (handler: string): RouteDef => {
  const found = ROUTES.find((r) => r.handler === handler);
  if (!found) throw new Error(`no route ${handler}`);
  return found;
};

const SAMPLE_PARAMS: Record<string, string> = {
  spaceId: 'spcAAAAAAAAAAAAAAAA',
  accessTokenId: 'accAAAAAAAAAAAAAAAA',
  notificationId: 'notAAAAAAAAAAAAAAAA',
};
const concrete = (r: RouteDef) => {
  const params: Record<string, string> = {};
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = SAMPLE_PARAMS[name] ?? `${name}-value`;
    params[name] = value;
    return value;
  });
  return { path: `${API_PREFIX}${path}`, params };
};

describe('routeMatcher', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'matches %s with its params',
    (_name, r) => {
      const { path, params } = concrete(r);

      expect(match(r.method, path)).toStrictEqual({ route: r, params });
    },
  );

  it('every route has a distinct method and path', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);

    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each([
    ['GET', '/api/notifications/unread-count', 'count-unread-notifications', {}],
    ['PATCH', '/api/notifications/read-all', 'mark-all-notifications-read', {}],
    [
      'PATCH',
      '/api/notifications/notAAAAAAAAAAAAAAAA/status',
      'update-notification-status',
      { notificationId: 'notAAAAAAAAAAAAAAAA' },
    ],
    [
      'DELETE',
      '/api/space/spcAAAAAAAAAAAAAAAA/permanent',
      'delete-space-permanently',
      { spaceId: 'spcAAAAAAAAAAAAAAAA' },
    ],
    ['DELETE', '/api/space/spcAAAAAAAAAAAAAAAA', 'delete-space', { spaceId: 'spcAAAAAAAAAAAAAAAA' }],
    ['GET', '/api/access-token', 'list-access-tokens', {}],
    ['GET', '/api/base/access/all', 'list-accessible-bases', {}],
    ['POST', '/api/access-token', 'create-access-token', {}],
    ['GET', '/api/space/', 'list-spaces', {}],
  ])('%s %s goes to %s', (method, path, handler, params) => {
    expect(match(method, path)).toStrictEqual({ route: route(handler), params });
  });

  it('prefers a literal segment over a {param} segment, whatever the order of the routes', () => {
    const byParam: RouteDef = {
      ...route('update-notification-status'),
      path: '/notifications/{notificationId}',
    };
    const literal: RouteDef = route('mark-all-notifications-read');

    for (const routes of [
      [byParam, literal],
      [literal, byParam],
    ]) {
      const m = routeMatcher(routes);
      expect(m('PATCH', '/api/notifications/read-all')?.route).toBe(literal);
      expect(m('PATCH', '/api/notifications/notAAAAAAAAAAAAAAAA')?.route).toBe(byParam);
    }
  });

  it.each([
    ['an unknown path', 'GET', '/api/nothing-here'],
    ['a known path with another method', 'PUT', '/api/space'],
    ['a path without the API prefix', 'GET', '/space'],
    ['an extra segment', 'GET', '/api/space/spcAAAAAAAAAAAAAAAA/collaborators/more'],
    ['an empty parameter', 'GET', '/api/space//collaborators'],
  ])('matches nothing for %s', (_what, method, path) => {
    expect(match(method, path)).toBeUndefined();
  });

  it('decodes percent-encoded parameters, and keeps a malformed encoding as sent', () => {
    expect(match('GET', '/api/space/a%20b')?.params).toStrictEqual({ spaceId: 'a b' });
    expect(match('GET', '/api/space/%E0%A4%A')?.params).toStrictEqual({ spaceId: '%E0%A4%A' });
  });

  it('compileRoute escapes regex characters in literal segments', () => {
    const c = compileRoute({ ...route('list-spaces'), path: '/a.b' });

    expect(c.match('GET', '/api/a.b')).toStrictEqual({});
    expect(c.match('GET', '/api/aXb')).toBeUndefined();
  });
});

describe('toApiGatewayEvent', () => {
  const r = route('list-notifications');

  it('builds a payload 2.0 event with route key, raw path and raw query', () => {
    const event = toApiGatewayEvent(
      {
        method: 'GET',
        path: '/api/notifications',
        rawQueryString: 'k[]=a&k[]=b&x=1',
        headers: { Authorization: 'Bearer t', 'X-Custom': 'v', Host: 'example.test', 'User-Agent': 'ua/1' },
      },
      r,
      {},
    );

    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /api/notifications',
      rawPath: '/api/notifications',
      rawQueryString: 'k[]=a&k[]=b&x=1',
      headers: { authorization: 'Bearer t', 'x-custom': 'v', host: 'example.test', 'user-agent': 'ua/1' },
      queryStringParameters: { 'k[]': 'a,b', x: '1' },
      pathParameters: undefined,
      body: undefined,
      isBase64Encoded: false,
      requestContext: {
        routeKey: 'GET /api/notifications',
        stage: '$default',
        domainName: 'example.test',
        http: { method: 'GET', path: '/api/notifications', protocol: 'HTTP/1.1', userAgent: 'ua/1' },
      },
    });
    expect(Object.keys(event.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('comma-joins repeated query values and decodes them', () => {
    const event = toApiGatewayEvent(
      { method: 'GET', path: '/api/notifications', rawQueryString: 'k=a%20b&k=c&k=d', headers: {} },
      r,
      {},
    );

    expect(event.queryStringParameters).toStrictEqual({ k: 'a b,c,d' });
    expect(event.rawQueryString).toBe('k=a%20b&k=c&k=d');
  });

  it('has no queryStringParameters for an empty query', () => {
    const event = toApiGatewayEvent(
      { method: 'GET', path: '/api/notifications', rawQueryString: '', headers: {} },
      r,
      {},
    );

    expect(event.queryStringParameters).toBeUndefined();
    expect(event.rawQueryString).toBe('');
  });

  it('joins a repeated header with commas, drops undefined headers, splits cookies', () => {
    const event = toApiGatewayEvent(
      {
        method: 'GET',
        path: '/api/notifications',
        rawQueryString: '',
        headers: { 'X-Forwarded-For': ['1.1.1.1', '2.2.2.2'], 'X-None': undefined, Cookie: 'a=1; b=2' },
      },
      r,
      {},
    );

    expect(event.headers).toStrictEqual({ 'x-forwarded-for': '1.1.1.1,2.2.2.2', cookie: 'a=1; b=2' });
    expect(event.cookies).toStrictEqual(['a=1', 'b=2']);
  });

  it('passes path parameters', () => {
    const event = toApiGatewayEvent(
      { method: 'PATCH', path: '/api/space/spcAAAAAAAAAAAAAAAA', rawQueryString: '', headers: {} },
      route('update-space'),
      { spaceId: 'spcAAAAAAAAAAAAAAAA' },
    );

    expect(event.routeKey).toBe('PATCH /api/space/{spaceId}');
    expect(event.pathParameters).toStrictEqual({ spaceId: 'spcAAAAAAAAAAAAAAAA' });
  });

  it.each([
    ['application/json', false],
    ['application/json; charset=utf-8', false],
    ['application/merge-patch+json', false],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['application/octet-stream', true],
    ['image/png', true],
    ['multipart/form-data; boundary=x', true],
  ])('a body sent as %s is base64-encoded: %s', (type, binary) => {
    const body = Buffer.from('{"name":"Ünïcode"}');

    const event = toApiGatewayEvent(
      { method: 'POST', path: '/api/space', rawQueryString: '', headers: { 'Content-Type': type }, body },
      route('create-space'),
      {},
    );

    expect(event.isBase64Encoded).toBe(binary);
    expect(event.body).toBe(binary ? body.toString('base64') : '{"name":"Ünïcode"}');
  });

  it('a body without Content-Type is treated as JSON text', () => {
    const event = toApiGatewayEvent(
      { method: 'POST', path: '/api/space', rawQueryString: '', headers: {}, body: Buffer.from('{}') },
      route('create-space'),
      {},
    );

    expect(event).toMatchObject({ body: '{}', isBase64Encoded: false });
  });

  it('an empty body is no body', () => {
    const event = toApiGatewayEvent(
      { method: 'POST', path: '/api/space', rawQueryString: '', headers: {}, body: Buffer.alloc(0) },
      route('create-space'),
      {},
    );

    expect(event).toMatchObject({ body: undefined, isBase64Encoded: false });
  });
});

describe('lambdaContext', () => {
  it('names the function after the handler and counts down the remaining time', () => {
    const context = lambdaContext('get-space', 1000);

    expect(context.functionName).toBe('local-get-space');
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(900);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(1000);
  });
});
