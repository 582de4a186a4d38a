/**
 * The API reference over real HTTP against the local server: `GET /api/openapi.json`, the page
 * `GET /api/docs` and its assets (from the npm package, no CDN), and, where Debian's `chromium`
 * is installed, the page opened in headless Chromium (driven by `playwright-core`; nothing is
 * installed at run time): every route group renders, and "try it out" sends a real request with
 * a token and shows its answer.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { tagOf } from '#infra/openapi.ts';
import { ROUTES } from '#shared/routes.ts';
import { newUser } from '#test/support/fixtures.ts';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createLocalServer();
  origin = `http://127.0.0.1:${await listen(server, 0)}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the API reference over HTTP', () => {
  it('answers the description, the page and its assets without a token', async () => {
    const doc = await fetch(`${origin}/api/openapi.json`);
    expect(doc.status).toBe(200);
    const body = (await doc.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toContain('/api/table/{tableId}/record');

    const page = await fetch(`${origin}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//); // nothing from elsewhere
    // with and without a trailing slash, every URL the page loads answers (a blank page otherwise)
    for (const at of ['/api/docs', '/api/docs/']) {
      const text = await (await fetch(`${origin}${at}`)).text();
      const urls = [...text.matchAll(/(?:src|href)="([^"]+)"|url: '([^']+)'/g)].map((m) => m[1] ?? m[2]);
      expect(urls).toHaveLength(3);
      for (const url of urls)
        expect((await fetch(new URL(url as string, `${origin}${at}`))).status, `${url} from ${at}`).toBe(200);
    }

    const script = await fetch(`${origin}/api/docs/swagger-ui-bundle.js`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=86400');
    expect((await script.text()).length).toBeGreaterThan(100_000);
    const style = await fetch(`${origin}/api/docs/swagger-ui.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');

    const unknown = await fetch(`${origin}/api/docs/..%2Fpackage.json`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe.skipIf(!CHROMIUM)('the API reference in headless Chromium', () => {
  it('renders every route group and sends a request from "try it out"', async () => {
    const { chromium } = await import('playwright-core');
    const user = await newUser({ name: 'Docs reader' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${origin}/api/docs`);
      await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
      const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
      expect(new Set(tags)).toEqual(new Set(ROUTES.map((r) => tagOf(r))));

      // authorize with the token, then run GET /api/auth/user/me from its operation
      await page.click('.btn.authorize');
      await page.fill('.modal-ux input[type=text], .modal-ux input:not([type])', user.token);
      await page.click('.modal-ux .auth-btn-wrapper button.authorize');
      await page.click('.modal-ux button.btn-done');
      const tag = tagOf({ path: '/auth/user/me' });
      await page.click(`.opblock-tag[data-tag="${tag}"]`);
      const op = page.locator('#operations-auth-get-current-user');
      await op.locator('.opblock-summary').click();
      await op.locator('button.execute').click();
      const answer = op.locator('.live-responses-table tbody td.response-col_status').first();
      await answer.waitFor({ timeout: 30_000 });
      expect((await answer.textContent())?.trim()).toBe('200');
      expect(await op.locator('.responses-wrapper .microlight').first().textContent()).toContain(user.id);
    } finally {
      await browser.close();
    }
  }, 90_000);
});

if (!CHROMIUM)
  console.warn(
    'docs-page: Chromium is not installed (Debian package `chromium`); the in-browser check of the API reference is skipped',
  );
