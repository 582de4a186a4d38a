import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readSocketConnection, removeSocketConnection } from '#shared/entities/socket-connections.ts';
import type { ConnectionState } from '#shared/live/sharedb/socket-hub.ts';
import { useApiGatewaySocket } from '#test/support/api-gateway-socket.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { docCall, fetchQuery, type ShareDbDoc, subscribeQuery, until } from '#test/support/sharedb-client.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * The realtime socket as the cloud runs it (issue 46 §4): API Gateway's WebSocket API staged on
 * this machine in front of the socket's Lambda (`functions/workers/socket.ts`), its management
 * API reached by the AWS SDK's own client, the sessions kept in DynamoDB Local between messages,
 * and the stream processor's fan-out fed by the poller on DynamoDB Local's stream. The client is
 * ShareDB 4.1's own.
 */

const poller = useStreamPoller();
const gateway = useApiGatewaySocket();

const connect = async (auth?: string) =>
  (await gateway.connect(auth ? { authorization: auth } : {})).connection;

const fieldsOf = (doc: ShareDbDoc) => (doc.data as { fields: Record<string, unknown> }).fields;

const peopleTable = () =>
  newTable({
    name: 'People',
    fields: [
      { name: 'Name', type: 'singleLineText' },
      { name: 'Age', type: 'number' },
    ],
    records: [{ fields: { Name: 'Ada', Age: 36 } }, { fields: { Name: 'Grace', Age: 45 } }],
  });

const idOf = (t: Awaited<ReturnType<typeof peopleTable>>, name: string) =>
  t.table.fields.find((f: { name: string }) => f.name === name).id as string;

const stateOf = async (connectionId: string) => {
  const item = await readSocketConnection(connectionId);
  return item ? (JSON.parse(item.state) as ConnectionState) : undefined;
};

describe('the realtime socket in the cloud (API Gateway WebSocket API, Lambda, DynamoDB)', () => {
  it('shakes hands, answers a rec_ query as REST does, keeps the session between messages, and forgets it on disconnect', async () => {
    const t = await peopleTable();
    const { connection, socket } = await gateway.connect({ authorization: t.owner.auth });
    const id = connection.id as string;
    expect(gateway.gateway().sockets.has(id)).toBe(true);
    const age = idOf(t, 'Age');
    const query = { viewId: t.viewId, orderBy: [{ fieldId: age, order: 'desc' }] };
    const { results } = await subscribeQuery(connection, `rec_${t.tableId}`, query);
    const rest = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `fieldKeyType=id&viewId=${t.viewId}&orderBy=${encodeURIComponent(JSON.stringify(query.orderBy))}`,
    });
    expect(results.map((d) => [d.id, fieldsOf(d)])).toEqual(
      (rest.body.records as { id: string; fields: unknown }[]).map((r) => [r.id, r.fields]),
    );
    const state = await stateOf(id);
    expect(state?.queries).toEqual([
      expect.objectContaining({ c: `rec_${t.tableId}`, ids: results.map((d) => d.id) }),
    ]);
    // a record's data is not kept, only its version
    expect(Object.values(state?.known[`rec_${t.tableId}`] ?? {})).toEqual(results.map((d) => [d.version]));
    socket.close();
    await until(() => !gateway.gateway().sockets.has(id), 'the close');
    await gateway.gateway().idle();
    expect(await readSocketConnection(id)).toBeUndefined();
  });

  it('a REST edit arrives as an op at the next version; a created record enters the query; a field created arrives', async () => {
    const t = await peopleTable();
    await poller.caughtUp();
    const connection = await connect(t.owner.auth);
    const records = await subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId });
    const fields = await subscribeQuery(connection, `fld_${t.tableId}`, { viewId: t.viewId });
    const ada = records.results[0] as ShareDbDoc;
    const before = ada.version as number;
    const edited = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ada.id },
      body: { fieldKeyType: 'id', record: { fields: { [idOf(t, 'Name')]: 'Ada L.' } } },
    });
    expect(edited.status).toBe(200);
    await poller.caughtUp();
    await until(() => fieldsOf(ada)[idOf(t, 'Name')] === 'Ada L.', 'the op');
    expect(ada.version).toBe(before + 1);
    const stored = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ada.id },
      query: 'fieldKeyType=id',
    });
    expect(ada.data).toMatchObject({ id: ada.id, fields: stored.body.fields, name: 'Ada L.' });
    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { fieldKeyType: 'id', records: [{ fields: { [idOf(t, 'Name')]: 'Linus' } }] },
    });
    expect(created.status).toBe(201);
    const field = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'checkbox', name: 'Done' },
    });
    expect(field.status).toBe(201);
    await poller.caughtUp();
    await until(() => records.query.results.length === 3, 'the inserted record');
    await until(() => fields.query.results.some((d) => d.id === field.body.id), 'the new field');
    expect(fieldsOf(records.query.results[2] as ShareDbDoc)[idOf(t, 'Name')]).toBe('Linus');
  });

  it('two clients: one session read serves both, and each hears the op; action triggers arrive on their channel', async () => {
    const t = await peopleTable();
    await poller.caughtUp();
    const a = await connect(t.owner.auth);
    const b = await connect(t.owner.auth);
    const qa = await subscribeQuery(a, `rec_${t.tableId}`, { viewId: t.viewId });
    const qb = await subscribeQuery(b, `rec_${t.tableId}`, { viewId: t.viewId });
    const triggers: unknown[] = [];
    const presence = b.getPresence(`__action_trigger_${t.tableId}`);
    presence.on('receive', (_id, value) => triggers.push(value));
    await new Promise<void>((resolve, reject) => presence.subscribe((e) => (e ? reject(e) : resolve())));
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.table.records[1].id },
      body: { fieldKeyType: 'id', record: { fields: { [idOf(t, 'Age')]: 46 } } },
    });
    await poller.caughtUp();
    for (const q of [qa, qb])
      await until(
        () => fieldsOf(q.query.results[1] as ShareDbDoc)[idOf(t, 'Age')] === 46,
        'the op at each client',
      );
    await until(() => triggers.some((v) => JSON.stringify(v).includes('setRecord')), 'the setRecord trigger');
  });

  it('300 rows of 12 long texts arrive whole, cut under 128 KB a message (API Gateway refuses more)', async () => {
    const fields = Array.from({ length: 12 }, (_, i) => ({ name: `Text ${i}`, type: 'longText' }));
    const t = await newTable({ fields, records: [] });
    const body = 'long text '.repeat(60);
    for (let i = 0; i < 3; i++) {
      const res = await call('create-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        body: {
          records: Array.from({ length: 100 }, () => ({
            fields: Object.fromEntries(fields.map((f) => [f.name, body])),
          })),
        },
      });
      expect(res.status).toBe(201);
    }
    const { connection } = await gateway.connect({ authorization: t.owner.auth });
    const { query, results } = await subscribeQuery(connection, `rec_${t.tableId}`, {
      viewId: t.viewId,
      take: 300,
    });
    // the first answer holds what fits; the rest arrive as the query's inserts
    expect(results.length).toBeLessThan(300);
    await until(() => query.results.length === 300, 'every row');
    const text0 = t.table.fields.find((f: { name: string }) => f.name === 'Text 0').id as string;
    expect(query.results.every((d) => fieldsOf(d)[text0] === body)).toBe(true);
    const posted = gateway.gateway().posted.get(connection.id as string) ?? [];
    expect(posted.length).toBeGreaterThan(3);
    expect(Math.max(...posted.map((p) => Buffer.byteLength(p)))).toBeLessThanOrEqual(128 * 1024);
    const rest = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `fieldKeyType=id&viewId=${t.viewId}&take=300`,
    });
    expect(query.results.map((d) => d.id)).toEqual(rest.body.records.map((r: { id: string }) => r.id));
  });

  it('messages sent at once (API Gateway runs them side by side) are all answered and all kept', async () => {
    const t = await peopleTable();
    const connection = await connect(t.owner.auth);
    const subscribed = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId, skip: i % 2, take: 1 }),
      ),
    );
    expect(subscribed.map((s) => s.results.length)).toEqual(Array(8).fill(1));
    await gateway.gateway().idle();
    expect((await stateOf(connection.id as string))?.queries).toHaveLength(8);
  });

  it('without a credential every read is unauthorized; another user’s table answers an error and no data; a submitted op is refused', async () => {
    const t = await peopleTable();
    const anonymous = await connect();
    await expect(fetchQuery(anonymous, `rec_${t.tableId}`, { viewId: t.viewId })).rejects.toMatchObject({
      code: 'unauthorized',
    });
    const other = await connect((await newUser()).auth);
    const doc = other.get(`rec_${t.tableId}`, t.table.records[0].id);
    await expect(docCall(doc, 'fetch')).rejects.toMatchObject({ code: expect.any(String) });
    expect(doc.data).toBeUndefined();
    const owner = await connect(t.owner.auth);
    const mine = owner.get(`rec_${t.tableId}`, t.table.records[0].id);
    await docCall(mine, 'subscribe');
    const refused = await new Promise<Error | undefined>((resolve) =>
      mine.submitOp([{ p: ['fields', idOf(t, 'Name')], od: 'Ada', oi: 'Hacked' }], (error) => resolve(error)),
    );
    expect(refused).toMatchObject({ code: 'forbidden' });
    const stored = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: mine.id },
    });
    expect(stored.body.fields.Name).toBe('Ada');
  });

  it('the session cookie connects from our own origin, a foreign Origin is refused, and signing out ends it at the next message', async () => {
    const email = `cloud-socket-${Date.now()}@example.test`;
    const up = await call('sign-up', { body: { email, password: 'socket-pass-1' } });
    const cookie = String(up.cookies?.find((c) => c.startsWith('auth_session='))).split(';')[0] as string;
    const host = new URL(gateway.url()).host;
    await expect(gateway.connect({ cookie, origin: 'https://evil.example' })).rejects.toMatchObject({
      status: 403,
    });
    const { connection } = await gateway.connect({ cookie, origin: `http://${host}` });
    const own = { cookie, host: 'api.example.test', origin: 'https://api.example.test' };
    const space = await call('create-space', { headers: own, body: { name: 'S' } });
    const base = await call('create-base', { headers: own, body: { spaceId: space.body.id } });
    expect((await fetchQuery(connection, `tbl_${base.body.id}`, {})).results).toEqual([]);
    expect((await call('sign-out', { headers: own })).status).toBeLessThan(300);
    await expect(fetchQuery(connection, `tbl_${base.body.id}`, {})).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });

  it('a frame over 64 KB closes that connection only; a connection API Gateway lost is removed at the next fan-out', async () => {
    const t = await peopleTable();
    await poller.caughtUp();
    const bystander = await connect(t.owner.auth);
    const big = new WebSocket(gateway.url(), { headers: { authorization: t.owner.auth } });
    await new Promise((resolve) => big.on('open', resolve));
    const closed = new Promise<number>((resolve) => big.on('close', (code) => resolve(code)));
    big.send(JSON.stringify({ a: 'hs', id: null, pad: 'x'.repeat(100 * 1024) }));
    expect(await closed).toBe(1000);
    const lost = await connect(t.owner.auth);
    await subscribeQuery(lost, `rec_${t.tableId}`, { viewId: t.viewId });
    const lostId = lost.id as string;
    // API Gateway no longer has it, and no $disconnect came
    gateway.gateway().sockets.delete(lostId);
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.table.records[0].id },
      body: { fieldKeyType: 'id', record: { fields: { [idOf(t, 'Age')]: 37 } } },
    });
    await poller.caughtUp();
    await gateway.gateway().idle();
    expect(await readSocketConnection(lostId)).toBeUndefined();
    expect((await fetchQuery(bystander, `viw_${t.tableId}`, {})).results).toHaveLength(1);
  });

  it("answers the web app's 10-second ping without reading the session (a ping costs no database call)", async () => {
    const t = await peopleTable();
    const raw = new WebSocket(gateway.url(), { headers: { authorization: t.owner.auth } });
    await new Promise((resolve) => raw.on('open', resolve));
    // the newest connection the staged API Gateway holds is this one
    const id = [...gateway.gateway().sockets.keys()].at(-1);
    await gateway.gateway().idle();
    expect(await readSocketConnection(id as string)).toBeDefined();
    // the session is gone from the table: a ping is still answered, a request is not
    await removeSocketConnection(id as string);
    const received: string[] = [];
    raw.on('message', (data) => received.push(String(data)));
    raw.send(JSON.stringify({ a: 'qf', id: 1, c: `viw_${t.tableId}`, q: {} }));
    raw.send(JSON.stringify({ a: 'pp' }));
    await until(() => received.length > 0, 'the pong');
    await gateway.gateway().idle();
    expect(received).toEqual([JSON.stringify({ a: 'pp' })]);
    raw.close();
  });
});
