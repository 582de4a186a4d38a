import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { authenticateToken } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { LiveHub } from '#shared/live/hub.ts';
import { publishLiveTo } from '#shared/live/publish.ts';
import { API_PREFIX } from '#shared/routes.ts';

/** Where the local server serves live subscriptions. */
export const LIVE_PATH = `${API_PREFIX}/live`;
/** How often every connection gets a ping (and its token is checked again). */
const PING_MS = 30_000;

/** Ends an upgrade request with a plain HTTP answer (the contract's error body). */
const refuse = (socket: Duplex, status: number, code: string, message: string) => {
  const body = JSON.stringify({ status, code, message });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

/**
 * Live subscriptions on the local server (data-flow.md 5) with the `ws` library: upgrades of
 * `/api/live` become connections of a `LiveHub` that the stream poller's capture feeds. A token in
 * the URL (`?token=`) is checked before the upgrade (a bad one: `401`); without one, the first
 * message must be `{"action":"auth","token":…}` (a bad one closes with 4401). `reauthMs`: how
 * often a connection's token is checked again before sending (30 s).
 */
export const attachLiveServer = (server: Server, options: { reauthMs?: number } = {}): LiveHub => {
  const hub = new LiveHub(options);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  publishLiveTo((baseId, entries) => hub.publish(baseId, entries));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== LIVE_PATH)
      return refuse(socket, 404, 'not_found', `No WebSocket at ${url.pathname}`);
    const token = url.searchParams.get('token') ?? undefined;
    const accept = (principal?: Principal) =>
      sockets.handleUpgrade(req, socket, head, (ws) => {
        const connection = hub.adopt(
          { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) },
          token,
          principal,
        );
        // one message at a time, in order
        let queue: Promise<void> = Promise.resolve();
        ws.on('message', (data) => {
          queue = queue
            .then(() => hub.message(connection, String(data)))
            .catch((error: unknown) => logger.error('live message failed', { error: error as Error }));
        });
        ws.on('close', () => hub.close(connection));
      });
    if (token === undefined) return accept();
    authenticateToken(token).then(accept, (error: unknown) =>
      refuse(socket, 401, 'unauthorized', error instanceof HttpError ? error.message : 'unauthorized'),
    );
  });
  const timer = setInterval(() => void hub.ping(), PING_MS);
  timer.unref();
  server.on('close', () => {
    clearInterval(timer);
    publishLiveTo(undefined);
    sockets.close();
  });
  return hub;
};
