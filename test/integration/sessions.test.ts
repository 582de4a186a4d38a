import { afterEach, describe, expect, it, vi } from 'vitest';
import { mintSession } from '#shared/auth/session-cookie.ts';
import { deleteItem, getItem, putItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { toSessionItem } from '#shared/entities/sessions.ts';
import { randomBase62 } from '#shared/ids.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';

/**
 * Sign-in with sessions (issue 45, contract: sessions) through the handlers: sign-up, sign-in,
 * the cookie on every route, cross-site writes, sign-out and password changes ending sessions,
 * guessing slowed per email and per address (on a frozen clock: a lock is waited out by moving
 * it, not by sleeping). The test run sets `SIGNUP=open`, as `npm start` does.
 */

const HOST = 'api.example.test';
const OWN = { host: HOST, origin: `https://${HOST}` };
const email = () => `${randomBase62(10).toLowerCase()}@example.test`;
const PASSWORD = 'correct-horse-1';

/** The `name=value` of a Set-Cookie, as a browser sends it back. */
const cookieOf = (setCookies: string[] | undefined) => {
  const set = setCookies?.find((c) => c.startsWith('auth_session='));
  if (!set) throw new Error(`no session cookie in ${JSON.stringify(setCookies)}`);
  return set.split(';')[0] as string;
};

/** A call carried by the cookie, from the service's own pages. */
const asBrowser = (cookie: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie, ...OWN, ...options.headers },
});

const signUp = async (address = email(), password = PASSWORD) => {
  const res = await call('sign-up', { body: { email: address, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { email: address, user: res.body, cookie: cookieOf(res.cookies), setCookie: res.cookies };
};

const signIn = (address: string, password: string, sourceIp = '198.51.100.7') =>
  call('sign-in', { body: { email: address, password }, sourceIp });

describe('sign-up and sign-in', () => {
  it('signs up, signed in at once: the user as /auth/user/me answers it and a session cookie', async () => {
    const address = `${randomBase62(8)}@Example.TEST`;
    const { user, setCookie, cookie } = await signUp(address);

    expect(user).toMatchObject({ email: address.toLowerCase(), hasPassword: true, isAdmin: false });
    expect(setCookie?.[0]).toMatch(
      /^auth_session=usr\w+\.\w{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );
    const me = await call('get-current-user', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(user);
  });

  it('stores only a hash of the cookie secret, and the password only as scrypt with its parameters', async () => {
    const { user, cookie } = await signUp();
    const secret = cookie.split('.')[1] as string;

    const password = await getItem(keys.password(user.id));
    expect(password?.hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(JSON.stringify(password)).not.toContain(PASSWORD);
    const { secretHash } = mintSession(user.id); // the hash's form: 43 base64url characters
    expect(secretHash).toHaveLength(43);
    expect(JSON.stringify(await getItem(keys.user(user.id)))).not.toContain(secret);
  });

  it('signs in with the password: a new session each time, 200 and the user', async () => {
    const { email: address, user } = await signUp();

    const first = await signIn(address.toUpperCase(), PASSWORD);
    const second = await signIn(address, PASSWORD);

    expect(first.status).toBe(200);
    expect(first.body).toEqual(user);
    expect(cookieOf(first.cookies)).not.toBe(cookieOf(second.cookies));
  });

  it('answers an unknown email and a wrong password alike: 400, "Incorrect email or password."', async () => {
    const { email: address } = await signUp();

    const wrong = await signIn(address, 'wrong-password-1', '198.51.100.20');
    const unknown = await signIn(email(), PASSWORD, '198.51.100.21');

    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error', message: 'Incorrect email or password.' });
      expect(res.cookies).toBeUndefined();
    }
  });

  it('refuses an email in use (409), a weak or short password and a bad email (400)', async () => {
    const { email: address } = await signUp();

    expect((await call('sign-up', { body: { email: address, password: PASSWORD } })).status).toBe(409);
    for (const body of [
      { email: email(), password: 'short1' },
      { email: email(), password: 'lettersonly' },
      { email: email(), password: '1234567890' },
      { email: 'not-an-email', password: PASSWORD },
      { email: email() },
      { email: email(), password: 'x1'.repeat(200) },
    ]) {
      const res = await call('sign-up', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.cookies).toBeUndefined();
    }
    expect((await call('sign-in', { body: { email: address, password: 'short' } })).status).toBe(400);
  });

  it('refuses an oversized body (413) before any password work', async () => {
    const res = await call('sign-in', {
      rawBody: JSON.stringify({ email: email(), password: 'x1'.repeat(4 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.cookies).toBeUndefined();
  });

  it('refuses a sign-in posted from another site (a form there must not sign anyone in)', async () => {
    const { email: address } = await signUp();

    const res = await call('sign-in', {
      body: { email: address, password: PASSWORD },
      headers: { host: HOST, origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.cookies).toBeUndefined();
  });

  it("behind CloudFront: a cookie-carried write from the host the browser opened (X-Forwarded-Host) is taken, API Gateway's own host notwithstanding", async () => {
    const { cookie } = await signUp();
    const viewer = 'd1234abcd.cloudfront.net';
    const gatewayHost = 'abc123.execute-api.eu-west-1.amazonaws.com';
    const through = await call('create-space', {
      body: { name: 'Through CloudFront' },
      headers: { cookie, host: gatewayHost, 'x-forwarded-host': viewer, origin: `https://${viewer}` },
    });
    const without = await call('create-space', {
      body: { name: 'Not through CloudFront' },
      headers: { cookie, host: gatewayHost, origin: `https://${viewer}` },
    });
    const foreign = await call('create-space', {
      body: { name: 'Foreign' },
      headers: { cookie, host: gatewayHost, 'x-forwarded-host': viewer, origin: 'https://evil.example' },
    });
    expect(through.status, JSON.stringify(through.body)).toBe(201);
    expect(without.status).toBe(403);
    expect(foreign.status).toBe(403);
  });

  it("answers a space's collaborators to the web app (session) as the list it reads, and to a token as Teable's client 1.10 reads it", async () => {
    const { cookie } = await signUp();
    const own = { cookie, host: HOST, origin: `https://${HOST}` };
    const space = await call('create-space', { body: { name: 'Collaborators' }, headers: own });
    expect(space.status).toBe(201);
    const bySession = await call('list-collaborators', { params: { spaceId: space.body.id }, headers: own });
    expect(bySession.status).toBe(200);
    expect(bySession.body).toEqual([expect.objectContaining({ role: 'owner', type: 'user' })]);
    const base = await call('create-base', { body: { spaceId: space.body.id }, headers: own });
    const baseList = await call('list-base-collaborators', {
      params: { baseId: base.body.id },
      headers: own,
    });
    expect(Array.isArray(baseList.body)).toBe(true);
    const owner = await newUser();
    const mine = await call('create-space', { token: owner.auth, body: { name: 'Token' } });
    const byToken = await call('list-collaborators', {
      token: owner.auth,
      params: { spaceId: mine.body.id },
    });
    expect(byToken.body).toMatchObject({
      collaborators: [expect.objectContaining({ role: 'owner' })],
      total: 1,
    });
  });

  it('takes the fields Teable’s client sends beside email and password', async () => {
    const res = await call('sign-up', {
      body: { email: email(), password: PASSWORD, defaultSpaceName: 'Mine', refMeta: { referer: 'x' } },
    });
    expect(res.status).toBe(201);
  });
});

describe('the session cookie on every route', () => {
  it('makes a space, a base, a table and records with the cookie alone', async () => {
    const { cookie, user } = await signUp();

    const space = await call('create-space', asBrowser(cookie, { body: { name: 'By cookie' } }));
    const base = await call(
      'create-base',
      asBrowser(cookie, { body: { spaceId: space.body.id, name: 'B' } }),
    );
    const table = await call(
      'create-table',
      asBrowser(cookie, {
        params: { baseId: base.body.id },
        body: { fields: [{ name: 'Name', type: 'singleLineText' }], records: [] },
      }),
    );
    const records = await call(
      'create-records',
      asBrowser(cookie, {
        params: { tableId: table.body.id },
        body: { fieldKeyType: 'name', records: [{ fields: { Name: 'one' } }] },
      }),
    );
    const list = await call('list-records', asBrowser(cookie, { params: { tableId: table.body.id } }));

    expect([space.status, base.status, table.status, records.status]).toEqual([201, 201, 201, 201]);
    expect(list.body.records.map((r: { fields: { Name: string } }) => r.fields.Name)).toEqual(['one']);
    expect(records.body.records[0].createdBy).toBe(user.name);
  });

  it('refuses a cookie-carried write from another origin, or naming none (403); reads and bearer writes are not affected', async () => {
    const { cookie } = await signUp();
    const body = { name: 'Cross-site' };

    const foreign = await call('create-space', {
      body,
      headers: { cookie, host: HOST, origin: 'https://evil.example' },
    });
    const none = await call('create-space', { body, headers: { cookie, host: HOST } });
    const nullOrigin = await call('create-space', { body, headers: { cookie, host: HOST, origin: 'null' } });
    const byReferer = await call('create-space', {
      body,
      headers: { cookie, host: HOST, referer: `https://${HOST}/space/x` },
    });
    const read = await call('list-spaces', {
      headers: { cookie, host: HOST, origin: 'https://evil.example' },
    });
    const owner = await newUser();
    const bearer = await call('create-space', {
      body,
      token: owner.auth,
      headers: { origin: 'https://evil.example' },
    });

    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('cross-site write refused');
    expect(none.status).toBe(403);
    expect(nullOrigin.status).toBe(403);
    expect(byReferer.status).toBe(201);
    expect(read.status).toBe(200);
    expect(bearer.status).toBe(201);
  });

  it('uses the bearer token when both are sent', async () => {
    const { cookie } = await signUp();
    const other = await newUser();

    const me = await call('get-current-user', { token: other.auth, headers: { cookie } });
    expect(me.body.id).toBe(other.id);
  });

  it('acts with the user’s own rights: a session may make a personal token but not a temporary one', async () => {
    const { cookie } = await signUp();

    const token = await call(
      'create-access-token',
      asBrowser(cookie, {
        body: {
          name: 'From the web app',
          scopes: ['space|read'],
          expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
        },
      }),
    );
    const temp = await call('create-temp-token', asBrowser(cookie));

    expect(token.status).toBe(201);
    expect(temp.status).toBe(403);
  });

  it('answers 401 for a tampered, unknown, expired or malformed cookie, and for a deleted user', async () => {
    const { cookie, user } = await signUp();
    const [name, value] = cookie.split('=') as [string, string];
    const tampered = `${name}=${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    const expired = mintSession(user.id);
    await putItem(
      toSessionItem({
        userId: user.id,
        secretHash: expired.secretHash,
        createdTime: '2026-01-01T00:00:00.000Z',
        lastUsedTime: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-31T00:00:00.000Z',
        epoch: 0,
      }),
    );
    const gone = await signUp();
    await deleteItem(keys.user(gone.user.id));

    for (const c of [tampered, `auth_session=${expired.value}`, 'auth_session=nonsense', gone.cookie]) {
      const res = await call('get-current-user', { headers: { cookie: c } });
      expect(res.status, c).toBe(401);
      expect(res.body).toEqual({
        message: 'Sign in, or send a valid bearer token',
        status: 401,
        code: 'unauthorized',
      });
    }
  });

  it('slides a session used over an hour after its last use: 30 days from now, and the cookie again', async () => {
    const { user } = await signUp();
    const session = mintSession(user.id);
    const hourAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await putItem(
      toSessionItem({
        userId: user.id,
        secretHash: session.secretHash,
        createdTime: hourAgo,
        lastUsedTime: hourAgo,
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        epoch: 0,
      }),
    );

    const used = await call('get-current-user', { headers: { cookie: `auth_session=${session.value}` } });
    const again = await call('get-current-user', { headers: { cookie: `auth_session=${session.value}` } });

    expect(used.cookies).toEqual([
      `auth_session=${session.value}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax`,
    ]);
    expect(again.cookies).toBeUndefined();
    const stored = await getItem(keys.session(user.id, session.secretHash));
    expect(Date.parse(String(stored?.expiresAt))).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });
});

describe('ending sessions', () => {
  it('signs out: the cookie cleared, the session refused at once', async () => {
    const { cookie } = await signUp();

    const out = await call('sign-out', asBrowser(cookie));
    const after = await call('get-current-user', { headers: { cookie } });

    expect(out.status).toBe(200);
    expect(out.cookies).toEqual(['auth_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
    expect(after.status).toBe(401);
  });

  it('changes the password: every other session ends at once, the caller gets a new one', async () => {
    const { email: address, cookie } = await signUp();
    const elsewhere = cookieOf((await signIn(address, PASSWORD)).cookies);

    const wrong = await call(
      'change-password',
      asBrowser(cookie, { body: { password: 'not-the-password-1', newPassword: 'another-pass-2' } }),
    );
    const changed = await call(
      'change-password',
      asBrowser(cookie, { body: { password: PASSWORD, newPassword: 'another-pass-2' } }),
    );

    expect(wrong.status).toBe(400);
    expect(changed.status).toBe(200);
    const renewed = cookieOf(changed.cookies);
    expect((await call('get-current-user', { headers: { cookie: renewed } })).status).toBe(200);
    expect((await call('get-current-user', { headers: { cookie: elsewhere } })).status).toBe(401);
    expect((await call('get-current-user', { headers: { cookie } })).status).toBe(401);
    expect((await signIn(address, PASSWORD, '198.51.100.30')).status).toBe(400);
    expect((await signIn(address, 'another-pass-2', '198.51.100.30')).status).toBe(200);
  });

  it('refuses a weak new password (400) and changes nothing', async () => {
    const { email: address, cookie } = await signUp();

    const res = await call(
      'change-password',
      asBrowser(cookie, { body: { password: PASSWORD, newPassword: 'weakweak' } }),
    );

    expect(res.status).toBe(400);
    expect((await call('get-current-user', { headers: { cookie } })).status).toBe(200);
    expect((await signIn(address, PASSWORD, '198.51.100.31')).status).toBe(200);
  });

  it('adds a first password for a user made by an operator (a token), once', async () => {
    const user = await newUser();

    const before = await call('get-current-user', { token: user.auth });
    const added = await call('add-password', { token: user.auth, body: { password: PASSWORD } });
    const twice = await call('add-password', { token: user.auth, body: { password: PASSWORD } });
    const signedIn = await signIn(user.email, PASSWORD, '198.51.100.32');

    expect(before.body.hasPassword).toBe(false);
    expect(added.status).toBe(201);
    expect(twice.status).toBe(409);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.hasPassword).toBe(true);
  });

  it('a user without a password cannot sign in (the same 400) and cannot change one (400)', async () => {
    const user = await newUser();

    expect((await signIn(user.email, PASSWORD, '198.51.100.33')).body.message).toBe(
      'Incorrect email or password.',
    );
    const change = await call('change-password', {
      token: user.auth,
      body: { password: PASSWORD, newPassword: 'another-pass-2' },
    });
    expect(change.status).toBe(400);
  });
});

describe('guessing is slowed', () => {
  afterEach(() => vi.useRealTimers());

  it('locks an email after 5 failures: 429 with Retry-After even for the right password, then allowed after it', async () => {
    const { email: address } = await signUp();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await signIn(address, `wrong-guess-${i}`, `203.0.113.${i}`)).status);

    const locked = await signIn(address, PASSWORD, '203.0.113.50');

    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('too_many_requests');
    expect(locked.headers['retry-after']).toBe('60');
    vi.setSystemTime(start + 59_000);
    expect((await signIn(address, PASSWORD, '203.0.113.50')).status).toBe(429);
    vi.setSystemTime(start + 60_500);
    expect((await signIn(address, PASSWORD, '203.0.113.50')).status).toBe(200);
  });

  it('locks an address after 20 failures across emails; another address still signs in', async () => {
    const { email: address } = await signUp();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const ip = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await signIn(email(), 'wrong-guess-1', ip)).status);

    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(new Set(statuses.slice(20))).toEqual(new Set([429]));
    expect((await signIn(address, PASSWORD, ip)).status).toBe(429);
    expect((await signIn(address, PASSWORD, '198.51.100.99')).status).toBe(200);
  });

  it('doubles the lock each time, up to an hour', async () => {
    const { afterFailure, MAX_LOCK_SECONDS } = await import('#shared/auth/sign-in-limits.ts');
    let a = { failures: 0, windowStart: 0, lockedUntil: 0, locks: 0, version: 0 };
    let now = 1_000_000_000_000;
    const locks: number[] = [];
    for (let round = 0; round < 9; round++) {
      for (let i = 0; i < 5; i++) a = afterFailure(a, 'email', now, 60);
      locks.push((a.lockedUntil - now) / 1000);
      now = a.lockedUntil + 1;
    }
    expect(locks).toEqual([
      60,
      120,
      240,
      480,
      960,
      1920,
      MAX_LOCK_SECONDS,
      MAX_LOCK_SECONDS,
      MAX_LOCK_SECONDS,
    ]);
  });
});

describe('who may sign up', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('a stage with sign-up closed answers 403 "sign-up is closed" and makes no user', async () => {
    vi.stubEnv('SIGNUP', 'closed');
    vi.resetModules();
    const address = email();

    const res = await call('sign-up', { body: { email: address, password: PASSWORD } });

    expect(res.status).toBe(403);
    expect(res.body.message).toBe('sign-up is closed');
    expect(await getItem(keys.userEmail(address))).toBeUndefined();
  });
});
