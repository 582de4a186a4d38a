/**
 * Runs a built Teable web app (`apps/nextjs-app` of Teable's repository, built with `next build`)
 * for `npm start -- --web`: `npm run web-app -- <teable checkout> [--port 3210] [--api-port 3000]`,
 * or for a deployed stack's distribution (`-c webOrigin`): `--host 0.0.0.0 --api <the stack's
 * ApiUrl without /api>` (served behind the TLS your `webOrigin` names).
 *
 * Why not `next start`: the web app's server-side rendering calls
 * `http://localhost:$PORT/api/…` (its own port) with the browser's cookie (Teable's
 * `apps/nextjs-app/src/backend/api/rest/axios.ts`). Here Next runs in this process behind a small
 * front that passes those `/api` calls on to the API; the browser uses the API's origin
 * (`npm start -- --web http://127.0.0.1:<port>`), which passes everything else to this one.
 */
import { setDefaultResultOrder } from 'node:dns';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { proxyRequest } from './web-proxy.ts';

const { values, positionals } = parseArgs({
  options: {
    port: { type: 'string', default: '3210' },
    'api-port': { type: 'string', default: '3000' },
    // where the server-side rendering's `/api` calls go: a deployed API (https://…execute-api…)
    api: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
  },
  allowPositionals: true,
});
const checkout = positionals[0];
if (!checkout) {
  console.error(
    'usage: npm run web-app -- <teable checkout with a built apps/nextjs-app> [--port 3210] [--api-port 3000 | --api https://<api host>] [--host 127.0.0.1]',
  );
  process.exit(1);
}
const dir = resolve(join(checkout, 'apps/nextjs-app'));
const port = Number(values.port);
process.env.PORT = String(port);
const api = new URL(values.api ?? `http://127.0.0.1:${values['api-port']}`);
const host = values.host as string;
// `localhost` as this server listens: 127.0.0.1
setDefaultResultOrder('ipv4first');
process.env.NEXT_TELEMETRY_DISABLED = '1';
// the web app's server code reads it at load; nothing here uses a database
process.env.PRISMA_DATABASE_URL ??= 'postgresql://unused:unused@127.0.0.1:5432/unused';
// next-i18next finds its configuration from the working folder
process.chdir(dir);
const require = createRequire(join(dir, 'package.json'));
const next = require('next') as (options: Record<string, unknown>) => {
  prepare(): Promise<void>;
  getRequestHandler(): (req: unknown, res: unknown) => Promise<void>;
};
const app = next({ dev: false, dir, hostname: host, port });
await app.prepare();
const handle = app.getRequestHandler();
createServer((req, res) => {
  // the server-side rendering's calls to the API
  if (req.url === '/api' || req.url?.startsWith('/api/'))
    proxyRequest(api, req, res, values.api ? 'target' : 'viewer');
  else void handle(req, res);
})
  .on('error', (error) => {
    console.error(`The web app cannot listen on ${host}:${port}: ${error.message}`);
    process.exit(1);
  })
  .listen(port, host, () =>
    console.log(
      values.api
        ? `Web app http://${host}:${port}, its server-side calls to ${api.origin}/api (serve it at your stage's webOrigin; people open the stack's WebUrl)`
        : `Web app http://127.0.0.1:${port} (open it through the API: npm start -- --web http://127.0.0.1:${port}, then http://127.0.0.1:${values['api-port']}/)`,
    ),
  );
