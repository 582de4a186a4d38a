import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StreamPoller, startStreamPoller } from '#infra/local/stream-poller.ts';
import { injectChunkFault } from '#shared/db/commit.ts';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { type CallResult, call } from '#test/support/invoke.ts';
import { newMember, newWorkspace } from '#test/support/workspace.ts';

/**
 * Issue 28 on DynamoDB Local's real stream, the write kinds `change-capture.test.ts` leaves out:
 * a table trashed and restored, a table deleted for good from the trash, a lookup recomputed in
 * another table, a field converted, created and deleted, a view created, renamed and deleted, a
 * record duplicated, and a create large enough for the journaled write. The acting user is a
 * member other than the one who built the table, so an entry that kept an earlier writer's stamps
 * shows. (`record.deleted` entries' actor and txId are not checked here: they are being reworked.)
 */

const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
const tableName = process.env.TABLE_NAME as string;
let poller: StreamPoller;

beforeAll(async () => {
  poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST', idleMs: 50 });
  await poller.caughtUp(20_000);
});
afterAll(() => poller.stop());
afterEach(() => injectChunkFault(undefined));

/** The base's entries after `seq`, once everything written so far is captured. */
const logAfter = async (baseId: string, seq: number): Promise<ChangeEntry[]> => {
  await poller.caughtUp(20_000);
  return changesAfter(baseId, seq, 1000);
};

/** The last seq of the base's log, once everything written so far is captured. */
const headOf = async (baseId: string): Promise<number> => (await logAfter(baseId, 0)).at(-1)?.seq ?? 0;

const ok = (res: CallResult, what: string): CallResult => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};
const txOf = (res: CallResult): string => res.headers['x-request-id'] as string;

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
interface Table {
  id: string;
  fields: { id: string; name: string }[];
  views: { id: string }[];
  records: { id: string; fields: Record<string, unknown> }[];
}

const createTable = async (ws: Ws, body: Record<string, unknown>): Promise<Table> =>
  ok(
    await call('create-table', { token: ws.owner.auth, params: { baseId: ws.baseId }, body }),
    'create-table',
  ).body as Table;

const fieldId = (t: Table, name: string): string => t.fields.find((f) => f.name === name)?.id as string;

/** A workspace with a table built by its owner and a `creator` member who acts in the tests. */
const setUp = async (body: Record<string, unknown>) => {
  const ws = await newWorkspace();
  const table = await createTable(ws, body);
  const member = await newMember(ws, 'creator');
  return { ...ws, table, member, from: await headOf(ws.baseId) };
};

describe('capture of the trash', () => {
  it("a table moved to the trash and restored: table.deleted then table.created, each with the acting user and its request's txId", async () => {
    const w = await setUp({ name: 'Kept', records: [{ fields: { Name: 'r' } }] });
    const token = w.member.auth;

    const trashed = ok(
      await call('delete-table', { token, params: { baseId: w.baseId, tableId: w.table.id } }),
      'delete-table',
    );
    const items = ok(
      await call('list-trash-items', {
        token: w.owner.auth,
        query: `resourceType=base&resourceId=${w.baseId}`,
      }),
      'list-trash-items',
    );
    const restored = ok(
      await call('restore-trash-item', { token, params: { trashId: items.body.trashItems[0].id } }),
      'restore-trash-item',
    );
    const log = await logAfter(w.baseId, w.from);

    expect(log.map(({ type, tableId, actor, txId }) => ({ type, tableId, actor, txId }))).toEqual([
      { type: 'table.deleted', tableId: w.table.id, actor: { id: w.member.id }, txId: txOf(trashed) },
      { type: 'table.created', tableId: w.table.id, actor: { id: w.member.id }, txId: txOf(restored) },
    ]);
  });

  it('a table deleted for good from the trash: nothing fails, its table.deleted is the only entry (no record, field or view deletions follow)', async () => {
    const w = await setUp({
      name: 'Doomed',
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
      ],
      records: [{ fields: { Name: 'a', Count: 1 } }, { fields: { Name: 'b' } }],
    });
    const token = w.owner.auth;
    const before = poller.stats();
    ok(
      await call('delete-table', { token, params: { baseId: w.baseId, tableId: w.table.id } }),
      'delete-table',
    );
    const items = ok(
      await call('list-trash-items', { token, query: `resourceType=base&resourceId=${w.baseId}` }),
      'list-trash-items',
    );

    const purged = await call('delete-trash-item', {
      token,
      params: { trashId: items.body.trashItems[0].id },
    });
    await drainPurges();
    const log = await logAfter(w.baseId, w.from);

    expect(purged.status).toBe(200);
    expect(poller.stats()).toMatchObject({ errors: before.errors, setAside: before.setAside });
    // the trash's own entry, once (the purge of a table already in the trash is no second table.deleted)
    expect(log.filter((e) => e.type.startsWith('table.'))).toEqual([
      expect.objectContaining({ type: 'table.deleted', tableId: w.table.id, actor: { id: w.owner.id } }),
    ]);
    // the table's records, fields and views went with it: its table.deleted says so
    expect(log.filter((e) => !e.type.startsWith('table.'))).toEqual([]);
    const gone = await call('get-table', { token, params: { baseId: w.baseId, tableId: w.table.id } });
    expect(gone.status).toBe(404);
  });
});

describe('capture of computed changes', () => {
  it("a lookup in table B recomputed when a record of table A changes: B's entry is computed and shares A's request txId", async () => {
    const w = await setUp({
      name: 'Alpha',
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'old' } }],
    });
    const token = w.owner.auth;
    const beta = await createTable(w, {
      name: 'Beta',
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'b1' } }],
    });
    const link = ok(
      await call('create-field', {
        token,
        params: { tableId: beta.id },
        body: {
          type: 'link',
          name: 'Parts',
          options: { relationship: 'manyMany', foreignTableId: w.table.id },
        },
      }),
      'create-field',
    ).body;
    const lookup = ok(
      await call('create-field', {
        token,
        params: { tableId: beta.id },
        body: {
          type: 'singleLineText',
          isLookup: true,
          lookupOptions: {
            foreignTableId: w.table.id,
            linkFieldId: link.id,
            lookupFieldId: fieldId(w.table, 'Name'),
          },
        },
      }),
      'create-field',
    ).body;
    const a1 = w.table.records[0]?.id as string;
    const b1 = beta.records[0]?.id as string;
    ok(
      await call('update-record', {
        token,
        params: { tableId: beta.id, recordId: b1 },
        body: { record: { fields: { Parts: [{ id: a1 }] } } },
      }),
      'update-record',
    );
    const from = await headOf(w.baseId);

    const res = ok(
      await call('update-record', {
        token: w.member.auth,
        params: { tableId: w.table.id, recordId: a1 },
        body: { record: { fields: { Name: 'new' } } },
      }),
      'update-record',
    );
    const log = await logAfter(w.baseId, from);

    const name = fieldId(w.table, 'Name');
    // two records of two tables: the log holds both, in whichever order the stream gave them
    expect(log).toHaveLength(2);
    expect(log).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'record.updated',
          tableId: w.table.id,
          recordId: a1,
          actor: expect.objectContaining({ id: w.member.id }),
          txId: txOf(res),
          before: { [name]: 'old' },
          after: { [name]: 'new' },
        }),
        expect.objectContaining({
          type: 'record.updated',
          tableId: beta.id,
          recordId: b1,
          computed: true,
          // the request's user caused it, whoever edited B's record last
          actor: { id: w.member.id },
          txId: txOf(res),
          before: { [lookup.id]: ['old'] },
          after: { [lookup.id]: ['new'] },
        }),
      ]),
    );
    expect(log.find((e) => e.tableId === w.table.id)?.computed).toBeUndefined();
  });
});

describe('capture of schema changes', () => {
  it('a field converted: field.updated with the field before and after, by the converter in its request; the rewritten cells are computed entries of the same request', async () => {
    const w = await setUp({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
      ],
      records: [{ fields: { Name: 'a', Count: 1 } }, { fields: { Name: 'b', Count: 2.5 } }],
    });
    const count = fieldId(w.table, 'Count');

    const res = ok(
      await call('convert-field', {
        token: w.member.auth,
        params: { tableId: w.table.id, fieldId: count },
        body: { type: 'singleLineText' },
      }),
      'convert-field',
    );
    const log = await logAfter(w.baseId, w.from);

    // the field and its records are different items: their entries need not come in a set order
    expect(log).toHaveLength(3);
    expect(log.find((e) => e.type === 'field.updated')).toEqual(
      expect.objectContaining({
        type: 'field.updated',
        tableId: w.table.id,
        fieldId: count,
        actor: { id: w.member.id },
        txId: txOf(res),
        before: expect.objectContaining({
          id: count,
          name: 'Count',
          type: 'number',
          cellValueType: 'number',
        }),
        after: expect.objectContaining({
          id: count,
          name: 'Count',
          type: 'singleLineText',
          cellValueType: 'string',
        }),
      }),
    );
    const [r1, r2] = w.table.records.map((r) => r.id);
    expect(
      log
        .filter((e) => e.type !== 'field.updated')
        .map(({ type, recordId, computed, txId, before, after }) => ({
          type,
          recordId,
          computed,
          txId,
          before,
          after,
        }))
        .sort((p, q) => ((p.recordId ?? '') < (q.recordId ?? '') ? -1 : 1)),
    ).toEqual(
      [
        { recordId: r1, before: { [count]: 1 }, after: { [count]: '1.00' } },
        { recordId: r2, before: { [count]: 2.5 }, after: { [count]: '2.50' } },
      ]
        .map((e) => ({ type: 'record.updated', computed: true, txId: txOf(res), ...e }))
        .sort((p, q) => ((p.recordId ?? '') < (q.recordId ?? '') ? -1 : 1)),
    );
  });

  it('a field created then deleted: field.created with the field after, field.deleted with it before, each by its user in its request', async () => {
    const w = await setUp({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'a' } }],
    });
    const token = w.member.auth;

    const created = ok(
      await call('create-field', {
        token,
        params: { tableId: w.table.id },
        body: { type: 'number', name: 'Extra' },
      }),
      'create-field',
    );
    const fld = created.body.id as string;
    const deleted = ok(
      await call('delete-field', { token, params: { tableId: w.table.id, fieldId: fld } }),
      'delete-field',
    );
    const log = await logAfter(w.baseId, w.from);

    const shape = expect.objectContaining({ id: fld, name: 'Extra', type: 'number' });
    expect(log).toEqual([
      expect.objectContaining({
        type: 'field.created',
        tableId: w.table.id,
        fieldId: fld,
        actor: { id: w.member.id },
        txId: txOf(created),
        after: shape,
      }),
      expect.objectContaining({
        type: 'field.deleted',
        tableId: w.table.id,
        fieldId: fld,
        actor: { id: w.member.id },
        txId: txOf(deleted),
        before: shape,
      }),
    ]);
    expect(log[0]?.before).toBeUndefined();
    expect(log[1]?.after).toBeUndefined();
  });

  it('a view created, renamed and deleted: view.created, view.updated with before and after, view.deleted, each by its user in its request', async () => {
    const w = await setUp({ records: [] });
    const token = w.member.auth;
    const params = { tableId: w.table.id };

    const created = ok(
      await call('create-view', { token, params, body: { type: 'grid', name: 'First' } }),
      'create-view',
    );
    const viewId = created.body.id as string;
    const renamed = ok(
      await call('update-view-name', { token, params: { ...params, viewId }, body: { name: 'Second' } }),
      'update-view-name',
    );
    const deleted = ok(await call('delete-view', { token, params: { ...params, viewId } }), 'delete-view');
    const log = await logAfter(w.baseId, w.from);

    const named = (name: string) => expect.objectContaining({ id: viewId, name, type: 'grid' });
    const by = { tableId: w.table.id, viewId, actor: { id: w.member.id } };
    expect(log).toEqual([
      expect.objectContaining({ type: 'view.created', ...by, txId: txOf(created), after: named('First') }),
      expect.objectContaining({
        type: 'view.updated',
        ...by,
        txId: txOf(renamed),
        before: named('First'),
        after: named('Second'),
      }),
      expect.objectContaining({ type: 'view.deleted', ...by, txId: txOf(deleted), before: named('Second') }),
    ]);
  });
});

describe('capture of record writes', () => {
  it("a record duplicated: one record.created of the copy with the source's cells, by the user in its request", async () => {
    const w = await setUp({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
        { name: 'Done', type: 'checkbox' },
      ],
      records: [{ fields: { Name: 'src', Count: 3, Done: true } }],
    });
    const source = w.table.records[0]?.id as string;

    const res = ok(
      await call('duplicate-record', {
        token: w.member.auth,
        params: { tableId: w.table.id, recordId: source },
      }),
      'duplicate-record',
    );
    const log = await logAfter(w.baseId, w.from);

    const copy = res.body.records[0].id as string;
    expect(copy).not.toBe(source);
    expect(log).toEqual([
      expect.objectContaining({
        type: 'record.created',
        tableId: w.table.id,
        recordId: copy,
        actor: expect.objectContaining({ id: w.member.id }),
        txId: txOf(res),
        after: {
          [fieldId(w.table, 'Name')]: 'src',
          [fieldId(w.table, 'Count')]: 3,
          [fieldId(w.table, 'Done')]: true,
        },
      }),
    ]);
    expect(log[0]?.computed).toBeUndefined();
  });

  it('a create of 300 records in one request is a journaled write (more than one transaction), and its 300 record.created entries share its txId', async () => {
    const w = await setUp({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const units: number[] = [];
    // the journaled write's seam, called before each of its units (batches, transactions); it throws nothing here
    injectChunkFault((unit) => {
      units.push(unit);
    });

    const res = ok(
      await call('create-records', {
        token: w.member.auth,
        params: { tableId: w.table.id },
        body: { records: Array.from({ length: 300 }, (_, i) => ({ fields: { Name: `r${i}` } })) },
      }),
      'create-records',
    );
    injectChunkFault(undefined);
    const log = await logAfter(w.baseId, w.from);

    expect(units.length).toBeGreaterThan(1);
    const ids = (res.body.records as { id: string }[]).map((r) => r.id);
    expect(ids).toHaveLength(300);
    expect(log).toHaveLength(300);
    expect(new Set(log.map((e) => e.recordId))).toEqual(new Set(ids));
    expect(
      new Set(log.map((e) => JSON.stringify([e.type, e.tableId, e.actor.id, e.txId, e.computed ?? false]))),
    ).toEqual(new Set([JSON.stringify(['record.created', w.table.id, w.member.id, txOf(res), false])]));
  });
});
