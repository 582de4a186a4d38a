import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { authenticateToken } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { HttpError, TooManyRequestsError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { LiveHub } from '#shared/live/hub.ts';
import { publishLiveTo } from '#shared/live/publish.ts';
import { API_PREFIX } from '#shared/routes.ts';
import { onUpgrade, refuseUpgrade } from './upgrades.ts';

/** Where the local server serves live subscriptions. */
export const LIVE_PATH = `${API_PREFIX}/live`;
/** How often every connection gets a ping (and its token is checked again). */
const PING_MS = 30_000;
/** A message larger than this closes its connection with 1009 (the cloud's WebSocket API takes 128 KB frames of 32 KB). */
export const LIVE_MAX_MESSAGE_BYTES = 64 * 1024;

export interface LiveServerOptions {
  /** How often a connection's token is checked again before sending (30 s). */
  reauthMs?: number;
  /** A connection without a token that has not authenticated within this is closed with 4401 (10 s). */
  authTimeoutMs?: number;
  /** Connections one client address may hold open at once; more are refused with a 429 (50). */
  maxPerAddress?: number;
}

/**
 * Live subscriptions on the local server (data-flow.md 5) with the `ws` library: upgrades of
 * `/api/live` become connections of a `LiveHub` that the stream poller's capture feeds. A token in
 * the URL (`?token=`) is checked before the upgrade (a bad one: `401`); without one, the first
 * message must be `{"action":"auth","token":…}` within `authTimeoutMs` (a bad one, or none in
 * time, closes with 4401). An error on one socket (a frame over the limit, a reset) closes that
 * socket only; a client address holds at most `maxPerAddress` connections.
 */
export const attachLiveServer = (server: Server, options: LiveServerOptions = {}): LiveHub => {
  const hub = new LiveHub(options);
  const authTimeoutMs = options.authTimeoutMs ?? 10_000;
  const maxPerAddress = options.maxPerAddress ?? 50;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: LIVE_MAX_MESSAGE_BYTES });
  const perAddress = new Map<string, number>();
  const stopPublishing = publishLiveTo((baseId, entries) => hub.publish(baseId, entries));
  onUpgrade(server, LIVE_PATH, (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const address = req.socket.remoteAddress ?? 'unknown';
    if ((perAddress.get(address) ?? 0) >= maxPerAddress)
      return refuseUpgrade(
        socket,
        new TooManyRequestsError(
          `At most ${maxPerAddress} live connections from one address; close one first`,
          5,
        ),
      );
    // counted until the socket closes, however it ends (refused, closed, reset)
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    const token = url.searchParams.get('token') ?? undefined;
    const accept = (principal?: Principal) => {
      if (socket.destroyed) return;
      sockets.handleUpgrade(req, socket, head, (ws) => {
        logger.info('live connected', { address, authenticated: principal !== undefined });
        const connection = hub.adopt(
          { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) },
          token,
          principal,
        );
        const anonymous = principal
          ? undefined
          : setTimeout(
              () => hub.closeUnauthenticated(connection, `authenticate within ${authTimeoutMs / 1000} s`),
              authTimeoutMs,
            );
        // one message at a time, in order
        let queue: Promise<void> = Promise.resolve();
        ws.on('message', (data) => {
          queue = queue
            .then(() => hub.message(connection, String(data)))
            .catch((error: unknown) => logger.error('live message failed', { error: error as Error }));
        });
        // `ws` closes the socket itself after an error (1009 for a frame over the limit, 1002 for a bad one)
        ws.on('error', (error) =>
          logger.info('live connection closed on an error', { error: error.message }),
        );
        ws.on('close', (code) => {
          logger.info('live closed', { address, code });
          clearTimeout(anonymous);
          hub.close(connection);
        });
      });
    };
    if (token === undefined) return accept();
    authenticateToken(token).then(accept, (error: unknown) =>
      refuseUpgrade(
        socket,
        new HttpError(401, 'unauthorized', error instanceof HttpError ? error.message : 'unauthorized'),
      ),
    );
  });
  sockets.on('error', (error) => logger.error('live server error', { error }));
  const timer = setInterval(() => void hub.ping(), PING_MS);
  timer.unref();
  server.on('close', () => {
    clearInterval(timer);
    stopPublishing();
    sockets.close();
  });
  return hub;
};
