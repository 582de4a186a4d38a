import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type HttpError, MethodNotAllowedError, NotFoundError } from '#shared/core/errors.ts';
import { API_PREFIX, type RouteDef } from '#shared/routes.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';

/**
 * A request no route takes: a path the table knows under other methods is a 405 with `Allow`,
 * any other a 404, both with the contract's error body. The stack's `$default` route answers with
 * it (`functions/gateway/unmatched-request.ts`), and so does the local server.
 */

/** A route's path as a pattern: `{name}` matches one path segment (a trailing slash is taken). Pure. */
export const routePattern = (route: Pick<RouteDef, 'path'>): { regex: RegExp; names: string[] } => {
  const names: string[] = [];
  const pattern = `${API_PREFIX}${route.path}`
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\{(\w+)\}/g, (_, name) => {
      names.push(name);
      return '([^/]+)';
    });
  return { regex: new RegExp(`^${pattern}/?$`), names };
};

/** The methods the routes take at a request path, in the table's order, each once. Pure. */
export const methodsAt = (routes: readonly RouteDef[], path: string): string[] => [
  ...new Set(
    routes
      .filter((route) => routePattern(route).regex.test(path))
      .flatMap((route) => (route.head ? [route.method, 'HEAD'] : [route.method])),
  ),
];

/** Why no route takes `method` at `path`: a 405 naming the methods it takes, else a 404. Pure. */
export const unmatchedError = (routes: readonly RouteDef[], method: string, path: string): HttpError => {
  const allowed = methodsAt(routes, path);
  return allowed.length && !allowed.includes(method)
    ? new MethodNotAllowedError(method, path, allowed)
    : new NotFoundError(`No route for ${method} ${path}`);
};

/** The answer to an event no route takes, with the request's id in the body and header. Pure. */
export const unmatchedAnswer = (
  routes: readonly RouteDef[],
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'rawPath'> & {
    requestContext: { requestId?: string; http: { method: string } };
  },
  context: Pick<Context, 'awsRequestId'>,
): APIGatewayProxyStructuredResultV2 => {
  const requestId = requestIdOf(event, context);
  const error = unmatchedError(routes, event.requestContext.http.method.toUpperCase(), event.rawPath);
  return {
    statusCode: error.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...error.headers,
      [REQUEST_ID_HEADER]: requestId,
    },
    body: JSON.stringify(error.toBody(requestId)),
  };
};
