import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '#shared/ids.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM } from '#test/support/browser.ts';
import { useTestServer } from '#test/support/server.ts';

/**
 * Sign-in in a real browser (issue 45): the API's own sign-in page (`GET /api/signin`) in headless
 * Chromium, its form posted, the session cookie set by the answer (HttpOnly: the page's script
 * cannot read it), and a reload still signed in.
 */
const api = useTestServer();

if (!chromiumPath) console.warn(`browser sign-in tests skipped: ${NO_CHROMIUM}`);
if (!process.env.TEABLE_WEB_DIR)
  console.warn(
    "the web app's own login page is not tried: no built web app (TEABLE_WEB_DIR); it needs the one origin of `npm start -- --web` (issue 47)",
  );

describe.skipIf(!chromiumPath)('signing in from a browser', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('posts the sign-in form, gets an HttpOnly session cookie, stays signed in after a reload, signs out', async () => {
    const email = `${randomBase62(10).toLowerCase()}@example.test`;
    const up = await api.request('POST', '/auth/signup', { body: { email, password: 'browser-pass-1' } });
    expect(up.status).toBe(201);
    await api.request('POST', '/auth/signout', {}); // the browser has its own session
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${api.base}/signin`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', 'wrong-pass-1');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('#error')).toBe('Incorrect email or password.');
    await page.fill('input[name=password]', 'browser-pass-1');
    await page.click('button[type=submit]');
    await page.waitForSelector('#me:not([hidden])');

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'auth_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate('document.cookie')).not.toContain('auth_session');

    await page.reload();
    await page.waitForSelector('#me:not([hidden])');
    expect(await page.textContent('#who')).toContain(email);

    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    await page.reload();
    await page.waitForSelector('#signin:not([hidden])');
    expect((await context.cookies()).find((c) => c.name === 'auth_session')).toBeUndefined();
    await context.close();
  });
});
