import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import {
  HttpError,
  InternalServerError,
  PayloadTooLargeError,
  RequestHeaderFieldsTooLargeError,
  ServiceUnavailableError,
  ValidationError,
} from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { corsAnswerHeaders, corsPreflightHeaders, parseCorsOrigins } from '#shared/http/cors.ts';
import { callerRequestId, REQUEST_ID_HEADER } from '#shared/http/request-id.ts';
import { unmatchedError } from '#shared/http/unmatched.ts';
import { runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { API_PREFIX, ROUTES, type RouteDef } from '#shared/routes.ts';
import { runPurgeJob } from '#shared/trash/job-runner.ts';
import { deliverBase } from '#shared/webhooks/deliver.ts';
import { deliverWebhooksInProcess } from '#shared/webhooks/queue.ts';
import { lambdaContext, routeMatcher, toApiGatewayEvent } from './api-gateway-event.ts';
import { attachLiveServer, type LiveServerOptions } from './live-server.ts';
import { bodyUpTo } from './request-body.ts';
import {
  GATEWAY_MAX_REQUEST_LINE_AND_HEADERS,
  NODE_MAX_HEADER_BYTES,
  requestHeadError,
} from './request-limits.ts';
import { attachSocketServer, SOCKET_PATH, type SocketServerOptions } from './socket-server.ts';
import { onOtherUpgrades } from './upgrades.ts';
import { proxyRequest, proxyUpgrade } from './web-proxy.ts';

type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway refuses larger payloads before any Lambda runs. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

const handlers = new Map<string, Promise<LambdaHandler>>();

/** Loads `functions/<name>.ts` once, as the Lambda would at cold start. */
const loadHandler = (name: string): Promise<LambdaHandler> => {
  let loaded = handlers.get(name);
  if (!loaded) {
    loaded = import(`../../functions/${name}.ts`).then((m: { handler: LambdaHandler }) => m.handler);
    handlers.set(name, loaded);
  }
  return loaded;
};

/**
 * Answers an error with the contract's body, as the Lambda's chain would; `headers` holds the
 * request's `X-Request-Id` (its id is in the body too) and CORS headers.
 */
const sendError = (
  res: ServerResponse,
  error: HttpError,
  requestId: string,
  headers: Record<string, string> = {},
) => {
  logAnswer(res.req, error.status, requestId, error);
  res.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    ...error.headers,
    ...headers,
    [REQUEST_ID_HEADER]: requestId,
  });
  res.end(JSON.stringify(error.toBody(requestId)));
};

/**
 * The log line of an answer this server gives itself (no route took the request, the gateway's
 * limits, the database down, a preflight): the same `request` line a handler's chain writes.
 */
const logAnswer = (req: IncomingMessage, status: number, requestId: string, error?: HttpError) => {
  const started = (req as IncomingMessage & { startedAt?: number }).startedAt;
  logger.info('request', {
    method: req.method,
    path: new URL(req.url ?? '/', 'http://localhost').pathname,
    status,
    requestId,
    ...(started === undefined ? {} : { durationMs: Math.round((performance.now() - started) * 10) / 10 }),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  });
};

/** How long a client is told to wait while the database is down (DynamoDB Local restarts in ~3 s). */
export const DATABASE_DOWN_RETRY_AFTER_SECONDS = 3;

/**
 * Node's answer to a request it could not parse or did not receive in time (an empty 400, 408,
 * or 431 past its header limit) replaced by the contract's JSON body. The socket's unread input is drained a moment
 * before closing, or the client could see a reset instead of the answer.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new RequestHeaderFieldsTooLargeError(
          `The request line and headers are over ${NODE_MAX_HEADER_BYTES} bytes; API Gateway takes at most ${GATEWAY_MAX_REQUEST_LINE_AND_HEADERS} bytes of them together`,
        )
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new HttpError(408, 'request_timeout', 'The request was not received in time')
        : new ValidationError('The request is not valid HTTP/1.1');
  // Nothing of the request can be trusted, its X-Request-Id neither: a fresh id.
  const requestId = randomUUID();
  const body = JSON.stringify(answer.toBody(requestId));
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.resume();
  setTimeout(() => socket.destroy(), 2000).unref();
};

export interface LocalServerOptions {
  /**
   * True while the database is known to be down (`npm start` watches DynamoDB Local): every
   * request is answered 503 at once instead of waiting for the SDK's retries to fail.
   */
  databaseDown?: () => boolean;
  /**
   * Origins a browser may call the API from, as a stage's `corsOrigins` (infra/stage-config.ts): `*`
   * for any; empty for none (no CORS headers, preflights unanswered). Default: `CORS_ORIGINS`, a
   * comma-separated list, or `*` when it is unset.
   */
  corsOrigins?: readonly string[];
  /** Live subscriptions: token checks, the time to authenticate, connections per address. */
  live?: LiveServerOptions;
  /** The realtime socket at `/socket`: limits and timings. */
  socket?: SocketServerOptions;
  /**
   * A running web app (Teable's) this server is the one origin of: every request and WebSocket
   * upgrade outside `/api` and `/socket` is proxied to it (`npm start -- --web <url>`).
   */
  web?: URL;
}

/** Whether the local server answers a path itself (the API and the realtime socket), not the web app. */
const isApiPath = (pathname: string): boolean =>
  pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`) || pathname === SOCKET_PATH;

/**
 * The local stand-in for API Gateway: refuses what the gateway refuses (request line and headers
 * over 10,240 bytes, a body over 10 MB), answers CORS preflights and adds the CORS headers as
 * the HTTP API does, gives every request an id (the caller's sane `X-Request-Id`, else a new one),
 * matches the request against the route table, turns it into a payload 2.0 event and calls the
 * same handler code the Lambda runs.
 */
export const createLocalServer = (
  routes: readonly RouteDef[] = ROUTES,
  options: LocalServerOptions = {},
): Server => {
  // no SQS here: permanent deletes are purged in this process after their request answered, and
  // webhooks are delivered from it
  runPurgesInProcess(runPurgeJob);
  deliverWebhooksInProcess((baseId) => deliverBase(baseId));
  const match = routeMatcher(routes);
  const corsOrigins = options.corsOrigins ?? parseCorsOrigins(process.env.CORS_ORIGINS);
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES }, async (req, res) => {
    (req as IncomingMessage & { startedAt?: number }).startedAt = performance.now();
    const requestId = callerRequestId(req.headers) ?? randomUUID();
    const cors = corsAnswerHeaders(req.headers.origin, corsOrigins);
    try {
      const tooLarge = requestHeadError(
        `${req.method ?? ''} ${req.url ?? ''} HTTP/${req.httpVersion}`,
        req.rawHeaders,
      );
      if (tooLarge) {
        // The body is not read: close the connection rather than leave it to be drained.
        sendError(res, tooLarge, requestId, { ...cors, connection: 'close' });
        return;
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = (req.method ?? 'GET').toUpperCase();
      if (options.web && !isApiPath(url.pathname)) {
        proxyRequest(options.web, req, res);
        return;
      }
      // Like the HTTP API with CORS set: every OPTIONS is a preflight, answered here for any path.
      if (method === 'OPTIONS' && corsOrigins.length) {
        res.writeHead(204, {
          ...corsPreflightHeaders(req.headers.origin, corsOrigins),
          [REQUEST_ID_HEADER]: requestId,
        });
        res.end();
        logAnswer(req, 204, requestId);
        return;
      }
      const found = match(method, url.pathname);
      if (!found) {
        sendError(res, unmatchedError(routes, method, url.pathname), requestId, cors);
        return;
      }
      if (options.databaseDown?.()) {
        sendError(
          res,
          new ServiceUnavailableError(
            'The database is unreachable; nothing was done. Retry later',
            DATABASE_DOWN_RETRY_AFTER_SECONDS,
          ),
          requestId,
          cors,
        );
        return;
      }
      const body = await bodyUpTo(req, GATEWAY_MAX_BODY);
      if (body === undefined) {
        sendError(res, new PayloadTooLargeError('The request body is larger than 10 MB'), requestId, cors);
        return;
      }
      const event = toApiGatewayEvent(
        {
          method,
          path: url.pathname,
          rawQueryString: url.search.slice(1),
          headers: req.headers,
          body,
          sourceIp: req.socket.remoteAddress,
          requestId,
        },
        found.route,
        found.params,
      );
      const handler = await loadHandler(found.route.handler);
      const result = await handler(event, lambdaContext(found.route.handler));
      const headers: Record<string, string | string[]> = { ...cors };
      for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
      // payload 2.0's `cookies`: one Set-Cookie each, as API Gateway sends them
      if (result.cookies?.length) headers['set-cookie'] = result.cookies;
      const payload = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
      // as API Gateway answers: the length always given (an empty answer is not sent chunked)
      headers['content-length'] = String(payload.length);
      res.writeHead(result.statusCode ?? 200, headers);
      res.end(payload);
    } catch (error) {
      // A handler never throws (its chain answers every error); this is the server's own fault.
      console.error('local server error', error);
      if (!res.headersSent) sendError(res, new InternalServerError(), requestId, cors);
      else res.end();
    }
  });
  server.on('clientError', answerClientError);
  // live subscriptions at /api/live (WebSocket), fed by this process's stream poller
  attachLiveServer(server, options.live);
  // Teable's realtime socket at /socket (ShareDB), fed the same way
  attachSocketServer(server, options.socket);
  const web = options.web;
  if (web) onOtherUpgrades(server, (req, socket, head) => proxyUpgrade(web, req, socket, head));
  return server;
};

/** Starts listening; resolves with the port. */
export const listen = (server: Server, port: number, host = '127.0.0.1'): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
