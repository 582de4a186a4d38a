import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers its `n`th request (1 = the first): status, headers, and a wait before answering. */
export type Answer = (
  request: Received,
  n: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number };

/**
 * A real HTTP server on loopback that receives webhook deliveries, records them and answers as
 * told (200 by default). `waitFor(n)` resolves once `n` requests arrived.
 */
export const startReceiver = async (answer: Answer = () => ({ status: 200 })) => {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      const { status, headers = {}, delayMs = 0 } = answer(request, received.length);
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(status, headers);
        res.end();
      }, delayMs);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The bodies received, parsed. */
    events: () =>
      received.map(
        (r) => JSON.parse(r.body) as Record<string, unknown> & { id: string; seq: number; type: string },
      ),
    async waitFor(n: number, timeoutMs = 20_000): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > end) throw new Error(`the receiver got ${received.length} of ${n} requests`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};
