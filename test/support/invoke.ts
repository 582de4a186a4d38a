import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { lambdaContext, toApiGatewayEvent } from '#infra/local/api-gateway-event.ts';
import { API_PREFIX, type HandlerName, routeOf } from '#shared/routes.ts';
import { checkedRequestId } from './request-id.ts';

type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface CallOptions {
  token?: string;
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The Lambda's time left when the call starts (29 s, as locally, by default). */
  timeoutMs?: number;
  /** The client's address, as API Gateway gives it (`requestContext.http.sourceIp`). */
  sourceIp?: string;
}

/** What a test sees of a handler's answer. */
export interface CallResult {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape; assertions check them
  body: any;
  /** The answer's cookies to set (payload 2.0's `cookies`: one `Set-Cookie` each), when it sets any. */
  cookies?: string[];
}

/**
 * Calls a route's handler in process with the event API Gateway would send: the same code path
 * as the Lambda, without HTTP (integration tests; e2e tests go through the local server).
 */
export const call = async (name: HandlerName, options: CallOptions = {}): Promise<CallResult> => {
  const route = routeOf(name);
  const { handler } = (await import(`../../functions/${name}.ts`)) as { handler: LambdaHandler };
  const params = options.params ?? {};
  const path = API_PREFIX + route.path.replace(/\{(\w+)\}/g, (_, p) => encodeURIComponent(params[p] ?? ''));
  const body =
    options.rawBody !== undefined
      ? Buffer.from(options.rawBody)
      : options.body !== undefined
        ? Buffer.from(JSON.stringify(options.body))
        : undefined;
  const headers: Record<string, string> = {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(options.token ? { authorization: options.token } : {}),
    ...options.headers,
  };
  const event = toApiGatewayEvent(
    {
      method: route.method,
      path,
      rawQueryString: options.query ?? '',
      headers,
      body,
      sourceIp: options.sourceIp,
    },
    route,
    params,
  );
  const result = await handler(event, lambdaContext(name, options.timeoutMs));
  // A gzipped answer (the caller sent Accept-Encoding: gzip) is read as a client would.
  const text = result.isBase64Encoded
    ? String(
        /gzip/i.test(String(result.headers?.['content-encoding'] ?? ''))
          ? gunzipSync(Buffer.from(result.body ?? '', 'base64'))
          : Buffer.from(result.body ?? '', 'base64'),
      )
    : (result.body ?? '');
  const responseHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k.toLowerCase()] = String(v);
  const status = result.statusCode ?? 200;
  return {
    status,
    ...(result.cookies?.length ? { cookies: result.cookies } : {}),
    headers: responseHeaders,
    // JSON answers parsed; the few that are not (the docs page and its assets) as text
    body: checkedRequestId(
      status,
      responseHeaders['x-request-id'],
      !text ? undefined : /json/.test(responseHeaders['content-type'] ?? 'json') ? JSON.parse(text) : text,
    ),
  };
};

/** A query string from parameters (JSON for non-strings), as the listing routes take them. */
export const q = (params: Record<string, unknown>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join('&');
