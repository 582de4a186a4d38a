import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '#shared/core/errors.ts';
import { type Item, putItem, queryAll } from '#shared/db/client.ts';
import { injectChunkFault, JOURNAL_STALE_MS, recoverInterrupted } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { uniqueText } from '#shared/records/unique.ts';
import { call } from '#test/support/invoke.ts';
import { createRecords } from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

// All or nothing for writes larger than one transaction (shared/db/commit.ts): a fault injected
// before one unit of a 1000-record write must leave the table exactly as it was. "Exactly" is
// checked on the stored items: a Scan of every item whose partition key names the table or its
// view (records, default-order index, view order, unique claims, journal), compared whole before
// and after. The table item itself is left out: its autoNumber counter keeps the numbers a failed
// create reserved (ordering.md: numbers are never reused).

type Table = Awaited<ReturnType<typeof newTable>>;
interface Rec {
  id: string;
  autoNumber: number;
  fields: Record<string, unknown>;
}

afterEach(() => injectChunkFault(undefined));

const INTERNAL = { message: 'Internal server error', status: 500, code: 'internal_server_error' };

/**
 * Every stored item of the table's data partitions (records, default order, unique claims,
 * journals, remembered answers) and of its view's manual order, sorted by key: one query each,
 * so the cost follows the table, not the shared test table.
 */
const storedItems = async (t: Table): Promise<Item[]> => {
  const partitions = [
    keys.recordsOf(t.tableId),
    keys.recordNumbersOf(t.tableId),
    keys.uniqueValuesOf(t.tableId),
    keys.journalsOf(t.tableId),
    keys.idempotencyOfTable(t.tableId),
    keys.viewOrderOf(t.viewId),
  ];
  const items = (await Promise.all(partitions.map((p) => queryAll(p)))).flat();
  const keyOf = (i: Item) => `${String(i.pk)}\u0000${String(i.sk)}`;
  return items.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
};

/**
 * The items as a reader compares them after an undo: every attribute but the record's version,
 * which an undo moves on (it is a write of its own: a version never goes back); and the versions
 * themselves, each at least where it was.
 */
const undoneAs = (before: Item[], after: Item[]) => {
  const strip = (items: Item[]) => items.map(({ version: _, ...rest }) => rest);
  expect(strip(after)).toEqual(strip(before));
  const moved = after.filter((item, i) => Number(item.version ?? 0) < Number(before[i]?.version ?? 0));
  expect(moved).toEqual([]);
  return after.filter((item, i) => item.version !== before[i]?.version).length;
};

const partitionOf = (items: Item[], prefix: string) => items.filter((i) => String(i.pk).startsWith(prefix));

const thousand = (name: (i: number) => Record<string, unknown>) =>
  Array.from({ length: 1000 }, (_, i) => ({ fields: name(i) }));

/** A table with `Name`, a number `N` and a unique text `Code`, holding three records. */
const tableWithThree = () =>
  newTable({
    fields: [
      { name: 'Name', type: 'singleLineText' },
      { name: 'N', type: 'number' },
      { name: 'Code', type: 'singleLineText', unique: true },
    ],
    records: [
      { fields: { Name: 'a', N: 1, Code: 'A' } },
      { fields: { Name: 'b', N: 2, Code: 'B' } },
      { fields: { Name: 'c', N: 3 } },
    ],
  });

/** A fault before unit `at` of a large write; remembers which units were started. */
const faultAt = (at: number, error: unknown = new Error('injected')) => {
  const started: number[] = [];
  injectChunkFault((i) => {
    started.push(i);
    if (i === at) throw error;
  });
  return started;
};

describe('a 1000-record create interrupted in the middle', () => {
  it.each([
    ['a raw Error (500)', new Error('injected'), 500, INTERNAL],
    [
      'a ServiceUnavailableError (503)',
      new ServiceUnavailableError(),
      503,
      {
        message: 'The database is busy or unreachable; nothing was written, retry later',
        status: 503,
        code: 'service_unavailable',
      },
    ],
    ['a thrown non-Error value (500)', { crash: true }, 500, INTERNAL],
  ])('fails with %s and leaves no record, index entry or journal', async (_, error, status, body) => {
    const t = await newTable();
    const before = await storedItems(t);
    const order = await viewOrderIds(t.tableId, t.viewId);
    const started = faultAt(5, error);

    const res = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}`, Count: i })) });

    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
    if (status === 503) expect(res.headers['retry-after']).toBe('1');
    expect(started).toContain(5);
    expect(await storedItems(t)).toEqual(before);
    expect(partitionOf(before, 'RECORDS#')).toHaveLength(3);
    expect(partitionOf(before, 'RECNUM#')).toHaveLength(3);
    expect(partitionOf(before, 'TXN#')).toEqual([]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(order);
  });

  it('fails before the first unit just the same', async () => {
    const t = await newTable();
    const before = await storedItems(t);
    faultAt(0);

    const res = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}` })) });

    expect(res.status).toBe(500);
    expect(await storedItems(t)).toEqual(before);
  });

  it('also takes back the unique claims of the batch (conditional writes, in transactions)', async () => {
    const t = await tableWithThree();
    const before = await storedItems(t);
    faultAt(5);

    const res = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}`, Code: `K${i}` })) });

    expect(res.status).toBe(500);
    expect(await storedItems(t)).toEqual(before);
    expect(partitionOf(before, 'UNIQ#')).toHaveLength(2);
  });

  it('leaves the table usable: the same create afterwards succeeds, with new autoNumbers', async () => {
    const t = await newTable();
    const before = await storedItems(t);
    faultAt(5);
    const records = thousand((i) => ({ Name: `n${i}` }));
    expect((await createRecords(t, { records })).status).toBe(500);
    injectChunkFault(undefined);

    const res = await createRecords(t, { records });

    expect(res.status).toBe(201);
    const out = res.body.records as Rec[];
    // The failed call reserved 4..1003; they are not reused.
    expect(out.map((r) => r.autoNumber)).toEqual(out.map((_, i) => 1004 + i));
    const after = await storedItems(t);
    expect(partitionOf(after, 'RECORDS#')).toHaveLength(1003);
    expect(partitionOf(after, 'RECNUM#')).toHaveLength(1003);
    expect(partitionOf(after, 'TXN#')).toEqual([]);
    const created = new Set(out.map((r) => r.id));
    expect(after.filter((i) => !created.has(String(i.sk)) && !created.has(String(i.recordId)))).toEqual(
      before,
    );
  });
});

describe('a 1000-record batch update interrupted in the middle', () => {
  it('fails and every record keeps exactly its previous item (values, times; the version moved on where undone)', async () => {
    const t = await newTable({ records: thousand((i) => ({ Name: `r${i}`, Count: i })) });
    const ids = (t.table.records as Rec[]).map((r) => r.id);
    const before = await storedItems(t);
    const started = faultAt(5);

    const res = await call('update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: ids.map((id, i) => ({ id, fields: { Name: `changed ${i}`, Count: null, Status: 'heavy' } })),
      },
    });

    expect(res.status).toBe(500);
    expect(res.body).toEqual(INTERNAL);
    expect(started).toContain(5);
    // the records of the units written before the fault were undone: at the version after theirs
    expect(undoneAs(before, await storedItems(t))).toBeGreaterThan(0);
    const sample = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ids[500] as string },
    });
    expect(sample.headers.etag).toMatch(/^"(1|3)"$/);
    expect(sample.body.fields).toEqual({ Name: 'r500', Count: 500 });
  });
});

describe('a 1000-record delete interrupted in the middle', () => {
  it('fails and every record is still there with its values and its place', async () => {
    const t = await newTable({ records: thousand((i) => ({ Name: `r${i}`, Count: i })) });
    const ids = (t.table.records as Rec[]).map((r) => r.id);
    // Give some records a place of their own in the view, so the delete also removes order entries.
    const moved = await call('update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: ids[999], fields: {} },
          { id: ids[998], fields: {} },
        ],
        order: { viewId: t.viewId, anchorId: ids[0], position: 'before' },
      },
    });
    expect(moved.status).toBe(200);
    const before = await storedItems(t);
    const order = await viewOrderIds(t.tableId, t.viewId);
    const started = faultAt(5);

    const res = await call('delete-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: ids.map((id) => `recordIds[]=${id}`).join('&'),
    });

    expect(res.status).toBe(500);
    expect(res.body).toEqual(INTERNAL);
    expect(started).toContain(5);
    expect(undoneAs(before, await storedItems(t))).toBeGreaterThan(0);
    expect(order.slice(0, 3)).toEqual([ids[999], ids[998], ids[0]]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(order);
    const sample = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ids[999] as string },
    });
    expect(sample.body.fields).toEqual({ Name: 'r999', Count: 999 });
  });
});

describe('a 1000-record write that breaks a unique constraint', () => {
  it('answers 400 naming the field when record 500 takes a value already held, and writes nothing', async () => {
    const t = await tableWithThree();
    const before = await storedItems(t);

    // `a` is record a's `A`: unique text compares ignoring case.
    const res = await createRecords(t, {
      records: thousand((i) => ({ Name: `n${i}`, Code: i === 500 ? 'a' : `K${i}` })),
    });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toMatch(/^Field "Code" \(fld\w+\) must be unique: the value is already used$/);
    expect(await storedItems(t)).toEqual(before);
  });

  it('answers 400 when two records of the batch repeat a value, and writes nothing', async () => {
    const t = await tableWithThree();
    const before = await storedItems(t);

    const res = await createRecords(t, {
      records: thousand((i) => ({ Name: `n${i}`, Code: i === 700 ? 'K300' : `K${i}` })),
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must be unique: a value repeats in this request$/);
    expect(await storedItems(t)).toEqual(before);
  });

  it('answers 400 for a batch update that gives record 500 a value held by another, and writes nothing', async () => {
    const t = await tableWithThree();
    const created = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}` })) });
    expect(created.status).toBe(201);
    const ids = (created.body.records as Rec[]).map((r) => r.id);
    const before = await storedItems(t);

    const res = await call('update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: ids.map((id, i) => ({ id, fields: { N: i, ...(i === 500 ? { Code: 'B' } : {}) } })) },
    });

    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must be unique: the value is already used$/);
    expect(await storedItems(t)).toEqual(before);
  });

  it('answers 409 when another writer takes a value while the batch applies, and undoes the rest', async () => {
    const t = await tableWithThree();
    const before = await storedItems(t);
    const codeField = (t.table.fields as { id: string; name: string }[]).find((f) => f.name === 'Code')?.id;
    const claim = {
      ...keys.uniqueValue(t.tableId, codeField as string, uniqueText('K999')),
      type: 'uniqueValue',
      recordId: newId('record'),
    };
    // The other writer's claim lands after the checks of the call and before its first unit is
    // sent: written synchronously by a separate process, so the timing is fixed.
    injectChunkFault((i) => {
      if (i === 0) writeItemInAnotherProcess(claim);
    });

    const res = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}`, Code: `K${i}` })) });

    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(await storedItems(t)).toEqual(
      [...before, claim].sort((a, b) => (`${a.pk}\u0000${a.sk}` < `${b.pk}\u0000${b.sk}` ? -1 : 1)),
    );
  });
});

describe('recoverInterrupted', () => {
  /**
   * Leaves the table as a large write that crashed after two chunks would, with a journal created
   * at `createdAt`: chunk 0 created a record (item and index entry) and changed the table's record
   * number `record` to `mid`; chunk 1 changed it again to `final`. Undoing in reverse order
   * brings the record back as it was.
   */
  const simulateCrash = async (t: Table, createdAt: number, record = 0) => {
    const a = t.table.records[record].id as string;
    const nameField = (t.table.fields as { id: string; name: string }[]).find((f) => f.name === 'Name')
      ?.id as string;
    const recordA = (await storedItems(t)).find((i) => i.sk === a) as Item;
    const txnId = newId('record').slice(3);
    const orphanId = newId('record');
    const number = 90 + Math.floor(Math.random() * 9);
    const orphan = { ...recordA, ...keys.record(t.tableId, orphanId), id: orphanId, autoNumber: number };
    const orphanNumber = {
      ...keys.recordNumber(t.tableId, number),
      type: 'recordNumber',
      recordId: orphanId,
    };
    const mid = { ...recordA, version: 2, [nameField]: 'mid' };
    const final = { ...recordA, version: 3, [nameField]: 'final' };
    const journal = (chunk: number, undo: unknown[]) => ({
      ...keys.journal(t.tableId, txnId, chunk),
      type: 'journal',
      txnId,
      chunk,
      createdAt,
      undo,
      expiresAt: Math.floor(createdAt / 1000) + 7 * 86_400,
    });
    const chunk0 = [
      { delete: keys.record(t.tableId, orphanId) },
      { delete: keys.recordNumber(t.tableId, number) },
      { put: recordA },
    ];
    for (const item of [orphan, orphanNumber, final, journal(0, chunk0), journal(1, [{ put: mid }])])
      await putItem(item);
    return { txnId, orphanId };
  };

  it('undoes a stale journal in reverse chunk order and removes it; a fresh one is left alone', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }] });
    const clean = await storedItems(t);
    const stale = await simulateCrash(t, Date.now() - JOURNAL_STALE_MS - 60_000);
    const running = await simulateCrash(t, Date.now(), 1);
    expect(partitionOf(await storedItems(t), 'TXN#')).toHaveLength(4);

    const undone = await recoverInterrupted(t.tableId);

    expect(undone).toBe(1);
    const after = await storedItems(t);
    // The stale write is undone and its journal removed; the running one is untouched.
    expect(partitionOf(after, 'TXN#').map((i) => [i.txnId, i.chunk])).toEqual([
      [running.txnId, 0],
      [running.txnId, 1],
    ]);
    expect(after.some((i) => i.sk === stale.orphanId)).toBe(false);
    expect(after.some((i) => i.sk === running.orphanId)).toBe(true);

    // Once the running one is stale too, it is undone: the table is back to where it started.
    expect(await recoverInterrupted(t.tableId, Date.now() + JOURNAL_STALE_MS + 60_000)).toBe(1);
    expect(await storedItems(t)).toEqual(clean);
    const read = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.table.records[0].id },
    });
    expect(read.headers.etag).toBe('"1"');
    expect(read.body.fields).toEqual({ Name: 'a' });
  });

  it('runs at the start of the next large write on the table', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }] });
    const clean = await storedItems(t);
    const { orphanId } = await simulateCrash(t, Date.now() - JOURNAL_STALE_MS - 60_000);

    const res = await createRecords(t, { records: thousand((i) => ({ Name: `n${i}` })) });

    expect(res.status).toBe(201);
    const after = await storedItems(t);
    expect(partitionOf(after, 'TXN#')).toEqual([]);
    expect(after.some((i) => i.sk === orphanId)).toBe(false);
    const created = new Set((res.body.records as Rec[]).map((r) => r.id));
    expect(after.filter((i) => !created.has(String(i.sk)) && !created.has(String(i.recordId)))).toEqual(
      clean,
    );
  });

  it('answers 0 and changes nothing when there is no journal', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'a' } }] });
    const clean = await storedItems(t);

    expect(await recoverInterrupted(t.tableId)).toBe(0);

    expect(await storedItems(t)).toEqual(clean);
  });
});

/** Writes one item through a child process, synchronously (blocks this process until it is stored). */
const writeItemInAnotherProcess = (item: Record<string, string>) => {
  const script = `
    const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient, PutCommand } = require('@aws-sdk/lib-dynamodb');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    client.send(new PutCommand({ TableName: process.env.TABLE_NAME, Item: JSON.parse(process.env.ITEM) }))
      .catch((e) => { console.error(e); process.exit(1); });`;
  execFileSync(process.execPath, ['-e', script], {
    cwd: new URL('../../', import.meta.url).pathname,
    env: { ...process.env, ITEM: JSON.stringify(item) },
    stdio: 'inherit',
  });
};
