import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import { handler } from '#functions/workers/socket.ts';
import { listen } from '#infra/local/server.ts';
import { config } from '#shared/config.ts';
import { managementPoster } from '#shared/live/cloud.ts';
import { publishLiveTo } from '#shared/live/publish.ts';
import { CLOUD_FRAME_BYTES, socketFanOut } from '#shared/live/sharedb/socket-cloud.ts';
import { connectShareDb } from './sharedb-client.ts';

/**
 * API Gateway's WebSocket API as this machine can stage it, in front of the realtime socket's
 * Lambda (`functions/workers/socket.ts`): a WebSocket server on `/socket` that calls the handler
 * with API Gateway's events — `$connect` with the upgrade's headers (a status other than 200
 * refuses the upgrade), `$default` for each message (side by side, as API Gateway does: it does
 * not wait for one message's Lambda before the next), `$disconnect` — and its management API on
 * the same port (`POST`/`DELETE /socket/@connections/{id}`, what the AWS SDK's client sends):
 * 410 `GoneException` for a connection that is gone, 413 `PayloadTooLargeException` past 128 KB,
 * as API Gateway answers. The stream processor's fan-out is wired to it while it runs.
 */
export const startApiGatewaySocket = async () => {
  const sockets = new Map<string, WebSocket>();
  /** Every message posted through the management API, by connection (what API Gateway was asked to send). */
  const posted = new Map<string, string[]>();
  const pending = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
    return p;
  };
  const server: Server = createServer((req, res) => {
    const match = /^\/socket\/@connections\/([^/?]+)/.exec(req.url ?? '');
    const id = match ? decodeURIComponent(match[1] as string) : '';
    const ws = sockets.get(id);
    const fail = (status: number, type: string) =>
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type }).end('{}');
    if (!match) return fail(404, 'NotFoundException');
    if (!ws) return fail(410, 'GoneException');
    if (req.method === 'DELETE') {
      ws.close(1000);
      return res.writeHead(204).end();
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > CLOUD_FRAME_BYTES) return fail(413, 'PayloadTooLargeException');
      posted.set(id, [...(posted.get(id) ?? []), body.toString('utf8')]);
      ws.send(body.toString('utf8'));
      res.writeHead(200).end();
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  let domainName = '';
  const event = (routeKey: string, connectionId: string, extra: Record<string, unknown> = {}) =>
    ({
      requestContext: { routeKey, connectionId, domainName, stage: 'socket' },
      isBase64Encoded: false,
      ...extra,
    }) as unknown as Parameters<typeof handler>[0];
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (req.url !== '/socket') return socket.destroy();
    const connectionId = `${randomBytes(10).toString('base64').slice(0, 14)}=`;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    void track(handler(event('$connect', connectionId, { headers }))).then((result) => {
      const status = typeof result === 'object' ? (result.statusCode ?? 200) : 200;
      if (status !== 200) {
        socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.set(connectionId, ws);
        ws.on(
          'message',
          (data) => void track(handler(event('$default', connectionId, { body: String(data) }))),
        );
        ws.on('close', () => {
          sockets.delete(connectionId);
          void track(handler(event('$disconnect', connectionId)));
        });
      });
    });
  });
  const port = await listen(server, 0);
  domainName = `127.0.0.1:${port}`;
  const callbackUrl = `http://127.0.0.1:${port}/socket`;
  // the Lambda posts to the stage's callback URL: here, this server's management API
  const settable = config as { socketCallbackUrl?: string };
  const previous = settable.socketCallbackUrl;
  settable.socketCallbackUrl = callbackUrl;
  const sender = managementPoster(callbackUrl);
  let publishing = true;
  const stopPublishing = publishLiveTo(async (baseId, entries) => {
    if (publishing) await socketFanOut(baseId, entries, sender);
  });
  return {
    url: `ws://127.0.0.1:${port}/socket`,
    sockets,
    posted,
    /** Whether the capture's new entries are fanned out (a bench turns it off to fan one out itself). */
    setPublishing: (on: boolean) => {
      publishing = on;
    },
    /** Resolves once every Lambda call started so far has returned. */
    idle: async () => {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    stop: async () => {
      stopPublishing();
      for (const ws of sockets.values()) ws.terminate();
      while (pending.size) await Promise.allSettled([...pending]);
      settable.socketCallbackUrl = previous;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
};

/** API Gateway's WebSocket API staged for one test file (started before its tests, stopped after). */
export const useApiGatewaySocket = () => {
  let gateway: Awaited<ReturnType<typeof startApiGatewaySocket>> | undefined;
  const open: WebSocket[] = [];
  beforeAll(async () => {
    gateway = await startApiGatewaySocket();
  });
  afterAll(async () => {
    for (const socket of open) socket.terminate();
    await gateway?.stop();
  });
  const current = () => {
    if (!gateway) throw new Error('the staged API Gateway runs inside tests only');
    return gateway;
  };
  return {
    url: () => current().url,
    gateway: current,
    /** A connected ShareDB client, with headers on the upgrade (closed after the file). */
    connect: async (headers: Record<string, string> = {}) => {
      const client = await connectShareDb(current().url, headers);
      open.push(client.socket);
      return client;
    },
  };
};
