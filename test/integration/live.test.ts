import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLocalServer, listen } from '#infra/local/server.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { createToken } from '#test/support/tokens.ts';
import { newTable, newWorkspace } from '#test/support/workspace.ts';

/**
 * Live subscriptions on the local server (issue 31, data-flow.md 5), with a real WebSocket client
 * (`ws`) against the real HTTP server, fed by the stream poller: subscribe, receive, resume with
 * `sinceSeq`, only what the token may read, bad and revoked tokens.
 */

const poller = useStreamPoller();
let server: Server;
let live: string;
beforeAll(async () => {
  // the token is checked again before every send, so a revoked one is seen at once
  server = createLocalServer(undefined, { live: { reauthMs: 0, authTimeoutMs: 1_000, maxPerAddress: 12 } });
  const port = await listen(server, 0);
  live = `ws://127.0.0.1:${port}/api/live`;
});
const clients: WebSocket[] = [];
afterAll(async () => {
  for (const ws of clients) ws.terminate();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

type Message = {
  type: string;
  entry?: { seq: number; type: string; tableId: string; recordId?: string; id: string };
  [k: string]: unknown;
};

/** A client: its messages as they come, and ways to wait for them. */
const connect = (query = '') =>
  new Promise<{
    ws: WebSocket;
    messages: Message[];
    until: (test: (ms: Message[]) => boolean, timeoutMs?: number) => Promise<void>;
    closed: Promise<{ code: number; reason: string }>;
    send: (m: unknown) => void;
  }>((resolve, reject) => {
    const ws = new WebSocket(`${live}${query}`);
    clients.push(ws);
    const messages: Message[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      ws.on('close', (code, reason) => done({ code, reason: String(reason) })),
    );
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
    ws.on('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error('refused'), { status: res.statusCode })),
    );
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        ws,
        messages,
        closed,
        send: (m) => ws.send(JSON.stringify(m)),
        until: async (test, timeoutMs = 20_000) => {
          const end = Date.now() + timeoutMs;
          while (!test(messages)) {
            if (Date.now() > end) throw new Error(`timed out; got ${JSON.stringify(messages).slice(0, 500)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        },
      }),
    );
  });

const rawToken = (auth: string) => auth.replace(/^Bearer /, '');
const changes = (ms: Message[]) => ms.filter((m) => m.type === 'change');
const table = () => newTable({ fields: [{ type: 'singleLineText', name: 'Name' }], records: [] });
const createRecords = (t: Awaited<ReturnType<typeof table>>, names: string[]) =>
  call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: { records: names.map((Name) => ({ fields: { Name } })) },
  });

describe('live subscriptions (WebSocket)', () => {
  it('subscribes to a base with the token in the URL and receives each change in seq order', async () => {
    const t = await table();
    // the table's own creation is in the log before the subscription starts
    await poller.caughtUp();
    const c = await connect(`?token=${encodeURIComponent(rawToken(t.owner.auth))}`);
    c.send({ action: 'subscribe', baseId: t.baseId });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));
    expect(c.messages[0]).toMatchObject({ type: 'subscribed', baseId: t.baseId, seq: expect.any(Number) });

    await createRecords(t, ['a', 'b', 'c']);
    await poller.caughtUp();
    await c.until((ms) => changes(ms).length >= 3);

    const seqs = changes(c.messages).map((m) => m.entry?.seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(changes(c.messages).map((m) => m.entry?.type)).toEqual([
      'record.created',
      'record.created',
      'record.created',
    ]);
    c.ws.close();
  });

  it('takes the token as the first message; a bad one closes the socket with 4401 and nothing is subscribed', async () => {
    const t = await table();
    const good = await connect();
    good.send({ action: 'auth', token: rawToken(t.owner.auth) });
    good.send({ action: 'subscribe', tableId: t.tableId });
    await good.until((ms) => ms.some((m) => m.type === 'subscribed'));
    good.ws.close();

    const bad = await connect();
    bad.send({ action: 'auth', token: 'acc_nope.nope' });
    bad.send({ action: 'subscribe', baseId: t.baseId });
    expect((await bad.closed).code).toBe(4401);
    expect(bad.messages.some((m) => m.type === 'subscribed')).toBe(false);

    // subscribing before authenticating is refused the same way
    const early = await connect();
    early.send({ action: 'subscribe', baseId: t.baseId });
    expect((await early.closed).code).toBe(4401);
  });

  it('refuses the upgrade with a 401 for a bad token in the URL, and a 404 elsewhere', async () => {
    await expect(connect('?token=nope')).rejects.toMatchObject({ status: 401 });
    await expect(
      new Promise((resolve, reject) => {
        const ws = new WebSocket(live.replace('/api/live', '/api/elsewhere'));
        ws.on('unexpected-response', (_q, res) =>
          reject(Object.assign(new Error('refused'), { status: res.statusCode })),
        );
        ws.on('open', resolve);
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('sends only what the token may read: another user is refused the base; a table subscription gets that table only', async () => {
    const t = await table();
    const stranger = await newUser();
    const s = await connect(`?token=${encodeURIComponent(rawToken(stranger.auth))}`);
    s.send({ action: 'subscribe', baseId: t.baseId });
    await s.until((ms) => ms.length > 0);
    // the 403 of the API, as a message
    expect(s.messages[0]).toMatchObject({ type: 'error', code: 'restricted_resource' });

    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', fields: [{ type: 'singleLineText', name: 'Name' }], records: [] },
    });
    await poller.caughtUp();
    const c = await connect(`?token=${encodeURIComponent(rawToken(t.owner.auth))}`);
    c.send({ action: 'subscribe', tableId: other.body.id });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));
    await createRecords(t, ['not this one']);
    await call('create-records', {
      token: t.owner.auth,
      params: { tableId: other.body.id },
      body: { records: [{ fields: { Name: 'this one' } }] },
    });
    await poller.caughtUp();
    await c.until((ms) => changes(ms).length >= 1);
    await new Promise((r) => setTimeout(r, 300));

    expect(changes(c.messages).map((m) => m.entry?.tableId)).toEqual([other.body.id]);
    expect(changes(s.messages)).toEqual([]);
    c.ws.close();
    s.ws.close();
  });

  it('resumes with sinceSeq: a client that reconnects gets every change it missed, in order, none twice', async () => {
    const t = await table();
    await poller.caughtUp();
    const token = `?token=${encodeURIComponent(rawToken(t.owner.auth))}`;
    const first = await connect(token);
    first.send({ action: 'subscribe', baseId: t.baseId });
    await first.until((ms) => ms.some((m) => m.type === 'subscribed'));
    await createRecords(t, ['1', '2']);
    await poller.caughtUp();
    await first.until((ms) => changes(ms).length >= 2);
    const lastSeq = changes(first.messages).at(-1)?.entry?.seq as number;
    first.ws.close();
    await first.closed;

    // written while no one listens
    await createRecords(t, ['3', '4', '5']);
    await poller.caughtUp();
    const again = await connect(token);
    again.send({ action: 'subscribe', baseId: t.baseId, sinceSeq: lastSeq });
    await again.until((ms) => changes(ms).length >= 3);
    await createRecords(t, ['6']);
    await poller.caughtUp();
    await again.until((ms) => changes(ms).length >= 4);

    const seqs = changes(again.messages).map((m) => m.entry?.seq as number);
    expect(seqs).toEqual([lastSeq + 1, lastSeq + 2, lastSeq + 3, lastSeq + 4]);
    again.ws.close();
  });

  it('closes a connection whose token was deleted (4401) at its next message', async () => {
    const ws = await newWorkspace();
    const made = await call('create-access-token', {
      token: ws.owner.auth,
      body: {
        name: 'live',
        scopes: ['base|read', 'record|read'],
        expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(made.status).toBe(201);
    const c = await connect(`?token=${encodeURIComponent(made.body.token)}`);
    c.send({ action: 'subscribe', baseId: ws.baseId });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));

    expect(
      (await call('delete-access-token', { token: ws.owner.auth, params: { accessTokenId: made.body.id } }))
        .status,
    ).toBe(200);
    await call('create-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { name: 'After', fields: [{ type: 'singleLineText', name: 'Name' }], records: [] },
    });
    await poller.caughtUp();

    expect((await c.closed).code).toBe(4401);
    expect(changes(c.messages)).toEqual([]);
  });

  it('closes a connection whose token has expired (4401) at its next message', async () => {
    const ws = await newWorkspace();
    const made = await call('create-access-token', {
      token: ws.owner.auth,
      body: {
        name: 'brief',
        scopes: ['base|read', 'table|create'],
        expiredTime: new Date(Date.now() + 3_000).toISOString(),
      },
    });
    expect(made.status).toBe(201);
    await poller.caughtUp();
    const c = await connect(`?token=${encodeURIComponent(made.body.token)}`);
    c.send({ action: 'subscribe', baseId: ws.baseId });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));
    // past its expiry (the token's own time, not a clock of the test's)
    await new Promise((r) => setTimeout(r, 3_500));
    await call('create-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: { name: 'Later', fields: [{ type: 'singleLineText', name: 'Name' }], records: [] },
    });
    await poller.caughtUp();

    expect((await c.closed).code).toBe(4401);
    expect(changes(c.messages)).toEqual([]);
    expect(c.messages.at(-1)).toMatchObject({
      type: 'error',
      code: 'unauthorized',
    });
  });

  it('answers a message that is not of the protocol with an error, and keeps the connection', async () => {
    const t = await table();
    const c = await connect(`?token=${encodeURIComponent(rawToken(t.owner.auth))}`);
    c.send({ action: 'dance' });
    c.ws.send('not json');
    c.send({ action: 'subscribe', baseId: t.baseId, tableId: t.tableId });
    await c.until((ms) => ms.length >= 3);
    expect(c.messages.map((m) => [m.type, m.code])).toEqual([
      ['error', 'validation_error'],
      ['error', 'validation_error'],
      ['error', 'validation_error'],
    ]);
    c.send({ action: 'subscribe', baseId: t.baseId });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));
    c.ws.close();
  });

  it('sends a base follower only the entries its token may read: no record entry without record|read, on resume neither', async () => {
    const ws = await newWorkspace();
    const made = await createToken(ws.owner, { name: 'schema only', scopes: ['base|read', 'table|read'] });
    await poller.caughtUp();
    const c = await connect(`?token=${encodeURIComponent(made.token)}`);
    c.send({ action: 'subscribe', baseId: ws.baseId });
    await c.until((ms) => ms.some((m) => m.type === 'subscribed'));
    const from = c.messages[0]?.seq as number;
    const t = await call('create-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: {
        name: 'Seen',
        fields: [{ type: 'singleLineText', name: 'Name' }],
        records: [{ fields: { Name: 'secret' } }],
      },
    });
    expect(t.status).toBe(201);
    await poller.caughtUp();
    await c.until((ms) => changes(ms).some((m) => m.entry?.type === 'table.created'));
    // and again from the log
    const again = await connect(`?token=${encodeURIComponent(made.token)}`);
    again.send({ action: 'subscribe', baseId: ws.baseId, sinceSeq: from });
    await again.until((ms) => changes(ms).some((m) => m.entry?.type === 'table.created'));
    await new Promise((r) => setTimeout(r, 300));

    for (const client of [c, again]) {
      expect(changes(client.messages).map((m) => m.entry?.type)).toEqual(['table.created']);
      expect(JSON.stringify(client.messages)).not.toContain('secret');
      client.ws.close();
    }
  });

  it('closes a connection that sends a frame over 64 KB (1009) and only that one: the server and the others go on', async () => {
    const t = await table();
    const other = await connect(`?token=${encodeURIComponent(rawToken(t.owner.auth))}`);
    const big = await connect();
    big.ws.send('x'.repeat(70 * 1024));
    expect((await big.closed).code).toBe(1009);

    other.send({ action: 'subscribe', baseId: t.baseId });
    await other.until((ms) => ms.some((m) => m.type === 'subscribed'));
    expect((await fetch(live.replace('ws:', 'http:').replace('/live', '/health'))).status).toBe(200);
    other.ws.close();
  });

  it('closes a connection that has not authenticated within the time allowed (4401), pings or not', async () => {
    const idle = await connect();
    const started = Date.now();
    const closed = await idle.closed;
    expect(closed.code).toBe(4401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(idle.messages.at(-1)).toMatchObject({
      type: 'error',
      code: 'unauthorized',
      message: 'authenticate within 1 s',
    });
  });

  it('refuses a connection over the limit per address with a 429, and takes one again once another closed', async () => {
    const t = await table();
    const token = `?token=${encodeURIComponent(rawToken(t.owner.auth))}`;
    const held: Awaited<ReturnType<typeof connect>>[] = [];
    let refused: unknown;
    for (let i = 0; i < 13 && !refused; i++) {
      try {
        held.push(await connect(token));
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toMatchObject({ status: 429 });
    expect(held.length).toBeLessThanOrEqual(12);
    const first = held[0] as (typeof held)[number];
    first.ws.close();
    await first.closed;
    await new Promise((r) => setTimeout(r, 100));
    const next = await connect(token);
    next.ws.close();
    for (const c of held) c.ws.close();
  });
});
