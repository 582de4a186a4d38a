import { type IncomingMessage, request, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { logger } from '#shared/core/logger.ts';

/**
 * One origin for Teable's web app (contract web-app §3): under `npm start -- --web <url>` the
 * local server answers `/api` and `/socket` itself and hands every other request — WebSocket
 * upgrades too — to the web app at `target`, as a reverse proxy: method, path, headers (Host
 * included, so the web app sees the origin the browser used) and body passed on, the answer
 * streamed back. A web app that does not answer is a 502 saying so.
 */
export const proxyRequest = (
  target: URL,
  req: IncomingMessage,
  res: ServerResponse,
  /** `target`: the request goes to `target` under its own host (an API Gateway, which routes by it), http or https. */
  hostOf: 'viewer' | 'target' = 'viewer',
): void => {
  const secure = target.protocol === 'https:';
  const up = (secure ? httpsRequest : request)(
    {
      hostname: target.hostname,
      port: target.port || (secure ? 443 : 80),
      method: req.method,
      path: `${target.pathname.replace(/\/$/, '')}${req.url ?? ''}`,
      headers: {
        ...req.headers,
        ...(hostOf === 'target' ? { host: target.host } : {}),
        'x-forwarded-host': req.headers.host ?? '',
        'x-forwarded-proto': 'http',
      },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    },
  );
  up.on('error', (error: NodeJS.ErrnoException) => {
    logger.info('web app did not answer', { url: req.url, error: error.message });
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      `The web app at ${target.origin} did not answer (${error.code ?? error.message}): is it running?`,
    );
  });
  req.pipe(up);
};

/** Hands a WebSocket upgrade of a path the API does not serve to the web app (raw bytes both ways). */
export const proxyUpgrade = (target: URL, req: IncomingMessage, socket: Duplex, head: Buffer): void => {
  const up = connect(Number(target.port || 80), target.hostname, () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) up.write(head);
    socket.pipe(up).pipe(socket);
  });
  up.on('error', () => socket.destroy());
  socket.on('error', () => up.destroy());
  socket.on('close', () => up.destroy());
};
