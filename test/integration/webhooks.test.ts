import { Webhook as Verifier } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { hasWebhooks, listWebhooks } from '#shared/entities/webhooks.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { deliverBase, postEvent } from '#shared/webhooks/deliver.ts';
import { deliverWebhooksInProcess, forgetWebhookRetries, settleWebhooks } from '#shared/webhooks/queue.ts';
import { invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { bearer, createToken } from '#test/support/tokens.ts';
import { type Answer, type Received, startReceiver } from '#test/support/webhook-receiver.ts';
import { newTable, newWorkspace } from '#test/support/workspace.ts';

/**
 * Outbound webhooks (issue 31, data-flow.md 4), against real HTTP receivers on loopback: the
 * routes, Standard Webhooks signatures checked with the `standardwebhooks` library, retries with
 * the same event id, `Retry-After`, order, filters, giving up and disabling, redelivery, secret
 * rotation. Deliveries run in this process from the change log the stream poller writes.
 */

const poller = useStreamPoller();
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
const receiver = async (answer?: Answer) => {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
};
afterEach(async () => {
  deliverWebhooksInProcess((baseId) => deliverBase(baseId));
  await settleWebhooks();
  forgetWebhookRetries();
  for (const r of receivers.splice(0)) await r.close();
});

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
const createHook = (ws: Ws, body: Record<string, unknown>) =>
  call('create-webhook', { token: ws.owner.auth, params: { baseId: ws.baseId }, body });
const onHook = (ws: Ws, webhookId: string) => ({
  token: ws.owner.auth,
  params: { baseId: ws.baseId, webhookId },
});

/** A table with a Name and a Qty field in a new workspace. */
const table = () =>
  newTable({
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Qty' },
    ],
    records: [],
  });
const fieldIdOf = (t: Awaited<ReturnType<typeof table>>, name: string) =>
  (t.table.fields as { id: string; name: string }[]).find((f) => f.name === name)?.id as string;
const createRecords = (t: Awaited<ReturnType<typeof table>>, names: string[]) =>
  call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: { records: names.map((Name) => ({ fields: { Name } })) },
  });

/** Verifies a request with the Standard Webhooks library and a secret: the parsed body, or it throws. */
const verify = (secret: string, r: Received) =>
  new Verifier(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

const deliveriesOf = async (ws: Ws, webhookId: string) =>
  (await call('list-webhook-deliveries', onHook(ws, webhookId))).body.deliveries as {
    id: string;
    eventId: string;
    attempt: number;
    status: string;
    statusCode?: number;
    attemptedAt: string;
  }[];

describe('webhook routes', () => {
  it('creates a webhook (the secret answered once), lists and gets it without secrets, updates and deletes it', async () => {
    const ws = await newWorkspace();
    const created = await createHook(ws, { url: 'http://127.0.0.1:9/a', description: 'orders' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^whk/),
      baseId: ws.baseId,
      url: 'http://127.0.0.1:9/a',
      events: ['record.created', 'record.updated', 'record.deleted'],
      includePrevious: false,
      isEnabled: true,
      description: 'orders',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const id = created.body.id as string;
    const listed = await call('list-webhooks', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    expect(listed.body.webhooks).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const got = await call('get-webhook', onHook(ws, id));
    expect(got.body).not.toHaveProperty('secret');

    const updated = await call('update-webhook', {
      ...onHook(ws, id),
      body: { events: ['record.updated'], includePrevious: true, description: null },
    });
    expect(updated.body).toMatchObject({ events: ['record.updated'], includePrevious: true });
    expect(updated.body).not.toHaveProperty('description');

    expect((await call('delete-webhook', onHook(ws, id))).status).toBe(200);
    expect(await call('get-webhook', onHook(ws, id))).toMatchObject(notFound(/Webhook/));
  });

  it('refuses a URL that is not http(s), a field it does not know, and a 21st webhook of a base (409 limit_exceeded)', async () => {
    const ws = await newWorkspace();
    expect(await createHook(ws, { url: 'ftp://127.0.0.1/x' })).toMatchObject(invalid(/url/));
    expect(await createHook(ws, { url: 'not a url' })).toMatchObject(invalid(/url/));
    expect(await createHook(ws, { url: 'http://127.0.0.1:9/', events: ['record.moved'] })).toMatchObject(
      invalid(/events/),
    );
    expect(await createHook(ws, { url: 'http://127.0.0.1:9/', secret: 'mine' })).toMatchObject(
      invalid(/secret/),
    );
    for (let i = 0; i < 20; i++)
      expect((await createHook(ws, { url: `http://127.0.0.1:9/${i}` })).status).toBe(201);
    expect(await createHook(ws, { url: 'http://127.0.0.1:9/21' })).toMatchObject({
      status: 409,
      body: { code: 'limit_exceeded' },
    });
    // one deleted, one more fits
    const list = await call('list-webhooks', { token: ws.owner.auth, params: { baseId: ws.baseId } });
    await call('delete-webhook', onHook(ws, list.body.webhooks[0].id));
    expect((await createHook(ws, { url: 'http://127.0.0.1:9/21' })).status).toBe(201);
  });

  // Addresses the one outbound policy (shared/net/addresses.ts) refuses that a weaker webhook check
  // once let through; refused in local mode too, where only loopback is let through.
  it.each([
    ['http://[::a9fe:a9fe]/', '::a9fe:a9fe is a deprecated IPv4-compatible address (of 169.254.169.254)'],
    ['http://[::7f00:1]/', '::7f00:1 is a deprecated IPv4-compatible address (of 127.0.0.1)'],
    ['http://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1 is a 6to4 address (of 169.254.169.254)'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', '64:ff9b:1::a9fe:a9fe is a local-use NAT64 address'],
    ['http://[::ffff:0:a9fe:a9fe]/', '::ffff:0:a9fe:a9fe is an IPv4-translated address (of 169.254.169.254)'],
    ['http://[fec0::1]/', 'fec0::1 is a deprecated site-local address'],
    ['http://192.0.2.1/', '192.0.2.1 is a documentation address'],
    ['https://[2001:db8::1]/', '2001:db8::1 is a documentation address'],
    [
      'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo address',
    ],
    ['https://198.51.100.7/', '198.51.100.7 is a documentation address'],
  ])('refuses the target %s at creation and at a URL change (400, the address named)', async (url, why) => {
    const ws = await newWorkspace();
    const problem = `${why}, not a public address`;
    const refusal = {
      status: 400,
      body: {
        status: 400,
        code: 'validation_error',
        message: `url: ${problem}`,
        details: [{ path: 'body.url', message: problem }],
      },
    };

    expect(await createHook(ws, { url })).toMatchObject(refusal);
    expect(await listWebhooks(ws.baseId)).toEqual([]);
    const kept = await createHook(ws, { url: 'http://127.0.0.1:9/ok' });
    expect(await call('update-webhook', { ...onHook(ws, kept.body.id), body: { url } })).toMatchObject(
      refusal,
    );
    expect((await call('get-webhook', onHook(ws, kept.body.id))).body.url).toBe('http://127.0.0.1:9/ok');
  });

  it('go with their base when it is deleted for good', async () => {
    const ws = await newWorkspace();
    await createHook(ws, { url: 'http://127.0.0.1:9/a' });
    await createHook(ws, { url: 'http://127.0.0.1:9/b' });
    expect(await listWebhooks(ws.baseId)).toHaveLength(2);

    expect(
      (await call('delete-base-permanently', { token: ws.owner.auth, params: { baseId: ws.baseId } })).status,
    ).toBe(200);
    await drainPurges();

    expect(await listWebhooks(ws.baseId)).toEqual([]);
    expect(await hasWebhooks(ws.baseId)).toBe(false);
  });

  it('needs base|update: a viewer of the space cannot list or create webhooks', async () => {
    const ws = await newWorkspace();
    const { newMember } = await import('#test/support/workspace.ts');
    const viewer = await newMember(ws, 'viewer');
    const res = await call('list-webhooks', { token: viewer.auth, params: { baseId: ws.baseId } });
    expect(res.status).toBe(403);
    expect(
      (
        await call('create-webhook', {
          token: viewer.auth,
          params: { baseId: ws.baseId },
          body: { url: 'http://127.0.0.1:9/' },
        })
      ).status,
    ).toBe(403);
  });

  it('sends only what its author may read: events of a kind the token may not read are a 403, at creation and update', async () => {
    const ws = await newWorkspace();
    const made = await createToken(ws.owner, {
      name: 'hooks without records',
      scopes: ['base|read', 'base|update', 'table|read'],
    });
    const token = bearer(made.token);
    const create = (body: Record<string, unknown>) =>
      call('create-webhook', { token, params: { baseId: ws.baseId }, body });

    // the default events are the record events
    const plain = await create({ url: 'http://127.0.0.1:9/' });
    expect(plain.status).toBe(403);
    expect(plain.body.message).toMatch(/record\|read/);
    expect((await create({ url: 'http://127.0.0.1:9/', events: ['field.created'] })).status).toBe(403);
    const tables = await create({ url: 'http://127.0.0.1:9/', events: ['table.created'] });
    expect(tables.status).toBe(201);
    const update = await call('update-webhook', {
      token,
      params: { baseId: ws.baseId, webhookId: tables.body.id },
      body: { events: ['table.created', 'record.updated'] },
    });
    expect(update.status).toBe(403);
    expect((await listWebhooks(ws.baseId)).map((w) => w.events)).toEqual([['table.created']]);
  });
});

describe('webhook delivery', () => {
  it('posts every record change, signed (verified with the Standard Webhooks library), in seq order, and logs each attempt', async () => {
    const t = await table();
    const r = await receiver();
    const hook = await createHook(t, { url: r.url });
    const secret = hook.body.secret as string;

    await createRecords(t, ['a', 'b', 'c']);
    await poller.caughtUp();
    await r.waitFor(3);
    await settleWebhooks();

    const events = r.received.map((req) => verify(secret, req) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(['record.created', 'record.created', 'record.created']);
    const seqs = events.map((e) => e.seq as number);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    for (const [i, e] of events.entries()) {
      expect(e).toMatchObject({
        id: expect.stringMatching(/^evt/),
        baseId: t.baseId,
        tableId: t.tableId,
        occurredAt: expect.any(String),
        data: { seq: e.seq, id: e.id, type: 'record.created', recordId: expect.stringMatching(/^rec/) },
      });
      expect(r.received[i]?.headers['webhook-id']).toBe(e.id);
    }
    // a tampered body does not verify
    expect(() =>
      verify(secret, { ...(r.received[0] as Received), body: `${r.received[0]?.body} ` }),
    ).toThrow();
    const log = await deliveriesOf(t, hook.body.id);
    expect(log.map((d) => [d.status, d.attempt, d.statusCode])).toEqual([
      ['succeeded', 1, 200],
      ['succeeded', 1, 200],
      ['succeeded', 1, 200],
    ]);
    // newest first
    expect(log.map((d) => d.eventId)).toEqual(events.map((e) => e.id).reverse());
  });

  it('retries a 500 with the same event id, after the wait Retry-After asks for', async () => {
    const t = await table();
    const r = await receiver((_, n) =>
      n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 204 },
    );
    const hook = await createHook(t, { url: r.url });

    await createRecords(t, ['a']);
    await poller.caughtUp();
    await r.waitFor(2);
    await settleWebhooks();

    expect(r.received[1]?.headers['webhook-id']).toBe(r.received[0]?.headers['webhook-id']);
    const log = (await deliveriesOf(t, hook.body.id)).reverse();
    expect(log.map((d) => [d.attempt, d.status, d.statusCode])).toEqual([
      [1, 'pending', 503],
      [2, 'succeeded', 204],
    ]);
    // the second attempt came no sooner than the receiver asked
    expect(
      Date.parse(log[1]?.attemptedAt as string) - Date.parse(log[0]?.attemptedAt as string),
    ).toBeGreaterThanOrEqual(1000);
  });

  it('keeps seq order per webhook under concurrent writes of one record, each event once', async () => {
    const t = await table();
    const r = await receiver();
    await createHook(t, { url: r.url, events: ['record.updated'] });
    const created = await createRecords(t, ['x']);
    const recordId = created.body.records[0].id as string;

    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('update-record', {
          token: t.owner.auth,
          params: { tableId: t.tableId, recordId },
          body: { record: { fields: { Qty: i } } },
        }),
      ),
    );
    await poller.caughtUp();
    const log = await call('list-changes', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      query: `types=record.updated&tableId=${t.tableId}`,
    });
    const expected = (log.body.changes as { id: string }[]).map((c) => c.id);
    expect(expected.length).toBeGreaterThan(0);
    await r.waitFor(expected.length);
    await settleWebhooks();

    expect(r.events().map((e) => e.id)).toEqual(expected);
  });

  it('sends only what the filters ask for: event types, tables, and updates of given fields; previous values on request', async () => {
    const t = await table();
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', fields: [{ type: 'singleLineText', name: 'Name' }], records: [] },
    });
    const qty = fieldIdOf(t, 'Qty');
    const onlyQty = await receiver();
    const otherTable = await receiver();
    await createHook(t, {
      url: onlyQty.url,
      events: ['record.updated'],
      fieldIds: [qty],
      includePrevious: true,
    });
    await createHook(t, { url: otherTable.url, tableIds: [other.body.id] });
    const created = await createRecords(t, ['a']);
    const recordId = created.body.records[0].id as string;
    const update = (fields: Record<string, unknown>) =>
      call('update-record', {
        token: t.owner.auth,
        params: { tableId: t.tableId, recordId },
        body: { record: { fields } },
      });
    await update({ Name: 'renamed' });
    await update({ Qty: 5 });
    await call('create-records', {
      token: t.owner.auth,
      params: { tableId: other.body.id },
      body: { records: [{ fields: { Name: 'there' } }] },
    });
    await poller.caughtUp();
    await onlyQty.waitFor(1);
    await otherTable.waitFor(1);
    await settleWebhooks();

    expect(onlyQty.events()).toHaveLength(1);
    expect(onlyQty.events()[0]).toMatchObject({
      type: 'record.updated',
      data: { after: { [qty]: 5 }, before: {} },
    });
    expect(otherTable.events().map((e) => [e.type, e.tableId])).toEqual([['record.created', other.body.id]]);
  });

  it('leaves out the values before an update unless includePrevious', async () => {
    const t = await table();
    const r = await receiver();
    await createHook(t, { url: r.url, events: ['record.updated'] });
    const created = await createRecords(t, ['a']);
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: created.body.records[0].id },
      body: { record: { fields: { Name: 'b' } } },
    });
    await poller.caughtUp();
    await r.waitFor(1);
    expect(r.events()[0]?.data).not.toHaveProperty('before');
    expect(r.events()[0]?.data).toHaveProperty('after');
  });

  it('a slow receiver delays only its own webhook: the other gets every event meanwhile', async () => {
    const t = await table();
    const slow = await receiver(() => ({ status: 200, delayMs: 8_000 }));
    const fast = await receiver();
    deliverWebhooksInProcess((baseId) => deliverBase(baseId, { timeoutMs: 6_000 }));
    await createHook(t, { url: slow.url });
    await createHook(t, { url: fast.url });

    await createRecords(t, ['a', 'b', 'c']);
    await poller.caughtUp();
    await fast.waitFor(3);
    // its first attempt may reach the receiver after the fast one's three, under a loaded run
    await slow.waitFor(1);

    // the slow one is still on its first event (it answers after 8 s; the sender gives up at 6)
    expect(slow.received.length).toBe(1);
    expect(fast.events().map((e) => e.type)).toEqual(['record.created', 'record.created', 'record.created']);
  });

  it('a receiver that does not answer in time is retried; a redirect is not followed (a failure)', async () => {
    const t = await table();
    const r = await receiver((_, n) =>
      n === 1
        ? { status: 200, delayMs: 2_000 }
        : n === 2
          ? { status: 302, headers: { location: 'http://10.0.0.1/' } }
          : { status: 200 },
    );
    deliverWebhooksInProcess((baseId) => deliverBase(baseId, { timeoutMs: 500, random: () => 0 }));
    const hook = await createHook(t, { url: r.url });

    await createRecords(t, ['a']);
    await poller.caughtUp();
    await r.waitFor(3);
    await settleWebhooks();

    const log = (await deliveriesOf(t, hook.body.id)).reverse();
    expect(log.map((d) => [d.attempt, d.status, d.statusCode ?? null])).toEqual([
      [1, 'pending', null],
      [2, 'pending', 302],
      [3, 'succeeded', 200],
    ]);
    expect(new Set(r.received.map((q) => q.headers['webhook-id'])).size).toBe(1);
  });

  it('gives an event up after 24 hours of retries and disables the webhook after 3 days of failing; the owners are told', async () => {
    const t = await table();
    const r = await receiver(() => ({ status: 500 }));
    // deliveries run only when this test says, on its own clock
    deliverWebhooksInProcess(async () => undefined);
    const hook = await createHook(t, { url: r.url });
    await createRecords(t, ['a']);
    await createRecords(t, ['b']);
    await poller.caughtUp();
    const start = Date.now();
    // the clock moves a millisecond at each reading, as a real one would between attempts
    let tick = 0;
    const at = (hours: number) => ({ now: () => start + hours * 3600_000 + tick++, random: () => 0 });

    await deliverBase(t.baseId, at(0)); // event 1, attempt 1
    await deliverBase(t.baseId, at(25)); // event 1 given up; event 2, attempt 1
    let state = await call('get-webhook', onHook(t, hook.body.id));
    expect(state.body).toMatchObject({ isEnabled: true, failuresInARow: 1 });
    await deliverBase(t.baseId, at(73)); // event 2 given up: failing for 73 hours

    state = await call('get-webhook', onHook(t, hook.body.id));
    expect(state.body).toMatchObject({
      isEnabled: false,
      failuresInARow: 2,
      disabledReason: expect.stringContaining('answered 500'),
    });
    const log = (await deliveriesOf(t, hook.body.id)).reverse();
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [1, 'pending'],
      [2, 'failed'],
      [1, 'pending'],
      [2, 'failed'],
    ]);
    const notes = await call('list-notifications', { token: t.owner.auth, query: 'notifyStates=unread' });
    expect(JSON.stringify(notes.body)).toContain(`was disabled`);
    // nothing more is sent while disabled
    const sent = r.received.length;
    await createRecords(t, ['c']);
    await poller.caughtUp();
    await deliverBase(t.baseId, at(74));
    expect(r.received.length).toBe(sent);
    // enabled again by hand: its failures start over, and it goes on from where it stopped
    const enabled = await call('update-webhook', { ...onHook(t, hook.body.id), body: { isEnabled: true } });
    expect(enabled.body).toMatchObject({ isEnabled: true, failuresInARow: 0 });
    expect(enabled.body).not.toHaveProperty('disabledReason');
  });

  it('redelivers an attempt: the same event id again (202)', async () => {
    const t = await table();
    const r = await receiver();
    const hook = await createHook(t, { url: r.url });
    await createRecords(t, ['a']);
    await poller.caughtUp();
    await r.waitFor(1);
    await settleWebhooks();
    const [first] = await deliveriesOf(t, hook.body.id);

    const res = await call('redeliver-webhook', {
      ...onHook(t, hook.body.id),
      params: { baseId: t.baseId, webhookId: hook.body.id, deliveryId: first?.id as string },
    });
    expect(res).toMatchObject({ status: 202, body: { deliveryId: first?.id, eventId: first?.eventId } });
    await r.waitFor(2);
    await settleWebhooks();

    expect(r.received[1]?.headers['webhook-id']).toBe(first?.eventId);
    expect(r.received[1]?.body).toBe(r.received[0]?.body);
    const unknown = await call('redeliver-webhook', {
      ...onHook(t, hook.body.id),
      params: { baseId: t.baseId, webhookId: hook.body.id, deliveryId: 'dlv0000000000000000' },
    });
    expect(unknown).toMatchObject(notFound(/Delivery/));
  });

  it('rotates the secret: deliveries carry both signatures for the overlap, each verifies with either secret', async () => {
    const t = await table();
    const r = await receiver();
    const hook = await createHook(t, { url: r.url });
    const rotated = await call('rotate-webhook-secret', onHook(t, hook.body.id));
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.body.secret);

    await createRecords(t, ['a']);
    await poller.caughtUp();
    await r.waitFor(1);

    const request = r.received[0] as Received;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated.body.secret, request)).toMatchObject({ type: 'record.created' });
    expect(verify(hook.body.secret, request)).toMatchObject({ type: 'record.created' });
    expect(() => verify(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, request)).toThrow();
  });

  it('checks the address again at every delivery: a host that resolves to loopback is refused outside local mode, nothing sent', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    const cloud = { local: false };

    const byName = await postEvent(`http://localhost:${port}/hook`, '{}', {}, 2_000, cloud);
    const byAddress = await postEvent(`http://127.0.0.1:${port}/hook`, '{}', {}, 2_000, cloud);
    const mapped = await postEvent(`http://[::ffff:127.0.0.1]:${port}/hook`, '{}', {}, 2_000, cloud);

    for (const outcome of [byName, byAddress, mapped])
      expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/^refused: .*loopback/) });
    // addresses no stage reaches, written in the URL: refused at delivery before any connection
    for (const host of ['[::a9fe:a9fe]', '[2002:a9fe:a9fe::1]', '[::ffff:0:a9fe:a9fe]', '192.0.2.1'])
      expect(await postEvent(`http://${host}:${port}/hook`, '{}', {}, 2_000, { local: true })).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^refused: .*, not a public address$/),
      });
    expect(r.received).toHaveLength(0);
    // the same receiver in local mode
    expect(await postEvent(`http://localhost:${port}/hook`, '{}', {}, 2_000, { local: true })).toMatchObject({
      ok: true,
      statusCode: 200,
    });
  });
});
