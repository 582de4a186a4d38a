import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { proxyRequest } from '#infra/local/web-proxy.ts';
import { newUser } from '#test/support/fixtures.ts';
import { connectShareDb, fetchQuery } from '#test/support/sharedb-client.ts';

/**
 * One origin for a web app (issue 47, contract web-app §3): the local server under `--web` answers
 * `/api` and `/socket` itself and proxies everything else, WebSocket upgrades too, to a real
 * loopback web app; a web app that is down is a 502 that says so.
 */

let webApp: Server;
let webSockets: WebSocketServer;
let api: Server;
let origin: string;
let webAppPort: number;
const seen: { method?: string; url?: string; host?: string; body: string }[] = [];
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

beforeAll(async () => {
  webApp = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, host: req.headers.host, body });
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'web=1; Path=/' });
      res.end(`<html>page ${req.url}</html>`);
    });
  });
  webSockets = new WebSocketServer({ server: webApp, path: '/_next/webpack-hmr' });
  webSockets.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo ${data}`)));
  const webPort = await listen(webApp, 0);
  webAppPort = webPort;
  api = createLocalServer(undefined, { web: new URL(`http://127.0.0.1:${webPort}`) });
  origin = `http://127.0.0.1:${await listen(api, 0)}`;
});
afterAll(async () => {
  webSockets.close();
  await close(api);
  await close(webApp);
});

describe('npm start -- --web: one origin for the web app', () => {
  it('proxies pages, their query and body, with the Host the browser used, and passes the answer back', async () => {
    const page = await fetch(`${origin}/space/spc123?tab=all`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<html>page /space/spc123?tab=all</html>');
    expect(page.headers.get('set-cookie')).toBe('web=1; Path=/');
    const posted = await fetch(`${origin}/_next/data/x.json`, { method: 'POST', body: 'hello' });
    expect(posted.status).toBe(200);
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/_next/data/x.json',
      host: new URL(origin).host,
      body: 'hello',
    });
  });

  it('serves /api and /socket itself', async () => {
    const before = seen.length;
    const health = await fetch(`${origin}/api/health`);
    expect(health.status).toBe(200);
    const unknown = await fetch(`${origin}/api/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('not_found');
    const user = await newUser();
    const socket = await connectShareDb(`${origin.replace('http', 'ws')}/socket`, {
      authorization: user.auth,
    });
    const refused = await fetchQuery(socket.connection, 'tbl_bse0000000000000001', {}).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: 'not_found' });
    socket.socket.close();
    expect(seen.length).toBe(before);
  });

  it('proxies other WebSocket upgrades to the web app (its own sockets)', async () => {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/_next/webpack-hmr`);
    await new Promise((resolve, reject) => {
      ws.on('open', resolve);
      ws.on('error', reject);
    });
    const reply = new Promise<string>((resolve) => ws.on('message', (data) => resolve(String(data))));
    ws.send('ping');
    expect(await reply).toBe('echo ping');
    ws.close();
  });

  it("passes the web app's server-side /api calls to a deployed API under the API's own host (npm run web-app -- --api)", async () => {
    const front = createServer((req, res) =>
      proxyRequest(new URL(`http://127.0.0.1:${webAppPort}/`), req, res, 'target'),
    );
    const frontPort = await listen(front, 0);
    try {
      const res = await fetch(`http://127.0.0.1:${frontPort}/api/space`);
      expect(res.status).toBe(200);
      // the target's own host (API Gateway routes by it), not the front's; the path as asked
      expect(seen.at(-1)).toMatchObject({ url: '/api/space', host: `127.0.0.1:${webAppPort}` });
    } finally {
      await close(front);
    }
  });

  it('answers 502, saying so, while the web app is down', async () => {
    const down = createLocalServer(undefined, { web: new URL('http://127.0.0.1:9') });
    const downOrigin = `http://127.0.0.1:${await listen(down, 0)}`;
    const res = await fetch(`${downOrigin}/`);
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(
      /^The web app at http:\/\/127\.0\.0\.1:9 did not answer .*is it running\?$/,
    );
    expect((await fetch(`${downOrigin}/api/health`)).status).toBe(200);
    await close(down);
  });
});
