import { describe, expect, it } from 'vitest';
import { MAX_RECORD_BYTES } from '#shared/records/limits.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10, item 5: cells too large for one DynamoDB item once answered 500. A record's cells may
 * take at most 256 KB; more is a 413 naming the record and its largest field, with nothing written.
 */

const FIELDS = ['A', 'B', 'C', 'D'].map((name) => ({ name, type: 'longText' }));
const kb = (n: number) => 'x'.repeat(n * 1024);
const tooLarge = expect.objectContaining({
  status: 413,
  code: 'payload_too_large',
  message: expect.stringMatching(/may hold at most 256 KB .*largest cell: field "\w"/),
});

const tableOf = () => newTable({ fields: FIELDS, records: [] });
const count = async (t: Awaited<ReturnType<typeof tableOf>>) =>
  (await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId }, query: 'take=1000' }))
    .body.records.length;

describe('record size', () => {
  it('a 420 KB cell on create is a 413 naming the field, and nothing is written', async () => {
    const t = await tableOf();

    const res = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { fieldKeyType: 'name', records: [{ fields: { A: 'ok' } }, { fields: { B: kb(420) } }] },
    });

    expect(res.status).toBe(413);
    expect(res.body).toEqual(tooLarge);
    expect(res.body.message).toMatch(/^Record 2 of the request .*field "B", 42\d KB/);
    expect(await count(t)).toBe(0);
  });

  it('four 110 KB cells in one record are a 413; three fit', async () => {
    const t = await tableOf();
    const create = (fields: Record<string, string>) =>
      call('create-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        body: { fieldKeyType: 'name', records: [{ fields }] },
      });

    expect((await create({ A: kb(80), B: kb(80), C: kb(80) })).status).toBe(201);
    const four = await create({ A: kb(110), B: kb(110), C: kb(110), D: kb(110) });

    expect(four.body).toEqual(tooLarge);
    expect(await count(t)).toBe(1);
  });

  it('PATCH counts the cells already stored: the write that would pass the limit is a 413, the record unchanged', async () => {
    const t = await tableOf();
    const made = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { fieldKeyType: 'name', records: [{ fields: { A: kb(100), B: kb(100) } }] },
    });
    const recordId = made.body.records[0].id as string;
    const patch = (fields: Record<string, string>) =>
      call('update-record', {
        token: t.owner.auth,
        params: { tableId: t.tableId, recordId },
        body: { fieldKeyType: 'name', record: { fields } },
      });

    const over = await patch({ C: kb(100) });
    const huge = await patch({ D: 'y'.repeat(1024 * 1024) });
    const replacing = await patch({ A: kb(40) });

    expect(over.body).toEqual(tooLarge);
    expect(over.body.message).toMatch(new RegExp(`^Record ${recordId} would hold 30\\d KB`));
    expect(huge.body).toEqual(tooLarge);
    // Replacing a large cell with a smaller one is fine.
    expect(replacing.status).toBe(200);
    expect(MAX_RECORD_BYTES).toBe(256 * 1024);
  });
});
