import {
  configApi,
  createBase,
  createField,
  createRecords,
  createSpace,
  createTable,
  deleteRecord,
  getRecord,
  getViewList,
  redo,
  redoVoSchema,
  undo,
  undoVoSchema,
  updateField,
  updateRecord,
  updateViewColumnMeta,
  updateViewFilter,
  updateViewName,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { useTestServer } from '#test/support/server.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';

/**
 * Undo and redo for real (issue 47, contract web-app §4), through Teable's own client with its
 * undo enabled (`configApi({ enableUndoRedo: true })`: an `X-Window-Id` on every request, as its
 * web app sends): the caller's own last record writes in that window, undone and redone from the
 * change log as new writes, refused when someone else changed the same cells since.
 */

const api = useTestServer();
const stream = useStreamPoller();
let owner: Awaited<ReturnType<typeof newUser>>;

beforeAll(async () => {
  owner = await newUser({ name: 'Undo' });
  configApi({ token: owner.token, endpoint: api.base.replace(/\/api$/, ''), enableUndoRedo: true });
});

const table = async () => {
  const space = await createSpace({ name: 'Undo' });
  const base = await createBase({ spaceId: space.data.id });
  const created = await createTable(base.data.id, {
    fields: [
      { name: 'Name', type: 'singleLineText' as never },
      { name: 'Count', type: 'number' as never },
    ],
    records: [{ fields: { Name: 'a', Count: 1 } }, { fields: { Name: 'b', Count: 2 } }],
  });
  await stream.caughtUp();
  return {
    spaceId: space.data.id,
    baseId: base.data.id,
    tableId: created.data.id,
    recordIds: created.data.records.map((r) => r.id),
  };
};

const undone = async (tableId: string) => undoVoSchema.parse((await undo(tableId)).data);
const redone = async (tableId: string) => redoVoSchema.parse((await redo(tableId)).data);
const fieldsOf = async (tableId: string, recordId: string) =>
  (await getRecord(tableId, recordId)).data.fields;

describe('undo and redo (Teable client, X-Window-Id)', () => {
  it('undoes a cell edit as a new write, redoes it, and answers empty when there is nothing left', async () => {
    const t = await table();
    const id = t.recordIds[0] as string;
    await updateRecord(t.tableId, id, { record: { fields: { Name: 'edited', Count: 5 } } });
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await fieldsOf(t.tableId, id)).toEqual({ Name: 'a', Count: 1 });
    expect(await redone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await fieldsOf(t.tableId, id)).toEqual({ Name: 'edited', Count: 5 });
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await undone(t.tableId)).toEqual({ status: 'empty' });
    expect(await fieldsOf(t.tableId, id)).toEqual({ Name: 'a', Count: 1 });
    // the undo was a write like any other: the record's history has it, by the same user
    await stream.caughtUp();
    const history = await call('get-record-history', {
      token: owner.auth,
      params: { tableId: t.tableId, recordId: id },
    });
    expect(history.status).toBe(200);
    expect(history.body.historyList.length).toBeGreaterThanOrEqual(3);
  });

  it('undoes a create (the records go) and a delete (the record comes back, same id and cells); redo does them again', async () => {
    const t = await table();
    const created = await createRecords(t.tableId, { records: [{ fields: { Name: 'new', Count: 9 } }] });
    const newId = created.data.records[0]?.id as string;
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(
      (await call('get-record', { token: owner.auth, params: { tableId: t.tableId, recordId: newId } }))
        .status,
    ).toBe(404);
    expect(await redone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await fieldsOf(t.tableId, newId)).toEqual({ Name: 'new', Count: 9 });

    const gone = t.recordIds[1] as string;
    await deleteRecord(t.tableId, gone);
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await fieldsOf(t.tableId, gone)).toEqual({ Name: 'b', Count: 2 });
    expect(await redone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(
      (await call('get-record', { token: owner.auth, params: { tableId: t.tableId, recordId: gone } }))
        .status,
    ).toBe(404);
  });

  it('refuses, saying why, when someone else changed the same cells since, and writes nothing', async () => {
    const t = await table();
    const id = t.recordIds[0] as string;
    const other = await newUser({ name: 'Other' });
    const shared = await call('add-collaborators', {
      token: owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: other.id, principalType: 'user' }], role: 'editor' },
    });
    expect(shared.status).toBe(201);
    await updateRecord(t.tableId, id, { record: { fields: { Name: 'mine' } } });
    const theirs = await call('update-record', {
      token: other.auth,
      params: { tableId: t.tableId, recordId: id },
      body: { record: { fields: { Name: 'theirs' } } },
    });
    expect(theirs.status).toBe(200);
    await stream.caughtUp();
    expect(await undone(t.tableId)).toEqual({
      status: 'failed',
      errorMessage: expect.stringMatching(/changed since/),
    });
    expect((await fieldsOf(t.tableId, id)).Name).toBe('theirs');
  });

  it("keeps each window apart, answers empty without a window; undoes a field rename and creation, and says so where a field's undo is not built, never undoing the write before it", async () => {
    const t = await table();
    const id = t.recordIds[0] as string;
    // a write without X-Window-Id (the in-process caller sends none) is on no stack
    await call('update-record', {
      token: owner.auth,
      params: { tableId: t.tableId, recordId: id },
      body: { record: { fields: { Name: 'no window' } } },
    });
    expect(await undone(t.tableId)).toEqual({ status: 'empty' });
    const other = await call('undo', {
      token: owner.auth,
      params: { tableId: t.tableId },
      headers: { 'x-window-id': 'another-window' },
    });
    expect(other.body).toEqual({ status: 'empty' });
    await updateRecord(t.tableId, id, { record: { fields: { Name: 'with window' } } });
    const done = await createField(t.tableId, { name: 'Done', type: 'checkbox' as never });
    await updateField(t.tableId, done.data.id, { name: 'Finished' });
    const names = async () =>
      (
        (await call('list-fields', { token: owner.auth, params: { tableId: t.tableId } })).body as {
          name: string;
        }[]
      ).map((f) => f.name);
    // a rename is set back and redone
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await names()).toContain('Done');
    expect(await redone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await names()).toContain('Finished');
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    // a field created is deleted again; its redo (a new field under another id) is not built and says so
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await names()).not.toContain('Done');
    expect(await redone(t.tableId)).toEqual({
      status: 'failed',
      errorMessage: expect.stringMatching(/not built yet/),
    });
    // never undoing past what it could not: the cell edit is next
    expect((await fieldsOf(t.tableId, id)).Name).toBe('with window');
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect((await fieldsOf(t.tableId, id)).Name).toBe('no window');
    // a field's conversion goes on the stack but its undo is not built: it says so and writes nothing
    const count = (
      (await call('list-fields', { token: owner.auth, params: { tableId: t.tableId } })).body as {
        id: string;
        name: string;
      }[]
    ).find((f) => f.name === 'Count')?.id as string;
    const converted = await call('convert-field', {
      token: owner.auth,
      params: { tableId: t.tableId, fieldId: count },
      body: { type: 'singleLineText' },
      headers: { 'x-window-id': 'convert-window' },
    });
    expect(converted.status).toBe(200);
    await stream.caughtUp();
    const notBuilt = await call('undo', {
      token: owner.auth,
      params: { tableId: t.tableId },
      headers: { 'x-window-id': 'convert-window' },
    });
    expect(notBuilt.body).toEqual({ status: 'failed', errorMessage: expect.stringMatching(/not built yet/) });
  });

  it('undoes a link cell (both sides) and a cell a formula reads: computed cells follow', async () => {
    const t = await table();
    const field = (name: string) => async () =>
      (await call('list-fields', { token: owner.auth, params: { tableId: t.tableId } })).body.find(
        (f: { name: string }) => f.name === name,
      ).id as string;
    const count = await field('Count')();
    await createField(t.tableId, {
      name: 'Double',
      type: 'formula' as never,
      options: { expression: `{${count}} * 2` },
    });
    const other = await createTable(t.baseId, {
      fields: [{ name: 'Title', type: 'singleLineText' as never }],
      records: [{ fields: { Title: 'x' } }, { fields: { Title: 'y' } }],
    });
    const [x, y] = other.data.records.map((r) => r.id) as [string, string];
    await createField(t.tableId, {
      name: 'Ref',
      type: 'link' as never,
      options: { relationship: 'manyOne', foreignTableId: other.data.id } as never,
    });
    const id = t.recordIds[0] as string;
    await updateRecord(t.tableId, id, { record: { fields: { Ref: { id: x } } } });
    await updateRecord(t.tableId, id, { record: { fields: { Ref: { id: y }, Count: 7 } } });
    expect(await fieldsOf(t.tableId, id)).toMatchObject({ Count: 7, Double: 14, Ref: { id: y } });
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(await fieldsOf(t.tableId, id)).toMatchObject({ Count: 1, Double: 2, Ref: { id: x, title: 'x' } });
    // the other side follows: x links back, y no more
    const back = async (rid: string) =>
      Object.values((await getRecord(other.data.id, rid)).data.fields).filter((v) => Array.isArray(v));
    expect(await back(x)).toEqual([[expect.objectContaining({ id })]]);
    expect(await back(y)).toEqual([]);
  });

  it('two undos sent at once (the web app sends two for one Ctrl+Z on a selected cell) undo one step', async () => {
    const t = await table();
    const id = t.recordIds[0] as string;
    await updateRecord(t.tableId, id, { record: { fields: { Name: 'first' } } });
    await updateRecord(t.tableId, id, { record: { fields: { Name: 'second' } } });
    const answers = await Promise.all([undone(t.tableId), undone(t.tableId)]);
    expect(answers.map((a) => a.status).sort()).toEqual(['empty', 'fulfilled']);
    expect((await fieldsOf(t.tableId, id)).Name).toBe('first');
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect((await fieldsOf(t.tableId, id)).Name).toBe('a');
  });

  it("undoes and redoes a view's filter, a hidden column and its name; refuses when the view changed since", async () => {
    const t = await table();
    const view = async () =>
      (await getViewList(t.tableId)).data[0] as unknown as Record<string, unknown> & { id: string };
    const { id: viewId } = await view();
    const fields = (await call('list-fields', { token: owner.auth, params: { tableId: t.tableId } }))
      .body as {
      id: string;
      name: string;
    }[];
    const count = fields.find((f) => f.name === 'Count')?.id as string;
    const filter = { conjunction: 'and', filterSet: [{ fieldId: count, operator: 'isGreater', value: 1 }] };
    await updateViewFilter(t.tableId, viewId, { filter } as never);
    expect((await view()).filter).toMatchObject(filter);
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect((await view()).filter ?? null).toBeNull();
    expect(await redone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect((await view()).filter).toMatchObject(filter);

    await updateViewColumnMeta(t.tableId, viewId, [
      { fieldId: count, columnMeta: { hidden: true } },
    ] as never);
    expect((await view()).columnMeta).toMatchObject({ [count]: { hidden: true } });
    expect(await undone(t.tableId)).toEqual({ status: 'fulfilled' });
    expect(((await view()).columnMeta as Record<string, { hidden?: boolean }>)[count]?.hidden ?? false).toBe(
      false,
    );

    await updateViewName(t.tableId, viewId, { name: 'Renamed' });
    // someone else renames it again before the undo
    const other = await call('update-view-name', {
      token: owner.auth,
      params: { tableId: t.tableId, viewId },
      body: { name: 'By another window' },
    });
    expect(other.status).toBeLessThan(300);
    await stream.caughtUp();
    expect(await undone(t.tableId)).toEqual({
      status: 'failed',
      errorMessage: expect.stringMatching(/changed since/),
    });
    expect((await view()).name).toBe('By another window');
  });

  it('a stranger may not undo on a table they cannot write (403)', async () => {
    const t = await table();
    const stranger = await newUser();
    const refused = await call('undo', {
      token: stranger.auth,
      params: { tableId: t.tableId },
      headers: { 'x-window-id': 'w1' },
    });
    expect(refused.status).toBe(403);
  });
});
