import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { routePattern } from '#shared/http/unmatched.ts';
import { API_PREFIX, type RouteDef } from '#shared/routes.ts';

/** A route's path as a matcher: `{name}` matches one path segment. */
export const compileRoute = (route: RouteDef) => {
  const { regex, names } = routePattern(route);
  return {
    route,
    match(method: string, path: string): Record<string, string> | undefined {
      if (method !== route.method && !(method === 'HEAD' && route.head)) return undefined;
      const m = regex.exec(path);
      if (!m) return undefined;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1] as string);
      });
      return params;
    },
  };
};

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Finds the route for a request; like API Gateway, literal segments win over `{param}` ones. */
export const routeMatcher = (routes: readonly RouteDef[]) => {
  const compiled = routes
    .map(compileRoute)
    .sort((a, b) => (a.route.path.match(/\{/g)?.length ?? 0) - (b.route.path.match(/\{/g)?.length ?? 0));
  return (method: string, path: string) => {
    for (const c of compiled) {
      const params = c.match(method, path);
      if (params) return { route: c.route, params };
    }
    return undefined;
  };
};

export interface PlainRequest {
  method: string;
  path: string;
  rawQueryString: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
  sourceIp?: string;
  /** The id the local gateway gave the request (API Gateway's `requestContext.requestId`). */
  requestId?: string;
}

const TEXT_TYPES = /^(application\/(json|[\w.+-]*\+json|x-www-form-urlencoded|xml)|text\/)/i;

/** The API Gateway HTTP API (payload 2.0) event for a request, as the Lambda receives it. */
export const toApiGatewayEvent = (
  req: PlainRequest,
  route: RouteDef,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(req.rawQueryString))
    query[k] = k in query ? `${query[k]},${v}` : v;
  const isText = !req.body?.length || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${route.method} ${API_PREFIX}${route.path}`,
    rawPath: req.path,
    rawQueryString: req.rawQueryString,
    cookies: headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method,
        path: req.path,
        protocol: 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: req.requestId ?? randomUUID(),
      routeKey: `${route.method} ${API_PREFIX}${route.path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: req.body?.length ? (isText ? req.body.toString('utf8') : req.body.toString('base64')) : undefined,
    isBase64Encoded: Boolean(req.body?.length) && !isText,
  };
};

/** A Lambda context for one local invocation. */
export const lambdaContext = (handler: string, timeoutMs = 29_000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: `local-${handler}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${handler}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/local/workspace-api',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
};
