import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { authenticateCredential } from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { checkSameOrigin, ownHostOf } from '#shared/auth/same-origin.ts';
import { config } from '#shared/config.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { publishLiveTo } from '#shared/live/publish.ts';
import { ShareDbHub, type ShareDbHubOptions } from '#shared/live/sharedb/socket-hub.ts';
import { onUpgrade, refuseUpgrade } from './upgrades.ts';

/** Where Teable's web app finds the realtime socket: the root of its own origin. */
export const SOCKET_PATH = '/socket';
/** A frame larger than this from a client closes its socket with 1009 (contract web-app §2). */
export const SOCKET_MAX_MESSAGE_BYTES = 64 * 1024;
/** What a client may leave unread before its socket is closed (1008): a slow client never slows another. */
export const SOCKET_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface SocketServerOptions extends ShareDbHubOptions {
  /** A connection that has not shaken hands within this is closed (10 s). */
  handshakeMs?: number;
}

/** The `name=value` pairs of a request's `Cookie` header. */
const cookiesOf = (req: IncomingMessage): string[] =>
  (req.headers.cookie ?? '')
    .split(';')
    .map((c) => c.trim())
    .filter(Boolean);

/**
 * The realtime socket on the local server (contract web-app §2): upgrades of `/socket` become
 * connections of a `ShareDbHub` that the stream poller's capture feeds. The session cookie (or a
 * bearer token in `Authorization`) authenticates; a connection without one still shakes hands and
 * answers every read `unauthorized`, as Teable's does (its web app then goes to sign-in). A
 * cookie-carried upgrade from a foreign `Origin` is refused (403), as a cookie-carried write is.
 */
export const attachSocketServer = (server: Server, options: SocketServerOptions = {}): ShareDbHub => {
  const hub = new ShareDbHub(options);
  const handshakeMs = options.handshakeMs ?? 10_000;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: SOCKET_MAX_MESSAGE_BYTES });
  // the capture goes on at once: each connection answers its queries again in its own time
  const stopPublishing = publishLiveTo(async (baseId, entries) => {
    void hub.publish(baseId, entries);
  });
  onUpgrade(server, SOCKET_PATH, (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const authorization = req.headers.authorization;
    const cookies = cookiesOf(req);
    const authenticate = () => authenticateCredential(authorization, cookies);
    const accept = (principal: Principal | undefined) => {
      if (socket.destroyed) return;
      sockets.handleUpgrade(req, socket, head, (ws) => {
        logger.info('socket connected', { authenticated: principal !== undefined });
        const connection = hub.adopt(
          {
            send: (text) => {
              if (ws.bufferedAmount > SOCKET_MAX_BUFFERED_BYTES)
                ws.close(1008, 'too slow: messages left unread');
              else ws.send(text);
            },
            close: (code, reason) => ws.close(code, reason),
          },
          principal,
          principal ? authenticate : undefined,
        );
        const deadline = setTimeout(() => {
          if (!connection.handshaken) ws.close(1008, `no handshake within ${handshakeMs / 1000} s`);
        }, handshakeMs);
        ws.on('message', (data) => void hub.message(connection, String(data)));
        // `ws` closes the socket itself after an error (1009 for a frame over the limit)
        ws.on('error', (error) => logger.info('socket closed on an error', { error: error.message }));
        ws.on('close', (code) => {
          logger.info('socket closed', { code });
          clearTimeout(deadline);
          hub.close(connection);
        });
      });
    };
    try {
      if (!authorization && cookies.length)
        checkSameOrigin(
          'POST',
          { origin: req.headers.origin, referer: req.headers.referer },
          ownHostOf(req.headers as Record<string, string | undefined>),
          config.webOrigins,
        );
    } catch (error) {
      return refuseUpgrade(socket, error as HttpError, 'socket');
    }
    if (!authorization && !cookies.length) return accept(undefined);
    authenticate().then(accept, (error: unknown) => {
      if (error instanceof HttpError) return accept(undefined);
      logger.error('socket authentication failed', { error: error as Error });
      socket.destroy();
    });
  });
  sockets.on('error', (error) => logger.error('socket server error', { error }));
  server.on('close', () => {
    stopPublishing();
    sockets.close();
  });
  return hub;
};
