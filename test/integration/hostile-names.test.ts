import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { createRecords, getRecord, updateRecord } from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 27, item 7: a field may not be named `__proto__` (a write by that name used to store
 * nothing and answer 200); names that only look special work like any other, through writes,
 * reads, filters, sorts and groups by name; a select choice or a cell text of such a name too.
 */

const LOOKALIKES = ['constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];

describe('field names that are JavaScript object keys', () => {
  it.each([
    ['create field', { name: '__proto__' }],
    ['create field (dbFieldName)', { name: 'Proto', dbFieldName: '__proto__' }],
  ])('%s: __proto__ is a 400 and nothing is created', async (_, extra) => {
    const t = await newTable();

    const res = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'singleLineText', ...extra },
    });

    expect(res).toMatchObject(invalid(/^A field cannot (be named|have the dbFieldName) "__proto__"$/));
    const fields = await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(fields.body).toHaveLength(3);
  });

  it('renaming a field to __proto__ is a 400; create table with such a field too', async () => {
    const t = await newTable();
    const fieldId = (t.table.fields as { id: string }[])[1]?.id as string;

    const renamed = await call('update-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId },
      body: { name: '__proto__' },
    });
    const created = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { fields: [{ type: 'singleLineText', name: '__proto__' }] },
    });

    expect(renamed).toMatchObject(invalid('A field cannot be named "__proto__"'));
    expect(created).toMatchObject(invalid(/A field cannot be named "__proto__"/));
  });

  it('a link to a table named __proto__ takes the default name "__proto__ 2"', async () => {
    const t = await newTable();
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: '__proto__' },
    });

    const res = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'link', options: { relationship: 'manyMany', foreignTableId: other.body.id } },
    });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.name).toBe('__proto__ 2');
    expect(res.body.dbFieldName).toBe('__proto___2');
  });

  it('fields named constructor, toString… are written, read, filtered, sorted and grouped by name', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Name' },
        ...LOOKALIKES.map((name) => ({ type: 'singleLineText', name })),
        { type: 'singleSelect', name: 'Kind', options: { choices: LOOKALIKES.map((name) => ({ name })) } },
      ],
      records: [],
    });
    const cells = (i: number) => ({
      Name: `r${i}`,
      ...Object.fromEntries(LOOKALIKES.map((n) => [n, `${n}-${i}`])),
      Kind: LOOKALIKES[i % LOOKALIKES.length],
    });

    const created = await createRecords(t, { records: [0, 1, 2].map((i) => ({ fields: cells(i) })) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ids = created.body.records.map((r: { id: string }) => r.id) as string[];
    const updated = await updateRecord(t, ids[0] as string, {
      record: { fields: { constructor: '__proto__' } },
    });
    const read = await getRecord(t, ids[0] as string);
    const filter = JSON.stringify({
      conjunction: 'and',
      filterSet: [{ fieldId: 'constructor', operator: 'is', value: 'constructor-1' }],
    });
    const filtered = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `filter=${encodeURIComponent(filter)}`,
    });
    const sorted = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'toString', order: 'desc' }]))}`,
    });
    const grouped = await call('get-group-points', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'Kind', order: 'asc' }]))}`,
    });

    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(read.body.fields).toEqual({ ...cells(0), constructor: '__proto__' });
    expect(filtered.body.records.map((r: { fields: { Name: string } }) => r.fields.Name)).toEqual(['r1']);
    expect(sorted.body.records.map((r: { fields: { Name: string } }) => r.fields.Name)).toEqual([
      'r2',
      'r1',
      'r0',
    ]);
    expect(grouped.status, JSON.stringify(grouped.body)).toBe(200);
    const points = grouped.body as { type: number; value?: unknown; count?: number }[];
    expect(points.map((p) => (p.type === 0 ? p.value : p.count))).toEqual([
      'constructor',
      1,
      'toString',
      1,
      'hasOwnProperty',
      1,
    ]);
  });
});
