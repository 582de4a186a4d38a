import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES, type RouteDef } from '#shared/routes.ts';
import { runPurgesInProcess } from '#shared/trash/purge-queue.ts';
import { runPurgeJob } from '#shared/trash/purge-worker.ts';
import { lambdaContext, routeMatcher, toApiGatewayEvent } from './api-gateway-event.ts';

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

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

const readBody = (req: IncomingMessage): Promise<Buffer | 'too-large'> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > GATEWAY_MAX_BODY ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/**
 * The local stand-in for API Gateway: matches the request against the route table, turns it
 * into a payload 2.0 event and calls the same handler code the Lambda runs.
 */
export const createLocalServer = (routes: readonly RouteDef[] = ROUTES): Server => {
  // no SQS here: permanent deletes are purged in this process after their request answered
  runPurgesInProcess(runPurgeJob);
  const match = routeMatcher(routes);
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = (req.method ?? 'GET').toUpperCase();
      const found = match(method, url.pathname);
      if (!found) {
        send(res, 404, { message: `No route for ${method} ${url.pathname}`, status: 404, code: 'not_found' });
        return;
      }
      const body = await readBody(req);
      if (body === 'too-large') {
        send(res, 413, {
          message: 'The request body is larger than 10 MB',
          status: 413,
          code: 'payload_too_large',
        });
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
        },
        found.route,
        found.params,
      );
      const handler = await loadHandler(found.route.handler);
      const result = await handler(event, lambdaContext(found.route.handler));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
      res.writeHead(result.statusCode ?? 200, headers);
      res.end(result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined);
    } catch (error) {
      // A handler never throws (its chain answers every error); this is the server's own fault.
      console.error('local server error', error);
      if (!res.headersSent)
        send(res, 500, { message: 'Internal server error', status: 500, code: 'internal_server_error' });
      else res.end();
    }
  });
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
