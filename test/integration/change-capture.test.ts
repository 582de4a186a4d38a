import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POISON_TRIES, type StreamPoller, startStreamPoller } from '#infra/local/stream-poller.ts';
import { captureBatch } from '#shared/changes/processor.ts';
import { putItem } from '#shared/db/client.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import { newId } from '#shared/ids.ts';
import { call } from '#test/support/invoke.ts';
import { createRecords, deleteRecord, updateRecord } from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 28 on DynamoDB Local's real stream: the local poller (the same capture as the cloud's
 * stream Lambda) turns writes made through the routes into the base's change log; a restart
 * resumes from its checkpoint and writes nothing twice.
 */

const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
const tableName = process.env.TABLE_NAME as string;
let dir: string;
let poller: StreamPoller;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'capture-'));
  poller = startStreamPoller({
    endpoint,
    tableName,
    startAt: 'LATEST',
    idleMs: 50,
    checkpointFile: join(dir, 'cp.json'),
  });
  await poller.caughtUp(20_000);
});
afterAll(async () => {
  await poller.stop();
  await rm(dir, { recursive: true, force: true });
});

const logOf = async (baseId: string): Promise<ChangeEntry[]> => {
  await poller.caughtUp(20_000);
  return changesAfter(baseId, 0, 1000);
};

describe('capture from the real stream', () => {
  it('a new table: table, fields, view and records created, in seq order from 1', async () => {
    const t = await newTable();

    const log = await logOf(t.baseId);

    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    const types = log.map((e) => e.type).sort();
    expect(types).toEqual(
      [
        'table.created',
        'field.created',
        'field.created',
        'field.created',
        'view.created',
        'record.created',
        'record.created',
        'record.created',
      ].sort(),
    );
    expect(log.every((e) => e.tableId === t.tableId && e.baseId === t.baseId)).toBe(true);
    expect(log.find((e) => e.type === 'table.created')?.actor).toEqual({ id: t.owner.id });
  });

  it('an update: only the changed cell, before and after by field id, the editor as actor', async () => {
    const t = await newTable({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
      ],
      records: [],
    });
    const [name, countField] = (t.table.fields as { id: string }[]).map((f) => f.id);
    const created = await createRecords(t, { records: [{ fields: { Name: 'Bolt', Count: 1 } }] });
    const recordId = created.body.records[0].id as string;

    await updateRecord(t, recordId, { record: { fields: { Count: 2 } } });
    const log = await logOf(t.baseId);

    const updates = log.filter((e) => e.type === 'record.updated');
    expect(updates).toEqual([
      expect.objectContaining({
        recordId,
        before: { [countField as string]: 1 },
        after: { [countField as string]: 2 },
        actor: expect.objectContaining({ id: t.owner.id }),
      }),
    ]);
    expect(log.find((e) => e.type === 'record.created' && e.recordId === recordId)?.after).toEqual({
      [name as string]: 'Bolt',
      [countField as string]: 1,
    });
  });

  it("a formula's recomputed cell is a computed entry beside the caller's", async () => {
    const t = await newTable({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
      ],
      records: [],
    });
    const formula = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        type: 'formula',
        name: 'Twice',
        options: { expression: `{${(t.table.fields as { id: string }[])[1]?.id}} * 2` },
      },
    });
    const created = await createRecords(t, { records: [{ fields: { Name: 'a', Count: 1 } }] });
    const recordId = created.body.records[0].id as string;

    await updateRecord(t, recordId, { record: { fields: { Count: 4 } } });
    const log = await logOf(t.baseId);

    const last = log.filter((e) => e.type === 'record.updated' && e.recordId === recordId);
    expect(last.map((e) => [e.computed ?? false, Object.keys(e.after ?? {})])).toEqual([
      [false, [(t.table.fields as { id: string }[])[1]?.id]],
      [true, [formula.body.id]],
    ]);
    expect(new Set(last.map((e) => e.txId)).size).toBe(1);
  });

  it('a delete: the last cells before', async () => {
    const t = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'gone' } }],
    });
    const recordId = (t.table.records as { id: string }[])[0]?.id as string;

    await deleteRecord(t, recordId);
    const log = await logOf(t.baseId);

    expect(log.filter((e) => e.type === 'record.deleted')).toEqual([
      expect.objectContaining({
        recordId,
        before: { [(t.table.fields as { id: string }[])[0]?.id as string]: 'gone' },
      }),
    ]);
  });

  it('the same records captured twice are written once', async () => {
    const t = await newTable({ records: [] });
    const records: StreamRecord[] = [
      {
        eventId: `replay-${t.tableId}`,
        sequence: '1',
        kind: 'MODIFY',
        at: new Date().toISOString(),
        oldImage: {
          pk: `TABLE#${t.tableId}`,
          sk: 'TABLE',
          type: 'table',
          id: t.tableId,
          baseId: t.baseId,
          name: 'A',
        },
        newImage: {
          pk: `TABLE#${t.tableId}`,
          sk: 'TABLE',
          type: 'table',
          id: t.tableId,
          baseId: t.baseId,
          name: 'B',
        },
      },
    ];
    await poller.caughtUp(20_000);

    const first = await captureBatch(records);
    const again = await captureBatch(records);
    const log = await changesAfter(t.baseId, 0, 1000);

    expect([first.written, again.written]).toEqual([1, 0]);
    expect(log.filter((e) => e.type === 'table.updated')).toHaveLength(1);
  });

  it('a poller stopped and started again resumes from its checkpoint: what was written meanwhile is captured once', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    await poller.caughtUp(20_000);
    await poller.stop();
    expect(JSON.parse(await readFile(join(dir, 'cp.json'), 'utf8')).shards).toBeTypeOf('object');

    await createRecords(t, { records: [{ fields: { Name: 'while stopped' } }] });
    poller = startStreamPoller({
      endpoint,
      tableName,
      startAt: 'LATEST',
      idleMs: 50,
      checkpointFile: join(dir, 'cp.json'),
    });
    const log = await logOf(t.baseId);

    expect(log.filter((e) => e.type === 'record.created').map((e) => Object.values(e.after ?? {}))).toEqual([
      ['while stopped'],
    ]);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  });

  it('an update too large to carry its cells keeps its place in the log with cellsOmitted', async () => {
    const t = await newTable({
      fields: [
        { name: 'A', type: 'longText' },
        { name: 'B', type: 'longText' },
      ],
      records: [{ fields: { A: 'a'.repeat(100_000), B: 'a'.repeat(100_000) } }],
    });
    const recordId = (t.table.records as { id: string }[])[0]?.id as string;

    const res = await updateRecord(t, recordId, {
      record: { fields: { A: 'b'.repeat(100_000), B: 'b'.repeat(100_000) } },
    });
    const log = await logOf(t.baseId);

    expect(res.status).toBe(200);
    const update = log.find((e) => e.type === 'record.updated');
    expect(update).toMatchObject({ recordId, cellsOmitted: true });
    expect(update?.before).toBeUndefined();
  });

  it(`a record that fails ${POISON_TRIES} times is set aside in the failures file and the shard goes on past it`, async () => {
    const failuresFile = join(dir, 'failures.jsonl');
    const own = startStreamPoller({ endpoint, tableName, startAt: 'LATEST', idleMs: 20, failuresFile });
    await own.caughtUp(20_000);
    const tableId = newId('table');
    const baseId = newId('base');
    // a base id too long for a key: the log of that base can never be written
    await putItem({
      pk: `TABLE#${tableId}`,
      sk: 'TABLE',
      type: 'table',
      id: tableId,
      baseId: 'x'.repeat(3000),
      name: 'A',
    });
    await putItem({ pk: `TABLE#${tableId}`, sk: 'TABLE', type: 'table', id: tableId, baseId, name: 'B' });

    for (let i = 0; i < 100 && own.stats().setAside === 0; i++) await new Promise((r) => setTimeout(r, 100));
    await own.caughtUp(20_000);
    await own.stop();

    expect(own.stats().setAside, JSON.stringify(own.stats())).toBeGreaterThanOrEqual(1);
    expect(await readFile(failuresFile, 'utf8')).toContain(tableId);
    // the same item's next write, on the same shard after it, is in the log
    expect((await changesAfter(baseId, 0, 10)).map((e) => e.type)).toEqual(['table.updated']);
  });

  it("one request's changes share its request id as txId: a link written on one side, the other side computed", async () => {
    const t = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'A1' } }],
    });
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { fields: [{ name: 'Name', type: 'singleLineText' }], records: [{ fields: { Name: 'B1' } }] },
    });
    const link = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        type: 'link',
        name: 'Parts',
        options: { relationship: 'manyMany', foreignTableId: other.body.id },
      },
    });
    const a1 = (t.table.records as { id: string }[])[0]?.id as string;
    const b1 = (other.body.records as { id: string }[])[0]?.id as string;

    const res = await updateRecord(t, a1, { record: { fields: { Parts: [{ id: b1 }] } } });
    const log = await logOf(t.baseId);

    const requestId = res.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const caused = log.filter((e) => e.txId === requestId);
    // the two sides are records of two tables: the log holds both, in whichever order the stream gave
    expect(caused).toHaveLength(2);
    expect(caused.map((e) => [e.type, e.tableId, e.recordId, e.computed ?? false])).toEqual(
      expect.arrayContaining([
        ['record.updated', t.tableId, a1, false],
        ['record.updated', other.body.id, b1, true],
      ]),
    );
    const created = log.find((e) => e.type === 'field.created' && e.fieldId === link.body.id);
    expect(created).toMatchObject({ actor: { id: t.owner.id }, txId: link.headers['x-request-id'] });
  });
});
