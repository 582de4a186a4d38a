import { describe, expect, it } from 'vitest';
import { transact } from '#shared/db/client.ts';
import { guardedUndo } from '#shared/db/commit.ts';
import { getRecords, putRecordOp, updateCellsOp } from '#shared/entities/records.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { type ShareDbDoc, subscribeQuery, until, useSocketServer } from '#test/support/sharedb-client.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * The realtime socket as Teable's web app uses it (issue 46): schema changes re-answer queries,
 * propagation arrives as ops, the web app's own optimistic edit, two clients, the session cookie
 * and its origin, and rights that change while connected. ShareDB 4.1's client over `ws`.
 */

const poller = useStreamPoller();
const sockets = useSocketServer({ reauthMs: 0 });
const connect = sockets.connect;

const fieldsOf = (doc: ShareDbDoc) => (doc.data as { fields: Record<string, unknown> }).fields;
const idOf = (t: { table: { fields: { id: string; name: string }[] } }, name: string) =>
  t.table.fields.find((f) => f.name === name)?.id as string;

const table = () =>
  newTable({
    name: 'Tasks',
    fields: [
      { name: 'Name', type: 'singleLineText' },
      { name: 'Done', type: 'checkbox' },
    ],
    records: [
      { fields: { Name: 'one' } },
      { fields: { Name: 'two', Done: true } },
      { fields: { Name: 'three' } },
    ],
  });

describe('the realtime socket follows every kind of change', () => {
  it('a view filter change re-answers the query; fields created, renamed and deleted; a view renamed; a table created', async () => {
    const t = await table();
    await poller.caughtUp();
    const { connection } = await connect({ authorization: t.owner.auth });
    const records = await subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId, type: 'rec' });
    const fields = await subscribeQuery(connection, `fld_${t.tableId}`, { viewId: t.viewId });
    const views = await subscribeQuery(connection, `viw_${t.tableId}`, {});
    const tables = await subscribeQuery(connection, `tbl_${t.baseId}`, {});
    const triggers: unknown[] = [];
    const presence = connection.getPresence(`__action_trigger_${t.viewId}`);
    presence.on('receive', (_id, value) => triggers.push(value));
    await new Promise<void>((resolve, reject) => presence.subscribe((e) => (e ? reject(e) : resolve())));

    const filtered = await call('update-view-filter', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: {
        filter: {
          conjunction: 'and',
          filterSet: [{ fieldId: idOf(t, 'Done'), operator: 'is', value: true }],
        },
      },
    });
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    await until(() => records.query.results.length === 1, 'the filtered answer');
    expect(fieldsOf(records.query.results[0] as ShareDbDoc)[idOf(t, 'Name')]).toBe('two');
    const view = views.query.results[0] as ShareDbDoc;
    await until(() => (view.data as { filter: unknown }).filter !== null, 'the view op');
    await until(() => triggers.some((v) => JSON.stringify(v).includes('applyViewFilter')), 'the trigger');

    const created = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { name: 'Notes', type: 'longText' },
    });
    expect(created.status).toBe(201);
    await until(() => fields.query.results.some((d) => d.id === created.body.id), 'the new field');
    const notes = fields.query.results.find((d) => d.id === created.body.id) as ShareDbDoc;
    const renamed = await call('update-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: notes.id },
      body: { name: 'Remarks' },
    });
    expect(renamed.status).toBe(200);
    await until(() => (notes.data as { name: string }).name === 'Remarks', 'the rename');
    const deleted = await call('delete-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: notes.id },
    });
    expect(deleted.status).toBe(200);
    await until(() => !fields.query.results.some((d) => d.id === notes.id), 'the field gone');

    const viewRenamed = await call('update-view-name', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { name: 'Everything done' },
    });
    expect(viewRenamed.status).toBe(200);
    await until(() => (view.data as { name: string }).name === 'Everything done', 'the view rename');

    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Second' },
    });
    expect(other.status).toBe(201);
    await until(() => tables.query.results.length === 2, 'the new table');
    // every doc's version is where the server's is: a fresh fetch agrees
    const again = await subscribeQuery(connection, `viw_${t.tableId}`, {});
    expect(again.results[0]?.version).toBe(view.version);
  });

  it("a lookup's cell changed by a write in another table arrives as an op", async () => {
    const t = await table();
    const projects = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: {
        name: 'Projects',
        fields: [
          { name: 'Title', type: 'singleLineText' },
          { name: 'Tasks', type: 'link', options: { relationship: 'manyMany', foreignTableId: t.tableId } },
        ],
        records: [{ fields: { Title: 'P' } }],
      },
    });
    expect(projects.status, JSON.stringify(projects.body)).toBe(201);
    const p = projects.body;
    const link = p.fields.find((f: { name: string }) => f.name === 'Tasks').id as string;
    const lookup = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: p.id },
      body: {
        type: 'singleLineText',
        isLookup: true,
        lookupOptions: { foreignTableId: t.tableId, linkFieldId: link, lookupFieldId: idOf(t, 'Name') },
      },
    });
    expect(lookup.status).toBe(201);
    const task = t.table.records[0].id as string;
    const linked = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: p.id, recordId: p.records[0].id },
      body: { fieldKeyType: 'id', record: { fields: { [link]: [{ id: task }] } } },
    });
    expect(linked.status).toBe(200);
    await poller.caughtUp();
    const { connection } = await connect({ authorization: t.owner.auth });
    const { results } = await subscribeQuery(connection, `rec_${p.id}`, { viewId: p.views[0].id });
    const project = results[0] as ShareDbDoc;
    expect(fieldsOf(project)[lookup.body.id]).toEqual(['one']);
    const before = project.version as number;
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: task },
      body: { fieldKeyType: 'id', record: { fields: { [idOf(t, 'Name')]: 'one, renamed' } } },
    });
    await until(
      () => JSON.stringify(fieldsOf(project)[lookup.body.id]) === '["one, renamed"]',
      'the lookup op',
    );
    expect(project.version).toBe(before + 1);
  });

  it("the web app's own edit: an op applied locally with the version bumped, then PATCHed, is not applied twice and causes no refetch; a later remote edit applies", async () => {
    const t = await table();
    await poller.caughtUp();
    const { connection, socket } = await connect({ authorization: t.owner.auth });
    const sent: { a?: string }[] = [];
    const send = socket.send.bind(socket);
    socket.send = ((data: string, ...rest: unknown[]) => {
      sent.push(JSON.parse(String(data)));
      return (send as (...a: unknown[]) => void)(data, ...rest);
    }) as typeof socket.send;
    const { results } = await subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId });
    const doc = results[0] as ShareDbDoc;
    const name = idOf(t, 'Name');
    // what Teable's record model does before its PATCH: the value in place, the version moved on
    fieldsOf(doc)[name] = 'edited here';
    doc.version = (doc.version as number) + 1;
    const held = doc.version;
    const patched = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: doc.id },
      body: { fieldKeyType: 'id', record: { fields: { [name]: 'edited here' } } },
    });
    expect(patched.status).toBe(200);
    await poller.caughtUp();
    // the server's op for that write comes at the version before: the client drops it
    await new Promise((r) => setTimeout(r, 300));
    expect(doc.version).toBe(held);
    expect(fieldsOf(doc)[name]).toBe('edited here');
    expect(sent.filter((m) => m.a === 'f')).toEqual([]);
    // someone else's edit afterwards arrives and applies
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: doc.id },
      body: { fieldKeyType: 'id', record: { fields: { [name]: 'edited elsewhere' } } },
    });
    await until(() => fieldsOf(doc)[name] === 'edited elsewhere', 'the remote edit');
    expect(doc.version).toBe(held + 1);
    expect(sent.filter((m) => m.a === 'f')).toEqual([]);
  });

  it("a crash repair's undo reaches the client as the next version: its cells back, never a version that goes back", async () => {
    const t = await table();
    await poller.caughtUp();
    const { connection } = await connect({ authorization: t.owner.auth });
    const { results } = await subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId });
    const doc = results[0] as ShareDbDoc;
    const name = idOf(t, 'Name');
    const original = (await getRecords(t.tableId, [doc.id])).get(doc.id);
    if (!original) throw new Error('no record');
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: doc.id },
      body: { fieldKeyType: 'id', record: { fields: { [name]: 'half-written' } } },
    });
    await until(() => fieldsOf(doc)[name] === 'half-written', 'the write');
    expect(doc.version).toBe(original.version + 1);
    // what the repair worker does with a journaled write's unit: its guarded undo
    const step = {
      op: updateCellsOp(t.tableId, original, { cells: new Map(), by: original.mb, at: '' }, false),
      undo: putRecordOp(original),
    };
    await transact([guardedUndo(step) as NonNullable<ReturnType<typeof guardedUndo>>], () => {
      throw new Error('the record moved on');
    });
    await until(() => fieldsOf(doc)[name] === 'one', 'the undo');
    expect(doc.version).toBe(original.version + 2);
  });

  it('two clients: one edits over REST, the other sees the op; 300 rows of 12 long texts arrive whole', async () => {
    const fields = Array.from({ length: 12 }, (_, i) => ({ name: `Text ${i}`, type: 'longText' }));
    const long = (r: number, c: number) => `row ${r} column ${c} `.repeat(20);
    const t = await newTable({
      fields,
      records: Array.from({ length: 300 }, (_, r) => ({
        fields: Object.fromEntries(fields.map((f, c) => [f.name, long(r, c)])),
      })),
    });
    await poller.caughtUp();
    const a = await connect({ authorization: t.owner.auth });
    const b = await connect({ authorization: t.owner.auth });
    const first = await subscribeQuery(a.connection, `rec_${t.tableId}`, {
      viewId: t.viewId,
      skip: 0,
      take: 300,
    });
    const second = await subscribeQuery(b.connection, `rec_${t.tableId}`, {
      viewId: t.viewId,
      skip: 0,
      take: 300,
    });
    expect(first.results).toHaveLength(300);
    const text0 = idOf(t, 'Text 0');
    expect(first.results.every((d, r) => fieldsOf(d)[text0] === long(r, 0))).toBe(true);
    expect(Object.keys(fieldsOf(second.results[299] as ShareDbDoc))).toHaveLength(12);
    const target = second.results[150] as ShareDbDoc;
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: target.id },
      body: { fieldKeyType: 'id', record: { fields: { [text0]: 'changed by a' } } },
    });
    await until(() => fieldsOf(target)[text0] === 'changed by a', 'the op at the other client');
    expect(fieldsOf(first.results[150] as ShareDbDoc)[text0]).toBe('changed by a');
  });

  it('the session cookie authenticates from our own origin; a foreign Origin is refused the upgrade', async () => {
    const email = `socket-${Date.now()}@example.test`;
    const up = await call('sign-up', { body: { email, password: 'socket-pass-1' } });
    expect(up.status).toBe(201);
    const cookie = String(up.cookies?.find((c) => c.startsWith('auth_session='))).split(';')[0] as string;
    const host = new URL(sockets.url()).host;
    await expect(connect({ cookie, origin: 'https://evil.example' })).rejects.toMatchObject({ status: 403 });
    const { connection } = await connect({ cookie, origin: `http://${host}` });
    // the same cookie carries the REST writes (in process, from the API's own host)
    const own = { cookie, host: 'api.example.test', origin: 'https://api.example.test' };
    const spaces = await call('create-space', { headers: own, body: { name: 'S' } });
    expect(spaces.status, JSON.stringify(spaces.body)).toBe(201);
    const base = await call('create-base', { headers: own, body: { spaceId: spaces.body.id } });
    const { results } = await subscribeQuery(connection, `tbl_${base.body.id}`, {});
    expect(results).toEqual([]);
  });

  it('a user removed from the space stops receiving: the query answers an error and no more data', async () => {
    const t = await table();
    const member = await newUser();
    const added = await call('add-collaborators', {
      token: t.owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: member.id, principalType: 'user' }], role: 'editor' },
    });
    expect(added.status).toBe(201);
    await poller.caughtUp();
    const { connection } = await connect({ authorization: member.auth });
    const sub = await subscribeQuery(connection, `rec_${t.tableId}`, { viewId: t.viewId });
    const errors: unknown[] = [];
    sub.query.on('error', (e) => errors.push(e));
    const removed = await call('remove-collaborator', {
      token: t.owner.auth,
      params: { spaceId: t.spaceId },
      query: `principalId=${member.id}&principalType=user`,
    });
    expect(removed.status).toBe(200);
    const doc = sub.results[0] as ShareDbDoc;
    await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: doc.id },
      body: { fieldKeyType: 'id', record: { fields: { [idOf(t, 'Name')]: 'secret' } } },
    });
    await until(() => errors.length > 0, 'the refusal');
    expect(errors[0]).toMatchObject({ code: expect.stringMatching(/restricted_resource|not_found/) });
    await new Promise((r) => setTimeout(r, 200));
    expect(fieldsOf(doc)[idOf(t, 'Name')]).toBe('one');
  });
});
