import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import {
  docCall,
  fetchQuery,
  type ShareDbDoc,
  subscribeQuery,
  until,
  useSocketServer,
} from '#test/support/sharedb-client.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * The realtime socket at `/socket` (issue 46, contract web-app §2) with ShareDB 4.1's own client
 * over `ws`, against the real local server fed by the stream poller on DynamoDB Local's stream.
 */

const poller = useStreamPoller();
// rights and the credential are checked again at every change
const sockets = useSocketServer({ reauthMs: 0, handshakeMs: 1_000, maxQueries: 5 });

const connect = async (auth?: string) =>
  (await sockets.connect(auth ? { authorization: auth } : {})).connection;

const fieldsOf = (doc: ShareDbDoc) => (doc.data as { fields: Record<string, unknown> }).fields;

const peopleTable = () =>
  newTable({
    name: 'People',
    fields: [
      { name: 'Name', type: 'singleLineText' },
      { name: 'Age', type: 'number' },
      { name: 'Notes', type: 'longText' },
    ],
    records: [
      { fields: { Name: 'Ada', Age: 36 } },
      { fields: { Name: 'Grace', Age: 45 } },
      { fields: { Name: 'Linus', Age: 28 } },
    ],
  });

const restList = async (token: string, tableId: string, query: string) => {
  const res = await call('list-records', { token, params: { tableId }, query: `fieldKeyType=id&${query}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { records: { id: string; fields: Record<string, unknown> }[]; extra?: unknown };
};

describe('the realtime socket (ShareDB)', () => {
  it('shakes hands, and a rec_ query equals the REST listing (plain, filtered, sorted, grouped, searched)', async () => {
    const t = await peopleTable();
    const connection = await connect(t.owner.auth);
    expect(connection.state).toBe('connected');
    expect(typeof connection.id).toBe('string');
    const age = t.table.fields.find((f: { name: string }) => f.name === 'Age').id as string;
    const name = t.table.fields.find((f: { name: string }) => f.name === 'Name').id as string;
    const cases: [Record<string, unknown>, string][] = [
      [{ viewId: t.viewId }, `viewId=${t.viewId}`],
      [
        {
          viewId: t.viewId,
          filter: { conjunction: 'and', filterSet: [{ fieldId: age, operator: 'isGreater', value: 30 }] },
        },
        `viewId=${t.viewId}&filter=${encodeURIComponent(JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: age, operator: 'isGreater', value: 30 }] }))}`,
      ],
      [
        { viewId: t.viewId, orderBy: [{ fieldId: age, order: 'desc' }] },
        `viewId=${t.viewId}&orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: age, order: 'desc' }]))}`,
      ],
      [
        { viewId: t.viewId, groupBy: [{ fieldId: name, order: 'asc' }] },
        `viewId=${t.viewId}&groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: name, order: 'asc' }]))}`,
      ],
      [{ viewId: t.viewId, search: ['a', name] }, `viewId=${t.viewId}&search[]=a&search[]=${name}`],
      [{ viewId: t.viewId, skip: 1, take: 1 }, `viewId=${t.viewId}&skip=1&take=1`],
    ];
    for (const [query, rest] of cases) {
      const { results, extra } = await fetchQuery(connection, `rec_${t.tableId}`, { ...query, type: 'rec' });
      const listed = await restList(t.owner.auth, t.tableId, rest);
      expect(
        results.map((d) => d.id),
        rest,
      ).toEqual(listed.records.map((r) => r.id));
      expect(results.map((d) => fieldsOf(d))).toEqual(listed.records.map((r) => r.fields));
      expect(results.every((d) => d.version === 1)).toBe(true);
      const groupPoints = (listed.extra as { groupPoints?: unknown } | undefined)?.groupPoints ?? [];
      expect((extra as { groupPoints: unknown }).groupPoints).toEqual(groupPoints);
    }
  });

  it('fld_, viw_ and tbl_ queries answer the field, view and table listings', async () => {
    const t = await peopleTable();
    const connection = await connect(t.owner.auth);
    const fields = await fetchQuery(connection, `fld_${t.tableId}`, { viewId: t.viewId });
    const restFields = await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(fields.results.map((d) => d.data)).toEqual(restFields.body);
    const views = await fetchQuery(connection, `viw_${t.tableId}`, {});
    expect(views.results.map((d) => d.id)).toEqual([t.viewId]);
    const tables = await fetchQuery(connection, `tbl_${t.baseId}`, {});
    expect(tables.results.map((d) => d.id)).toEqual([t.tableId]);
    expect(tables.results[0]?.data).toMatchObject({
      name: 'People',
      defaultViewId: t.viewId,
      permission: { 'table|read': true, 'table|delete': true },
    });
  });

  it('REST create, update and delete reach a subscribed query as insert, op (version + 1) and remove', async () => {
    const t = await peopleTable();
    const name = t.table.fields.find((f: { name: string }) => f.name === 'Name').id as string;
    await poller.caughtUp();
    const connection = await connect(t.owner.auth);
    const { query, results } = await subscribeQuery(connection, `rec_${t.tableId}`, {
      viewId: t.viewId,
      type: 'rec',
    });
    expect(results).toHaveLength(3);
    const ada = results[0] as ShareDbDoc;
    const ops: unknown[] = [];
    ada.on('op', (op) => ops.push(op));

    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { fieldKeyType: 'id', records: [{ fields: { [name]: 'Margaret' } }] },
    });
    expect(created.status).toBe(201);
    await until(() => query.results.length === 4, 'the insert');
    expect(fieldsOf(query.results[3] as ShareDbDoc)).toEqual({ [name]: 'Margaret' });

    const updated = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ada.id },
      body: { fieldKeyType: 'id', record: { fields: { [name]: 'Ada L.' } } },
    });
    expect(updated.status).toBe(200);
    await until(() => fieldsOf(ada)[name] === 'Ada L.', 'the op');
    expect(ada.version).toBe(2);
    // one op (version + 1): the cell, and what follows from it (the record's name, its time)
    expect(ops.flat()).toEqual(
      expect.arrayContaining([
        { p: ['fields', name], od: 'Ada', oi: 'Ada L.' },
        { p: ['name'], od: 'Ada', oi: 'Ada L.' },
        { p: ['lastModifiedTime'], od: expect.any(String), oi: expect.any(String) },
      ]),
    );
    expect(ops.flat()).toHaveLength(3);

    const deleted = await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ada.id },
    });
    expect(deleted.status).toBe(200);
    await until(() => query.results.length === 3, 'the removal');
    expect(query.results.map((d) => d.id)).not.toContain(ada.id);
    await until(() => ada.type === null, 'the delete op');
  });

  it('answers every read `unauthorized` without a credential, and a table the user may not read with an error and no data', async () => {
    const t = await peopleTable();
    const anonymous = await connect();
    await expect(fetchQuery(anonymous, `rec_${t.tableId}`, { viewId: t.viewId })).rejects.toMatchObject({
      code: 'unauthorized',
    });
    const stranger = await newUser();
    const other = await connect(stranger.auth);
    await expect(fetchQuery(other, `rec_${t.tableId}`, { viewId: t.viewId })).rejects.toMatchObject({
      code: expect.stringMatching(/restricted_resource|not_found/),
    });
    const doc = other.get(`rec_${t.tableId}`, t.table.records[0].id);
    await expect(docCall(doc, 'fetch')).rejects.toMatchObject({ code: expect.any(String) });
    expect(doc.data).toBeUndefined();
  });

  it('refuses a submitted op and stores nothing; a bad collection and too many queries are errors, not a crash', async () => {
    const t = await peopleTable();
    const connection = await connect(t.owner.auth);
    const doc = connection.get(`rec_${t.tableId}`, t.table.records[0].id);
    await docCall(doc, 'subscribe');
    const name = t.table.fields.find((f: { name: string }) => f.name === 'Name').id as string;
    const refused = await new Promise<Error | undefined>((resolve) =>
      doc.submitOp([{ p: ['fields', name], od: 'Ada', oi: 'Hacked' }], (error) => resolve(error)),
    );
    expect(refused).toMatchObject({ code: 'forbidden' });
    const stored = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: doc.id },
    });
    expect(stored.body.fields.Name).toBe('Ada');
    await expect(fetchQuery(connection, 'rec_nothing', {})).rejects.toMatchObject({
      code: 'ERR_MESSAGE_BADLY_FORMED',
    });
    await expect(
      fetchQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId, take: 301 }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    for (let i = 0; i < 5; i++) await subscribeQuery(connection, `viw_${t.tableId}`, {});
    await expect(subscribeQuery(connection, `viw_${t.tableId}`, {})).rejects.toMatchObject({
      code: 'too_many_queries',
    });
    // still answering
    expect((await fetchQuery(connection, `tbl_${t.baseId}`, {})).results).toHaveLength(1);
  });

  it('answers a ping; a frame over 64 KB closes that socket only; a socket that never shakes hands is closed', async () => {
    const t = await peopleTable();
    const bystander = await connect(t.owner.auth);
    // a ping is answered as is
    const raw = new WebSocket(sockets.url(), { headers: { authorization: t.owner.auth } });
    await new Promise((resolve) => raw.on('open', resolve));
    const pong = new Promise<string>((resolve) => raw.once('message', (data) => resolve(String(data))));
    raw.send(JSON.stringify({ a: 'pp' }));
    expect(JSON.parse(await pong)).toEqual({ a: 'pp' });
    raw.close();
    const big = new WebSocket(sockets.url(), { headers: { authorization: t.owner.auth } });
    await new Promise((resolve) => big.on('open', resolve));
    const closed = new Promise<number>((resolve) => big.on('close', (code) => resolve(code)));
    big.send(JSON.stringify({ a: 'hs', id: null, pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect(await closed).toBe(1009);
    const silent = new WebSocket(sockets.url());
    const silentClosed = new Promise<number>((resolve) => silent.on('close', (code) => resolve(code)));
    expect(await silentClosed).toBe(1008);
    expect((await fetchQuery(bystander, `viw_${t.tableId}`, {})).results).toHaveLength(1);
  });
});
