/**
 * The table's record count (teable-routes.md, Aggregation: row count O(1)): kept by every write
 * that creates or deletes records, exactly once (with a journaled write's completion, never for
 * an undone one), and read by `row-count` when nothing narrows the list.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deleteItem } from '#shared/db/client.ts';
import { injectChunkFault } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { itemsRead, resetCalls } from '#shared/db/metrics.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

afterEach(() => injectChunkFault(undefined));

const setUp = async () => {
  const t = await newTable();
  const token = t.owner.auth;
  const rowCount = async (query = '') => {
    const res = await call('get-row-count', { token, params: { tableId: t.tableId }, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.rowCount as number;
  };
  const listed = async () => {
    const res = await call('list-records', { token, params: { tableId: t.tableId }, query: 'take=1000' });
    return res.body.records.map((r: { id: string }) => r.id) as string[];
  };
  const create = (n: number) =>
    call('create-records', {
      token,
      params: { tableId: t.tableId },
      body: { records: Array.from({ length: n }, (_, i) => ({ fields: { Name: `r${i}` } })) },
    });
  const remove = (ids: string[]) =>
    call('delete-records', {
      token,
      params: { tableId: t.tableId },
      query: ids.map((id) => `recordIds[]=${id}`).join('&'),
    });
  return { ...t, token, rowCount, listed, create, remove };
};

describe('row count from the record counter', () => {
  it('follows creates, deletes, duplicates, selection deletes and pastes', async () => {
    const t = await setUp();
    expect(await t.rowCount()).toBe(3);
    expect((await t.create(5)).status).toBe(201);
    expect(await t.rowCount()).toBe(8);
    const ids = await t.listed();
    expect((await t.remove(ids.slice(0, 2))).status).toBe(200);
    expect(await t.rowCount()).toBe(6);
    const dup = await call('duplicate-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: ids[2] as string },
    });
    expect(dup.status).toBe(201);
    expect(await t.rowCount()).toBe(7);
    const selected = await call('delete-selection', {
      token: t.token,
      params: { tableId: t.tableId },
      query: 'ranges=[[0,0],[0,1]]&type=rows',
    });
    expect(selected.status, JSON.stringify(selected.body)).toBe(200);
    expect(await t.rowCount()).toBe(5);
    const pasted = await call('paste-selection', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        ranges: [
          [0, 4],
          [0, 4],
        ],
        content: 'x\ny\nz',
      },
    });
    expect(pasted.status, JSON.stringify(pasted.body)).toBe(200);
    expect(await t.rowCount()).toBe(7);
    expect(await t.rowCount()).toBe((await t.listed()).length);
  });

  it('reads a few items, not the records; a filter or a hiding search counts the records', async () => {
    const t = await setUp();
    expect((await t.create(200)).status).toBe(201);
    await t.rowCount(); // warm: authentication and the schema, as on a warm Lambda
    resetCalls();
    expect(await t.rowCount()).toBe(203);
    // the token, the table and at most 17 counter items: not the 203 records
    expect(itemsRead()).toBeLessThan(25);
    // narrowed: the records that pass
    const filter = encodeURIComponent(
      JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'is', value: 'r7' }] }),
    );
    expect(await t.rowCount(`filter=${filter}`)).toBe(1);
    expect(await t.rowCount('search[]=r19&search[]=Name&search[]=true')).toBe(11); // r19, r190…r199
    // a search that only highlights narrows nothing
    expect(await t.rowCount('search[]=r19&search[]=Name&search[]=false')).toBe(203);
  });

  it('counts a journaled create once, and an undone one not at all', async () => {
    const t = await setUp();
    expect((await t.create(300)).status).toBe(201);
    expect(await t.rowCount()).toBe(303);
    injectChunkFault((unit) => {
      if (unit === 2) throw new Error('injected');
    });
    const failed = await t.create(300);
    injectChunkFault(undefined);
    expect(failed.status).toBe(500);
    expect(await t.rowCount()).toBe(303);
    expect((await t.listed()).length).toBe(303);
    // a journaled delete
    const ids = await t.listed();
    const removed = await call('delete-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { recordIds: ids.slice(0, 150) },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await t.rowCount()).toBe(153);
  });

  it('stays exact under concurrent creates and deletes of the same records', async () => {
    const t = await setUp();
    const ids = await t.listed();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => t.create(1)),
      // the same record deleted three times at once: one delete wins
      ...Array.from({ length: 3 }, () => t.remove([ids[0] as string])),
    ]);
    for (const a of answers) expect(a.status).toBeLessThan(500);
    expect(await t.rowCount()).toBe((await t.listed()).length);
  });

  it('a table without a counter (made before counts) is counted by reading it', async () => {
    const t = await setUp();
    await deleteItem(keys.recordCount(t.tableId, 'base'));
    expect((await t.create(2)).status).toBe(201);
    expect(await t.rowCount()).toBe(5);
  });
});
