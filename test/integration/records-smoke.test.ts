import { describe, expect, it } from 'vitest';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

describe('tables and records, end to end', () => {
  it('creates a table with the documented defaults', async () => {
    const { table } = await newTable();
    expect(table.name).toBe('Table');
    expect(table.fields.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['Name', 'singleLineText'],
      ['Count', 'number'],
      ['Status', 'singleSelect'],
    ]);
    expect(table.fields[0].isPrimary).toBe(true);
    expect(table.views.map((v: { name: string; type: string }) => [v.name, v.type])).toEqual([
      ['Grid view', 'grid'],
    ]);
    expect(table.records).toHaveLength(3);
    expect(table.total).toBe(3);
    expect(table.records.map((r: { autoNumber: number }) => r.autoNumber)).toEqual([1, 2, 3]);
  });

  it('creates, reads, updates and deletes records', async () => {
    const t = await newTable({ records: [] });
    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [{ fields: { Name: 'a', Count: 2, Status: 'light' } }, { fields: { Name: 'b' } }],
        typecast: false,
      },
    });
    expect(created.status).toBe(201);
    const [a, b] = created.body.records;
    expect(a.fields).toEqual({ Name: 'a', Count: 2, Status: 'light' });
    expect(a.name).toBe('a');
    const got = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: a.id },
    });
    expect(got.status).toBe(200);
    expect(got.headers.etag).toBe('"1"');
    const patched = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: a.id },
      body: { record: { fields: { Count: '7', Status: 'new one' } }, typecast: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.fields).toEqual({ Name: 'a', Count: 7, Status: 'new one' });
    const stale = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: a.id },
      headers: { 'if-match': '"1"' },
      body: { record: { fields: { Count: 8 } } },
    });
    expect(stale.status).toBe(412);
    const removed = await call('delete-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `recordIds[]=${b.id}`,
    });
    expect(removed.status).toBe(200);
    expect(removed.body.records[0].id).toBe(b.id);
    const gone = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: b.id },
    });
    expect(gone.status).toBe(404);
  });

  it('places records in a view as the contract examples say', async () => {
    const t = await newTable({
      records: [{ fields: { Name: 'r1' } }, { fields: { Name: 'r2' } }, { fields: { Name: 'r3' } }],
    });
    const [r1, r2, r3] = t.table.records.map((r: { id: string }) => r.id);
    const { viewOrderIds } = await import('#shared/records/placement.ts');
    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [{ fields: { Name: 'new1' } }, { fields: { Name: 'new2' } }],
        order: { viewId: t.viewId, anchorId: r1, position: 'before' },
      },
    });
    expect(created.status).toBe(201);
    const [n1, n2] = created.body.records.map((r: { id: string }) => r.id);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([n1, n2, r1, r2, r3]);
    const moved = await call('update-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: r3, fields: {} },
          { id: r1, fields: {} },
        ],
        order: { viewId: t.viewId, anchorId: r2, position: 'after' },
      },
    });
    expect(moved.status).toBe(200);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([n1, n2, r2, r3, r1]);
  });

  it('links records on both sides', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'A1' } }] });
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'B1' } }, { fields: { Name: 'B2' } }] },
    });
    expect(other.status).toBe(201);
    const link = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        type: 'link',
        name: 'Others',
        options: { relationship: 'manyMany', foreignTableId: other.body.id },
      },
    });
    expect(link.status).toBe(201);
    const a1 = t.table.records[0].id;
    const [b1, b2] = other.body.records.map((r: { id: string }) => r.id);
    const upd = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: a1 },
      body: { record: { fields: { Others: [{ id: b1 }, { id: b2 }] } } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.fields.Others).toEqual([
      { id: b1, title: 'B1' },
      { id: b2, title: 'B2' },
    ]);
    const back = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: other.body.id, recordId: b1 },
    });
    expect(back.body.fields.Table).toEqual([{ id: a1, title: 'A1' }]);
  });
});
