import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type HttpError, NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';

/** Takes an upgrade request for one path. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

const routes = new WeakMap<Server, Map<string, UpgradeHandler>>();
const fallbacks = new WeakMap<Server, UpgradeHandler>();

/** Hands upgrades of every path no handler serves to `handler` (the web app, under `--web`) instead of a 404. */
export const onOtherUpgrades = (server: Server, handler: UpgradeHandler): void => {
  fallbacks.set(server, handler);
};

/**
 * Serves WebSocket upgrades of `path` on the server (`/api/live`, `/socket`): one `upgrade`
 * listener per server hands each request to its path's handler, and answers any other path 404.
 */
export const onUpgrade = (server: Server, path: string, handler: UpgradeHandler): void => {
  let paths = routes.get(server);
  if (!paths) {
    const table = new Map<string, UpgradeHandler>();
    paths = table;
    routes.set(server, table);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node leaves an upgraded socket's errors to its new owner: a reset here must not stop the process.
      socket.on('error', () => socket.destroy());
      const { pathname } = new URL(req.url ?? '/', 'http://localhost');
      const take = table.get(pathname);
      if (take) return take(req, socket, head);
      const other = fallbacks.get(server);
      if (other) return other(req, socket, head);
      refuseUpgrade(socket, new NotFoundError(`No WebSocket at ${pathname}`), 'upgrade');
    });
  }
  paths.set(path, handler);
};

/** Ends an upgrade request with a plain HTTP answer (the contract's error body). */
export const refuseUpgrade = (socket: Duplex, error: HttpError, label = 'live'): void => {
  logger.info(`${label} refused`, { status: error.status, code: error.code, reason: error.message });
  const body = JSON.stringify({ status: error.status, code: error.code, message: error.message });
  const extra = Object.entries(error.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`,
  );
};
