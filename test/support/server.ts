import type { Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { checkedRequestId } from './request-id.ts';

/** Starts the local server (the API Gateway stand-in) on a free port for one test file. */
export const startTestServer = async () => {
  const server: Server = createLocalServer();
  const port = await listen(server, 0);
  const base = `http://127.0.0.1:${port}/api`;
  return {
    base,
    /** `fetch` against the API with an optional bearer token; parses JSON answers. */
    request: async (
      method: string,
      path: string,
      init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
    ) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(init.token ? { authorization: init.token } : {}),
          ...init.headers,
        },
        body:
          init.body === undefined
            ? undefined
            : typeof init.body === 'string'
              ? init.body
              : JSON.stringify(init.body),
      });
      const text = await res.text();
      const body = text ? JSON.parse(text) : undefined;
      return {
        status: res.status,
        headers: res.headers,
        body: checkedRequestId(res.status, res.headers.get('x-request-id'), body),
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/**
 * The local server of one test file: started before its tests and closed after them. The handle
 * is usable inside tests and hooks (not at module load, before the server has started).
 */
export const useTestServer = (): Pick<TestServer, 'base' | 'request'> => {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const started = () => {
    if (!server) throw new Error('the test server is not started yet (use it inside a test or hook)');
    return server;
  };
  return {
    get base() {
      return started().base;
    },
    request: (...args) => started().request(...args),
  };
};

/** A space named `spaceName` with one base in it, made over HTTP as a client would; answers the base id. */
export const newBaseOverHttp = async (api: Pick<TestServer, 'request'>, token: string, spaceName: string) => {
  const space = await api.request('POST', '/space', { token, body: { name: spaceName } });
  const base = await api.request('POST', '/base', { token, body: { spaceId: space.body.id } });
  return base.body.id as string;
};
