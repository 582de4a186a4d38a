import { describe, expect, it } from 'vitest';
import { captureBatch } from '#shared/changes/processor.ts';
import { queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import type { StreamRecord } from '#shared/db/stream.ts';
import { changesAfter } from '#shared/entities/change-log.ts';
import { NOTE_GRACE_MS } from '#shared/entities/record-deletions.ts';
import { newId } from '#shared/ids.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { call } from '#test/support/invoke.ts';
import { createRecords, deleteRecord, deleteRecords } from '#test/support/records.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

/**
 * Who deleted a record, and in which request (issue 28): the removal's stream record and the
 * deletion note on the table's data version are joined by the processor, in whichever order and
 * batch they come; a removal no note joins is written as the system's after its grace.
 */

const poller = useStreamPoller();

const logOf = async (baseId: string) => {
  await poller.caughtUp();
  return changesAfter(baseId, 0, 1000);
};

const requestIdOf = (res: { headers?: Record<string, string> }) => res.headers?.['x-request-id'];

describe('record.deleted on the real stream', () => {
  it('a single delete: the deleting user as actor, the request id as txId, the last cells before', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const nameId = (t.table.fields as { id: string }[])[0]?.id as string;
    const created = await createRecords(t, { records: [{ fields: { Name: 'gone' } }] });
    const recordId = (created.body as { records: { id: string }[] }).records[0]?.id as string;

    const res = await deleteRecord(t, recordId);
    const deleted = (await logOf(t.baseId)).filter((e) => e.type === 'record.deleted');

    expect(res.status).toBe(200);
    expect(deleted).toEqual([
      expect.objectContaining({
        recordId,
        actor: { id: t.owner.id },
        txId: requestIdOf(res),
        before: { [nameId]: 'gone' },
      }),
    ]);
  });

  it("a batch delete by an editor: every entry has the editor and the request's id", async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const editor = await newMember(t, 'editor');
    const created = await createRecords(t, {
      records: Array.from({ length: 5 }, (_, i) => ({ fields: { Name: `r${i}` } })),
    });
    const ids = (created.body as { records: { id: string }[] }).records.map((r) => r.id);

    const res = await call('delete-records', {
      token: editor.auth,
      params: { tableId: t.tableId },
      query: ids.map((id) => `recordIds[]=${id}`).join('&'),
    });
    const deleted = (await logOf(t.baseId)).filter((e) => e.type === 'record.deleted');

    expect(res.status).toBe(200);
    expect(deleted.map((e) => e.recordId).sort()).toEqual([...ids].sort());
    expect(new Set(deleted.map((e) => e.txId))).toEqual(new Set([requestIdOf(res)]));
    expect(new Set(deleted.map((e) => e.actor.id))).toEqual(new Set([editor.id]));
  });

  it('a delete too large for one transaction (journaled): every record.deleted has the user and the request', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const created = await createRecords(t, {
      records: Array.from({ length: 150 }, (_, i) => ({ fields: { Name: `r${i}` } })),
    });
    const ids = (created.body as { records: { id: string }[] }).records.map((r) => r.id);

    const res = await deleteRecords(t, ids.map((id) => `recordIds[]=${id}`).join('&'));
    const deleted = (await logOf(t.baseId)).filter((e) => e.type === 'record.deleted');

    expect(res.status).toBe(200);
    expect(deleted.map((e) => e.recordId).sort()).toEqual([...ids].sort());
    expect(new Set(deleted.map((e) => e.txId))).toEqual(new Set([requestIdOf(res)]));
    expect(new Set(deleted.map((e) => e.actor.id))).toEqual(new Set([t.owner.id]));
  });

  it('the delete transaction names the records in its data-version note, with the user and the request', async () => {
    const t = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const created = await createRecords(t, {
      records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }],
    });
    const [a, b] = (created.body as { records: { id: string }[] }).records.map((r) => r.id);

    await deleteRecords(t, `recordIds[]=${a}&recordIds[]=${b}`);
    const noted = (await queryAll(keys.dataVersionsOf(t.tableId))).filter((s) => Array.isArray(s.dl));

    expect(noted).toHaveLength(1);
    expect([...((noted[0]?.dl ?? []) as string[])].sort()).toEqual([a, b].sort());
    expect(noted[0]).toMatchObject({ dby: t.owner.id, dtx: expect.any(String) });
  });
});

describe('purges', () => {
  it('a table deleted for good: table.deleted once, no record.deleted for its records, nothing left waiting', async () => {
    const t = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }],
    });
    const token = t.owner.auth;

    expect(
      (await call('delete-table', { token, params: { baseId: t.baseId, tableId: t.tableId } })).status,
    ).toBe(200);
    const trash = await call('list-trash-items', {
      token,
      query: `resourceId=${t.baseId}&resourceType=base`,
    });
    const trashId = (trash.body.trashItems as { id: string; resourceId: string }[]).find(
      (i) => i.resourceId === t.tableId,
    )?.id as string;
    expect((await call('delete-trash-item', { token, params: { trashId } })).status).toBe(200);
    await drainPurges();
    const log = await logOf(t.baseId);

    expect(log.filter((e) => e.type === 'table.deleted')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'record.deleted')).toEqual([]);
    expect(await queryAll({ pk: keys.recordDeletionsOf(t.baseId).pk })).toEqual([]);
  });
});

describe('the join, in any order and batch (the processor over crafted stream records)', () => {
  /** A removal of a record of `t` and the note of its deletion, as the stream gives them. */
  const pair = (t: { tableId: string }, recordId: string, at: Date, tx: string, by: string) => {
    const removal: StreamRecord = {
      eventId: `rm-${recordId}`,
      sequence: '1',
      kind: 'REMOVE',
      at: at.toISOString(),
      oldImage: { pk: `RECORDS#${t.tableId}`, sk: recordId, type: 'record', id: recordId, fldX: 'last' },
    };
    const note: StreamRecord = {
      eventId: `note-${recordId}`,
      sequence: '2',
      kind: 'MODIFY',
      at: at.toISOString(),
      oldImage: { pk: `TABLE#${t.tableId}`, sk: 'DVER#03', type: 'dataVersion', v: 1 },
      newImage: {
        pk: `TABLE#${t.tableId}`,
        sk: 'DVER#03',
        type: 'dataVersion',
        v: 2,
        dn: `n-${recordId}`,
        dl: [recordId],
        dtx: tx,
        dby: by,
      },
    };
    return { removal, note };
  };

  it.each([
    ['removal first, note in a later batch', (p: ReturnType<typeof pair>) => [[p.removal], [p.note]]],
    ['note first, removal in a later batch', (p: ReturnType<typeof pair>) => [[p.note], [p.removal]]],
    ['both in one batch, note first', (p: ReturnType<typeof pair>) => [[p.note, p.removal]]],
  ])('%s: one entry, with the note', async (_name, batches) => {
    const t = await newTable({ records: [] });
    await poller.caughtUp();
    const recordId = newId('record');
    const p = pair(t, recordId, new Date(), 'req-1', t.owner.id);

    for (const batch of batches(p)) await captureBatch(batch);
    for (const batch of batches(p)) await captureBatch(batch);
    const deleted = (await changesAfter(t.baseId, 0, 1000)).filter((e) => e.type === 'record.deleted');

    expect(deleted).toEqual([
      expect.objectContaining({
        recordId,
        actor: { id: t.owner.id },
        txId: 'req-1',
        before: { fldX: 'last' },
      }),
    ]);
  });

  it('a removal no note joins waits, then is written as the system’s once its grace has passed', async () => {
    const t = await newTable({ records: [] });
    await poller.caughtUp();
    const recordId = newId('record');
    const at = new Date();
    const { removal } = pair(t, recordId, at, 'unused', 'unused');

    await captureBatch([removal], undefined, at);
    const before = (await changesAfter(t.baseId, 0, 1000)).filter((e) => e.type === 'record.deleted');
    // any later batch of the base, past the grace, writes it
    await captureBatch([], undefined, new Date(at.getTime() + NOTE_GRACE_MS + 1000));
    const other = pair(
      t,
      newId('record'),
      new Date(at.getTime() + NOTE_GRACE_MS + 1000),
      'req-2',
      t.owner.id,
    );
    await captureBatch([other.note, other.removal], undefined, new Date(at.getTime() + NOTE_GRACE_MS + 1000));
    const after = (await changesAfter(t.baseId, 0, 1000)).filter((e) => e.type === 'record.deleted');

    expect(before).toEqual([]);
    expect(after).toEqual([
      expect.objectContaining({
        recordId: other.removal.oldImage?.id,
        actor: { id: t.owner.id },
        txId: 'req-2',
      }),
      expect.objectContaining({ recordId, actor: { id: 'system' }, txId: `rm-${recordId}` }),
    ]);
  });
});
