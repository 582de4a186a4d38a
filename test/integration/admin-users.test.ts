import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scopesFor } from '#shared/auth/scopes.ts';
import { getItems } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { randomBase62 } from '#shared/ids.ts';
import { FIRST_TOKEN_DAYS } from '#shared/users/users.ts';
import { UNAUTHORIZED } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';

const run = promisify(execFile);

const NOT_ADMIN = { message: 'only an instance admin may do this', status: 403, code: 'restricted_resource' };
const TOKEN = /^pat_acc[0-9A-Za-z]{16}_usr[0-9A-Za-z]{16}_[0-9A-Za-z]{32}$/;
const USER_ID = /^usr[0-9A-Za-z]{16}$/;

/** A fresh address no other test uses. */
const freshEmail = () => `${randomBase62(12).toLowerCase()}@example.test`;

const createUser = (token: string, body: unknown) => call('create-user', { token, body });

describe('POST /admin/users', () => {
  it('lets an instance admin create a user: 201 {id, name, email, token}, and the token works', async () => {
    const admin = await newUser({ isAdmin: true });
    const email = freshEmail();

    const res = await createUser(admin.auth, { name: 'Grace Hopper', email });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(USER_ID),
      name: 'Grace Hopper',
      email,
      token: expect.stringMatching(TOKEN),
    });
    expect(res.body.token.split('_')[2]).toBe(res.body.id);
    const me = await call('get-current-user', { token: `Bearer ${res.body.token}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.id, name: 'Grace Hopper', email });
  });

  it('gives the new user one token with every scope, valid for 30 days', async () => {
    const admin = await newUser({ isAdmin: true });
    const before = Date.now();
    const created = await createUser(admin.auth, { name: 'New', email: freshEmail() });

    const list = await call('list-access-tokens', { token: `Bearer ${created.body.token}` });

    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      id: created.body.token.split('_')[1],
      name: 'Default token',
      scopes: scopesFor(false),
      spaceIds: null,
      baseIds: null,
    });
    const expires = Date.parse(list.body[0].expiredTime);
    expect(expires).toBeGreaterThanOrEqual(before + FIRST_TOKEN_DAYS * 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + FIRST_TOKEN_DAYS * 86_400_000 + 1000);
  });

  it('creates a plain user by default and an instance admin with isAdmin: true', async () => {
    const admin = await newUser({ isAdmin: true });
    const plain = await createUser(admin.auth, { name: 'Plain', email: freshEmail() });
    const second = await createUser(admin.auth, { name: 'Second admin', email: freshEmail(), isAdmin: true });

    const byPlain = await createUser(`Bearer ${plain.body.token}`, { name: 'X', email: freshEmail() });
    const bySecond = await createUser(`Bearer ${second.body.token}`, { name: 'Y', email: freshEmail() });

    expect(byPlain.status).toBe(403);
    expect(byPlain.body).toEqual(NOT_ADMIN);
    expect(bySecond.status).toBe(201);
  });

  it('answers 403 to a user who is not an instance admin, and creates no one', async () => {
    const user = await newUser();
    const admin = await newUser({ isAdmin: true });
    const email = freshEmail();

    const res = await createUser(user.auth, { name: 'Sneaky', email });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NOT_ADMIN);
    const emailClaim = await getItems([keys.userEmail(email)]);
    expect(emailClaim.get(keys.userEmail(email))).toBeUndefined();
    expect((await createUser(admin.auth, { name: 'Now', email })).status).toBe(201);
  });

  it('answers 403 (not 400) to a non-admin even with a bad body', async () => {
    const user = await newUser();

    const res = await createUser(user.auth, { email: 'not-an-email' });

    expect(res.status).toBe(403);
    expect(res.body).toEqual(NOT_ADMIN);
  });

  it('answers 401 without a valid token', async () => {
    const res = await createUser('Bearer nope', { name: 'X', email: freshEmail() });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it.each<[string, (email: string) => string]>([
    ['the same email', (email) => email],
    ['the same email in other letter case', (email) => email.toUpperCase()],
    ['the same email in mixed case', (email) => email.replace(/^./, (c) => c.toUpperCase())],
  ])('answers 409 conflict for %s, and the first user keeps it', async (_, variant) => {
    const admin = await newUser({ isAdmin: true });
    const email = freshEmail();
    const first = await createUser(admin.auth, { name: 'First', email });
    expect(first.status).toBe(201);
    const taken = variant(email);

    const res = await createUser(admin.auth, { name: 'Second', email: taken });

    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: `The email ${taken} is already in use`,
      status: 409,
      code: 'conflict',
    });
    const claim = (await getItems([keys.userEmail(email)])).get(keys.userEmail(email));
    expect(claim?.userId).toBe(first.body.id);
  });

  it('answers 409 for the email of a user made by the fixture (mixed case)', async () => {
    const admin = await newUser({ isAdmin: true });
    const existing = await newUser();

    const res = await createUser(admin.auth, { name: 'Dup', email: existing.email.toUpperCase() });

    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an email without @', { name: 'X', email: 'not-an-email' }, 'body.email'],
    ['an email without a domain', { name: 'X', email: 'ada@' }, 'body.email'],
    ['an email with spaces', { name: 'X', email: 'ada lovelace@example.test' }, 'body.email'],
    ['an email that is not a string', { name: 'X', email: 42 }, 'body.email'],
    ['an email over 254 characters', { name: 'X', email: `${'a'.repeat(250)}@example.test` }, 'body.email'],
    ['a missing email', { name: 'X' }, 'body.email'],
    ['a missing name', { email: 'ada@example.test' }, 'body.name'],
    ['a blank name', { name: '   ', email: 'ada@example.test' }, 'body.name'],
    [
      'isAdmin that is not a boolean',
      { name: 'X', email: 'ada@example.test', isAdmin: 'yes' },
      'body.isAdmin',
    ],
  ])('answers 400 naming the field for %s', async (_, body, path) => {
    const admin = await newUser({ isAdmin: true });

    const res = await createUser(admin.auth, body);

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.message).toContain(path);
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });
});

describe('the operator command infra/local/user-create.ts', () => {
  /** Runs the command with this test's environment (DynamoDB Local endpoint, table). */
  const userCreate = (args: string[]) =>
    run('npx', ['tsx', 'infra/local/user-create.ts', ...args, '--table', process.env.TABLE_NAME ?? ''], {
      env: process.env,
      cwd: process.cwd(),
      timeout: 60_000,
    });

  it('creates a user in the table named by --table and prints a token that works', async () => {
    expect(process.env.TABLE_NAME).toBeTruthy();
    expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toBeTruthy();
    const email = freshEmail();

    const { stdout } = await userCreate(['--name', 'Operator Made', '--email', email]);

    const userLine = /^User {2}(usr[0-9A-Za-z]{16}) (\S+)$/m.exec(stdout);
    const tokenLine = /^Token {2}(pat_\S+)$/m.exec(stdout);
    expect(userLine?.[2]).toBe(email);
    expect(tokenLine?.[1]).toMatch(TOKEN);
    const me = await call('get-current-user', { token: `Bearer ${tokenLine?.[1]}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: userLine?.[1], name: 'Operator Made', email });
  });

  it('creates an instance admin with --admin', async () => {
    const { stdout } = await userCreate(['--name', 'Op Admin', '--email', freshEmail(), '--admin']);

    expect(stdout).toMatch(/^User {2}usr[0-9A-Za-z]{16} \S+ \(instance admin\)$/m);
    const token = /^Token {2}(pat_\S+)$/m.exec(stdout)?.[1];
    const res = await createUser(`Bearer ${token}`, { name: 'By op admin', email: freshEmail() });
    expect(res.status).toBe(201);
  });

  it('fails with exit code 1 and a message for an email already in use (any case)', async () => {
    const existing = await newUser();

    const failure = await userCreate(['--name', 'Dup', '--email', existing.email.toUpperCase()]).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );

    expect(failure?.code).toBe(1);
    expect(failure?.stdout ?? '').not.toMatch(/Token/);
    expect(failure?.stderr).toContain(`The email ${existing.email.toUpperCase()} is already in use`);
  });
});

describe('the operator command infra/local/user-token.ts', () => {
  const userToken = (args: string[]) =>
    run('npx', ['tsx', 'infra/local/user-token.ts', ...args, '--table', process.env.TABLE_NAME ?? ''], {
      env: process.env,
      cwd: process.cwd(),
      timeout: 60_000,
    });

  it("gives an existing user (found by email, any case) a new unlimited token for --days, whatever the user's tokens", async () => {
    const existing = await newUser();
    const before = Date.now();

    const { stdout } = await userToken(['--email', existing.email.toUpperCase(), '--days', '7']);

    const line = /^Token {2}(pat_\S+) {2}\(until (\S+)\)$/m.exec(stdout);
    expect(stdout).toMatch(new RegExp(`^User {2}${existing.id} ${existing.email}$`, 'm'));
    expect(line?.[1]).toMatch(TOKEN);
    const until = Date.parse(line?.[2] ?? '');
    expect(until - before).toBeGreaterThanOrEqual(7 * 86_400_000);
    expect(until - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    const me = await call('get-current-user', { token: `Bearer ${line?.[1]}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: existing.id, email: existing.email });
    const tokenId = /^pat_(acc[0-9A-Za-z]{16})_/.exec(line?.[1] ?? '')?.[1] as string;
    const stored = await call('get-access-token', {
      token: `Bearer ${line?.[1]}`,
      params: { accessTokenId: tokenId },
    });
    expect(stored.body).toMatchObject({ scopes: scopesFor(false), spaceIds: null, baseIds: null });
  });

  it.each([
    [
      'an unknown email',
      ['--email', 'nobody-at-all@example.test'],
      'No user has the email nobody-at-all@example.test',
    ],
    ['0 days', ['--email', 'x@example.test', '--days', '0'], 'days must be 1..366'],
    ['no email', [], 'usage: npm run user:token'],
  ])('fails with exit code 1 and a message for %s, printing no token', async (_, args, message) => {
    const failure = await userToken(args).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );

    expect(failure?.code).toBe(1);
    expect(failure?.stdout ?? '').not.toMatch(/Token/);
    expect(failure?.stderr).toContain(message);
  });
});
