import type { Server } from 'node:http';
import { createLocalServer, listen } from '#infra/local/server.ts';

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
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
