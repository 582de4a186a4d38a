import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { putItem } from '#shared/db/client.ts';
import { injectChunkFault } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { randomBase62 } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import {
  createRecords,
  deleteRecord,
  duplicateRecord,
  getRecord,
  updateRecord,
  updateRecords,
} from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

// Every call below that runs "in parallel" is started before any of them is awaited
// (Promise.all), so DynamoDB Local sees the requests interleaved.

type Table = Awaited<ReturnType<typeof newTable>>;
interface Rec {
  id: string;
  autoNumber: number;
  fields: Record<string, unknown>;
}

const FIELD_NAMES = Array.from({ length: 10 }, (_, i) => `F${i}`);

/** A table with a primary `Name` and ten number fields F0..F9, and the given records. */
const wideTable = (records: { fields: Record<string, unknown> }[] = [{ fields: { Name: 'r' } }]) =>
  newTable({
    fields: [
      { name: 'Name', type: 'singleLineText' },
      ...FIELD_NAMES.map((name) => ({ name, type: 'number' })),
    ],
    records,
  });

/** Sets the cells `fields` of one record. */
const patchFields = (
  t: Table,
  recordId: string,
  fields: Record<string, unknown>,
  headers?: Record<string, string>,
) => updateRecord(t, recordId, { record: { fields } }, headers);

const key = (k: string) => ({ 'idempotency-key': k });

const precondition = (recordId: string, etag: string) => ({
  message: `Record ${recordId} changed since the ETag ${etag}`,
  status: 412,
  code: 'precondition_failed',
});

describe('concurrent edits of one record', () => {
  it('keeps all 10 values of 10 parallel PATCHes of 10 different fields', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;

    const results = await Promise.all(
      FIELD_NAMES.map((name, i) => patchFields(t, recordId, { [name]: i + 1 })),
    );

    expect(results.map((r) => r.status)).toEqual(FIELD_NAMES.map(() => 200));
    // Each answer holds its own write. Its ETag is the version of the record it shows (read after
    // the write, so other writes may be in it too): version N holds exactly N - 1 of the ten writes.
    expect(results.map((r, i) => r.body.fields[`F${i}`])).toEqual(FIELD_NAMES.map((_, i) => i + 1));
    for (const r of results) {
      const written = Object.keys(r.body.fields).filter((k) => k !== 'Name').length;
      expect(r.headers.etag).toBe(`"${written + 1}"`);
    }
    const after = await getRecord(t, recordId);
    expect(after.headers.etag).toBe('"11"');
    expect(after.body.fields).toEqual({
      Name: 'r',
      ...Object.fromEntries(FIELD_NAMES.map((name, i) => [name, i + 1])),
    });
  });

  // A batch PATCH of several records is one transaction: a transaction that keeps colliding may be
  // refused (409, retry); every write that was answered 200 must survive.
  it('keeps the values of 10 parallel batch PATCHes of different fields of the same two records', async () => {
    const t = await wideTable([{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }]);
    const [a, b] = (t.table.records as Rec[]).map((r) => r.id);

    const results = await Promise.all(
      FIELD_NAMES.map((name, i) =>
        updateRecords(t, {
          records: [
            { id: a, fields: { [name]: i } },
            { id: b, fields: { [name]: 100 + i } },
          ],
        }),
      ),
    );

    for (const r of results) expect([200, 409]).toContain(r.status);
    const won = FIELD_NAMES.filter((_, i) => results[i]?.status === 200);
    const [ra, rb] = await Promise.all([getRecord(t, a as string), getRecord(t, b as string)]);
    expect(ra.body.fields).toEqual({
      Name: 'a',
      ...Object.fromEntries(won.map((n) => [n, Number(n.slice(1))])),
    });
    expect(rb.body.fields).toEqual({
      Name: 'b',
      ...Object.fromEntries(won.map((n) => [n, 100 + Number(n.slice(1))])),
    });
    expect(ra.headers.etag).toBe(`"${won.length + 1}"`);
  });

  it('applies a PATCH with the current ETag in If-Match and answers the new ETag', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;
    const { etag } = (await getRecord(t, recordId)).headers;

    const res = await patchFields(t, recordId, { F0: 5 }, { 'if-match': etag as string });

    expect(etag).toBe('"1"');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.body.fields.F0).toBe(5);
  });

  it('answers 412 to a PATCH with an old ETag and writes nothing', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;
    const old = (await getRecord(t, recordId)).headers.etag as string;
    await patchFields(t, recordId, { F0: 1 });

    const res = await patchFields(t, recordId, { F0: 2, F1: 2 }, { 'if-match': old });

    expect(res.status).toBe(412);
    expect(res.body).toEqual(precondition(recordId, old));
    const after = await getRecord(t, recordId);
    expect(after.headers.etag).toBe('"2"');
    expect(after.body.fields).toEqual({ Name: 'r', F0: 1 });
  });

  it('lets exactly one of 8 parallel PATCHes with the same If-Match win; the others are 412', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;

    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => patchFields(t, recordId, { F0: i, F1: i }, { 'if-match': '"1"' })),
    );

    const won = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(7);
    for (const r of results.filter((r) => r.status === 412))
      expect(r.body).toEqual(precondition(recordId, '"1"'));
    const after = await getRecord(t, recordId);
    expect(after.headers.etag).toBe('"2"');
    expect(after.body.fields).toEqual({ Name: 'r', F0: won[0], F1: won[0] });
  });

  it('answers 412 to a DELETE with a stale If-Match and keeps the record', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;
    await patchFields(t, recordId, { F0: 1 });

    const res = await deleteRecord(t, recordId, { 'if-match': '"1"' });

    expect(res.status).toBe(412);
    expect(res.body).toEqual(precondition(recordId, '"1"'));
    const after = await getRecord(t, recordId);
    expect(after.status).toBe(200);
    expect(after.body.fields).toEqual({ Name: 'r', F0: 1 });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([recordId]);
  });

  it('deletes with the current If-Match', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;

    const res = await deleteRecord(t, recordId, { 'if-match': '"1"' });

    expect(res.status).toBe(200);
    expect(res.body.id).toBe(recordId);
    expect((await getRecord(t, recordId)).status).toBe(404);
  });

  // The loser is a 412, or a 404 when the DELETE won before the PATCH read the record (RFC 9110
  // 13.2.1: a request that would be a 404 without its precondition stays a 404).
  it('lets one of a PATCH and a DELETE racing with the same If-Match win, never both', async () => {
    const t = await wideTable();
    const recordId = t.table.records[0].id;

    const [patched, deleted] = await Promise.all([
      patchFields(t, recordId, { F0: 9 }, { 'if-match': '"1"' }),
      deleteRecord(t, recordId, { 'if-match': '"1"' }),
    ]);

    const after = await getRecord(t, recordId);
    if (patched.status === 200) {
      expect(deleted.status).toBe(412);
      expect(after.body.fields).toEqual({ Name: 'r', F0: 9 });
    } else {
      expect(deleted.status).toBe(200);
      expect([404, 412]).toContain(patched.status);
      expect(after.status).toBe(404);
      expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
    }
  });
});

describe('parallel creates', () => {
  it('give 20 calls × 5 records the autoNumbers 1..100, each call increasing', async () => {
    const t = await wideTable([]);

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, c) =>
        createRecords(t, {
          records: Array.from({ length: 5 }, (_, i) => ({ fields: { Name: `c${c}-${i}` } })),
        }),
      ),
    );

    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    const perCall = results.map((r) => (r.body.records as Rec[]).map((rec) => rec.autoNumber));
    for (const numbers of perCall) {
      expect(numbers).toHaveLength(5);
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBeGreaterThan(numbers[i - 1] as number);
    }
    expect(perCall.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The default order is autoNumber order, whatever the order the calls finished in.
    const byNumber = results
      .flatMap((r) => r.body.records as Rec[])
      .sort((a, b) => a.autoNumber - b.autoNumber)
      .map((r) => r.id);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(byNumber);
  });
});

describe('Idempotency-Key', () => {
  it('on create: a repeat with the same body answers the first answer and creates nothing', async () => {
    const t = await wideTable([]);
    const body = { records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b', F0: 1 } }] };

    const first = await createRecords(t, body, key('create-1'));
    const again = await createRecords(t, body, key('create-1'));

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(first.body.records.map((r: Rec) => r.id));
  });

  it('on create: the same key with a different body is a 409 and creates nothing', async () => {
    const t = await wideTable([]);
    const first = await createRecords(t, { records: [{ fields: { Name: 'a' } }] }, key('create-2'));

    const other = await createRecords(t, { records: [{ fields: { Name: 'b' } }] }, key('create-2'));

    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      message: 'The Idempotency-Key was used with a different body',
      status: 409,
      code: 'conflict',
    });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([first.body.records[0].id]);
  });

  it.each([
    ['65 characters', 'k'.repeat(65)],
    ['an empty key', ''],
    ['a space inside', 'a b'],
  ])('refuses a key of %s (400) and creates nothing', async (_, k) => {
    const t = await wideTable([]);

    const res = await createRecords(t, { records: [{ fields: { Name: 'a' } }] }, key(k));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Idempotency-Key must be 1..64 printable characters',
      status: 400,
      code: 'validation_error',
    });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it('accepts a key of exactly 64 characters', async () => {
    const t = await wideTable([]);
    const body = { records: [{ fields: { Name: 'a' } }] };

    const first = await createRecords(t, body, key('k'.repeat(64)));
    const again = await createRecords(t, body, key('k'.repeat(64)));

    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(await viewOrderIds(t.tableId, t.viewId)).toHaveLength(1);
  });

  it('on create: a repeat answers the first answer also when that answer is large (1000 records, ~1 MB)', async () => {
    const t = await wideTable([]);
    // Random text does not compress: the remembered answer is far larger than one item holds.
    const body = { records: Array.from({ length: 1000 }, () => ({ fields: { Name: randomBase62(1000) } })) };

    const first = await createRecords(t, body, key('large'));
    const again = await createRecords(t, body, key('large'));

    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(first.body.records.map((r: Rec) => r.id));
  });

  it('on batch update: a repeat answers the first answer without writing again; another body is a 409', async () => {
    const t = await wideTable([{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }]);
    const [a, b] = (t.table.records as Rec[]).map((r) => r.id);
    const body = {
      records: [
        { id: a, fields: { F0: 1 } },
        { id: b, fields: { F0: 2 } },
      ],
    };

    const first = await updateRecords(t, body, key('update-1'));
    const again = await updateRecords(t, body, key('update-1'));
    const other = await updateRecords(t, { records: [{ id: a, fields: { F0: 3 } }] }, key('update-1'));

    expect([first.status, again.status, other.status]).toEqual([200, 200, 409]);
    expect(again.body).toEqual(first.body);
    expect(other.body.code).toBe('conflict');
    // The repeat wrote nothing: each record is at version 2 (one write), F0 as first written.
    const [ra, rb] = await Promise.all([getRecord(t, a as string), getRecord(t, b as string)]);
    expect([ra.headers.etag, rb.headers.etag]).toEqual(['"2"', '"2"']);
    expect([ra.body.fields.F0, rb.body.fields.F0]).toEqual([1, 2]);
  });

  it('on duplicate: a repeat answers the same copy and makes no second one; another body is a 409', async () => {
    const t = await wideTable([{ fields: { Name: 'a', F0: 1 } }, { fields: { Name: 'b' } }]);
    const [a, b] = (t.table.records as Rec[]).map((r) => r.id);
    const body = { viewId: t.viewId, anchorId: a, position: 'after' };

    const first = await duplicateRecord(t, a as string, body, key('dup-1'));
    const again = await duplicateRecord(t, a as string, body, key('dup-1'));
    const other = await duplicateRecord(t, a as string, {}, key('dup-1'));

    expect([first.status, again.status, other.status]).toEqual([201, 201, 409]);
    expect(again.body).toEqual(first.body);
    expect(other.body.code).toBe('conflict');
    const copy = first.body.records[0];
    expect(copy.fields).toEqual({ Name: 'a', F0: 1 });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([a, copy.id, b]);
  });

  it('keeps keys apart per route: the same key on create and on duplicate are two requests', async () => {
    const t = await wideTable([{ fields: { Name: 'a' } }]);
    const a = t.table.records[0].id;

    const created = await createRecords(t, { records: [{ fields: { Name: 'n' } }] }, key('shared'));
    const copied = await duplicateRecord(t, a, {}, key('shared'));

    expect([created.status, copied.status]).toEqual([201, 201]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([
      a,
      created.body.records[0].id,
      copied.body.records[0].id,
    ]);
  });

  it('keeps keys apart per user: another user with the same key and body gets an answer of their own', async () => {
    const t = await wideTable([]);
    const editor = await newUser();
    const added = await call('add-collaborators', {
      token: t.owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: editor.id, principalType: 'user' }], role: 'editor' },
    });
    expect(added.status).toBe(201);
    const body = { records: [{ fields: { Name: 'same' } }] };

    const mine = await createRecords(t, body, key('per-user'));
    const theirs = await createRecords(t, body, key('per-user'), editor.auth);

    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.records[0].id).not.toBe(mine.body.records[0].id);
    expect(theirs.body.records[0].createdBy).toBe(editor.name);
    expect(await viewOrderIds(t.tableId, t.viewId)).toHaveLength(2);
  });

  it('releases the key when the first call fails, so a corrected retry with the same key runs', async () => {
    const t = await wideTable([]);

    const failed = await createRecords(t, { records: [{ fields: { Nope: 1 } }] }, key('retry'));
    const fixed = await createRecords(t, { records: [{ fields: { Name: 'ok' } }] }, key('retry'));

    expect(failed.status).toBe(404);
    expect(fixed.status).toBe(201);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([fixed.body.records[0].id]);
  });

  // A run that crashed (Lambda timeout) never releases its claim. Staged for real: the claim is read
  // while the call runs, the call fails (and releases it), and the claim is put back as the crashed
  // run would have left it, some minutes earlier.
  it.each([
    [20, 201],
    [1, 409],
  ])('a claim left by a run that crashed %i minutes ago answers a retry with %i', async (minutes, status) => {
    const t = await wideTable([]);
    const body = { records: Array.from({ length: 60 }, (_, i) => ({ fields: { Name: `r${i}` } })) };
    let claim: Record<string, unknown> | undefined;
    injectChunkFault((i) => {
      if (i !== 0) return;
      claim = readIdempotencyItemInAnotherProcess(t.owner.id, 'create-records', 'crash', t.tableId);
      throw new Error('crash');
    });
    try {
      expect((await createRecords(t, body, key('crash'))).status).toBe(500);
    } finally {
      injectChunkFault(undefined);
    }
    expect(claim?.state).toBe('running');
    await putItem({ ...claim, expiresAt: Number(claim?.expiresAt) - minutes * 60 });

    const retry = await createRecords(t, body, key('crash'));

    expect(retry.status).toBe(status);
    if (status === 201) {
      expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(retry.body.records.map((r: Rec) => r.id));
      const again = await createRecords(t, body, key('crash'));
      expect(again.body).toEqual(retry.body);
    } else {
      expect(retry.body.message).toBe('A request with this Idempotency-Key is still running; retry');
      expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
    }
  });

  it('two parallel creates with the same new key write once: the other answers 409 or the same answer', async () => {
    const t = await wideTable([]);
    const body = { records: [{ fields: { Name: 'x' } }, { fields: { Name: 'y' } }] };

    const results = await Promise.all([
      createRecords(t, body, key('race')),
      createRecords(t, body, key('race')),
    ]);

    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(ok.length + refused.length).toBe(2);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.body).toEqual(ok[0]?.body);
    // The usual refusal is "still running"; "in use by another request" when the claim itself collided.
    for (const r of refused) {
      expect(r.body.code).toBe('conflict');
      expect([
        'A request with this Idempotency-Key is still running; retry',
        'The Idempotency-Key is in use by another request; retry',
      ]).toContain(r.body.message);
    }
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(ok[0]?.body.records.map((r: Rec) => r.id));
    // Once the first has finished, a retry of the refused one gets the remembered answer.
    const retry = await createRecords(t, body, key('race'));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(ok[0]?.body);
  });

  it('ten parallel duplicates with one key make one copy', async () => {
    const t = await wideTable([{ fields: { Name: 'a' } }]);
    const a = t.table.records[0].id;

    const results = await Promise.all(
      Array.from({ length: 10 }, () => duplicateRecord(t, a, {}, key('dup-race'))),
    );

    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const copies = new Set(results.filter((r) => r.status === 201).map((r) => r.body.records[0].id));
    expect(copies.size).toBe(1);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([a, ...copies]);
  });
});

/** Reads an idempotency claim through a child process, synchronously (from inside a write). */
const readIdempotencyItemInAnotherProcess = (userId: string, route: string, k: string, tableId: string) => {
  const script = `
    const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
    const { DynamoDBDocumentClient, GetCommand } = require('@aws-sdk/lib-dynamodb');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: JSON.parse(process.env.KEY), ConsistentRead: true }))
      .then((out) => process.stdout.write(JSON.stringify(out.Item ?? null)))
      .catch((e) => { console.error(e); process.exit(1); });`;
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: new URL('../../', import.meta.url).pathname,
    env: { ...process.env, KEY: JSON.stringify(keys.idempotency(userId, route, k, tableId)) },
  });
  return JSON.parse(out.toString('utf8')) as Record<string, unknown> | undefined;
};
