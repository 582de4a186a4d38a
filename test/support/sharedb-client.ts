import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll } from 'vitest';
import WebSocket from 'ws';
import type { SocketServerOptions } from '#infra/local/socket-server.ts';

/**
 * ShareDB 4.1's own client (`sharedb/lib/client`, the one Teable's web app bundles) over `ws`,
 * against the local server's `/socket`. The package ships no types: the few parts the tests use
 * are typed here.
 */
const require = createRequire(import.meta.url);
const { Connection } = require('sharedb/lib/client') as {
  Connection: new (socket: unknown) => ShareDbConnection;
};

export interface ShareDbDoc {
  id: string;
  collection: string;
  version: number | null;
  type: unknown;
  data: Record<string, unknown> | undefined;
  subscribed: boolean;
  fetch(cb: (error?: Error) => void): void;
  subscribe(cb: (error?: Error) => void): void;
  unsubscribe(cb: (error?: Error) => void): void;
  submitOp(op: unknown, cb: (error?: Error) => void): void;
  on(event: string, cb: (...args: unknown[]) => void): void;
}

export interface ShareDbQuery {
  results: ShareDbDoc[];
  extra: unknown;
  ready: boolean;
  on(event: string, cb: (...args: unknown[]) => void): void;
  destroy(): void;
}

export interface ShareDbPresence {
  subscribe(cb: (error?: Error) => void): void;
  on(event: string, cb: (...args: unknown[]) => void): void;
}

export interface ShareDbConnection {
  id: string | null;
  state: string;
  get(collection: string, id: string): ShareDbDoc;
  createSubscribeQuery(
    collection: string,
    query: unknown,
    options: unknown,
    cb: (error: Error | null, results: ShareDbDoc[], extra: unknown) => void,
  ): ShareDbQuery;
  createFetchQuery(
    collection: string,
    query: unknown,
    options: unknown,
    cb: (error: Error | null, results: ShareDbDoc[], extra: unknown) => void,
  ): ShareDbQuery;
  getPresence(channel: string): ShareDbPresence;
  on(event: string, cb: (...args: unknown[]) => void): void;
  close(): void;
}

/** A connected ShareDB client (shaken hands) on `url`, with headers on the upgrade (a cookie, a bearer token). */
export const connectShareDb = async (
  url: string,
  headers: Record<string, string> = {},
): Promise<{ connection: ShareDbConnection; socket: WebSocket }> => {
  const socket = new WebSocket(url, { headers });
  const connection = new Connection(socket);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no handshake; state ${connection.state}`)), 10_000);
    connection.on('connected', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode }));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return { connection, socket };
};

/** Fails after 20 s, naming what was not answered (a test says what it waited for, never hangs). */
const answered = <T>(
  what: string,
  work: (resolve: (value: T) => void, reject: (e: unknown) => void) => void,
) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${what} within 20 s`)), 20_000);
    work(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/** A subscribed query's first answer. */
export const subscribeQuery = (
  connection: ShareDbConnection,
  collection: string,
  query: unknown,
): Promise<{ query: ShareDbQuery; results: ShareDbDoc[]; extra: unknown }> =>
  answered(`qs ${collection}`, (resolve, reject) => {
    const q = connection.createSubscribeQuery(collection, query, {}, (error, results, extra) =>
      error ? reject(error) : resolve({ query: q, results, extra }),
    );
  });

/** A fetched query's answer. */
export const fetchQuery = (
  connection: ShareDbConnection,
  collection: string,
  query: unknown,
): Promise<{ results: ShareDbDoc[]; extra: unknown }> =>
  answered(`qf ${collection}`, (resolve, reject) => {
    connection.createFetchQuery(collection, query, {}, (error, results, extra) =>
      error ? reject(error) : resolve({ results, extra }),
    );
  });

/** Calls a doc method that takes a callback, as a promise. */
export const docCall = (doc: ShareDbDoc, method: 'fetch' | 'subscribe' | 'unsubscribe'): Promise<void> =>
  answered(`${method} ${doc.collection} ${doc.id}`, (resolve, reject) =>
    doc[method]((error) => (error ? reject(error) : resolve())),
  );

/** Waits until `test` holds, checking every 20 ms. */
export const until = async (test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * The local server of one test file, with its `/socket` (`options`: limits and timings): started
 * before its tests, closed after them with every socket `connect` opened. Use inside tests and hooks.
 */
export const useSocketServer = (options: SocketServerOptions = {}) => {
  let server: Server | undefined;
  let url = '';
  const open: WebSocket[] = [];
  beforeAll(async () => {
    // loaded here: the client helpers above serve scripts that run no server of their own (`npm run load`)
    const { createLocalServer, listen } = await import('#infra/local/server.ts');
    server = createLocalServer(undefined, { socket: options });
    url = `ws://127.0.0.1:${await listen(server, 0)}/socket`;
  });
  afterAll(async () => {
    for (const socket of open) socket.terminate();
    await new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
  return {
    /** `ws://127.0.0.1:<port>/socket`. */
    url: () => url,
    /** A connected ShareDB client, with headers on the upgrade (closed after the file). */
    connect: async (headers: Record<string, string> = {}) => {
      const client = await connectShareDb(url, headers);
      open.push(client.socket);
      return client;
    },
  };
};
