/**
 * Lookups and rollups over HTTP on DynamoDB Local (computed.md 4, 5, 6, 9): the worked examples,
 * values current after writes in either table, and a chain across three tables.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

type Caller = { auth: string };

const createTable = async (owner: Caller, baseId: string, body: Record<string, unknown>) => {
  const res = await call('create-table', { token: owner.auth, params: { baseId }, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; fields: Field[]; records: { id: string }[] };
};

const addField = async (owner: Caller, tableId: string, body: Record<string, unknown>) => {
  const res = await call('create-field', { token: owner.auth, params: { tableId }, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Field & { options: Record<string, unknown>; lookupOptions: Record<string, unknown> };
};

const cells = async (owner: Caller, tableId: string, field: string, query = '') => {
  const res = await call('list-records', { token: owner.auth, params: { tableId }, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.records.map((r: { fields: Record<string, unknown> }) => r.fields[field]);
};

const update = async (owner: Caller, tableId: string, recordId: string, fields: Record<string, unknown>) => {
  const res = await call('update-record', {
    token: owner.auth,
    params: { tableId, recordId },
    body: { record: { fields }, typecast: true },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { fields: Record<string, unknown> };
};

/** Items with a oneMany link Parts to Parts(Name, Cost, Status): the worked examples' tables. */
const itemsAndParts = async () => {
  const ws = await newTable({
    name: 'Items',
    records: [{ fields: { Name: 'Bolt' } }, { fields: { Name: 'Nut' } }],
  });
  const parts = await createTable(ws.owner, ws.baseId, {
    name: 'Parts',
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Cost' },
      { type: 'singleSelect', name: 'Status', options: { choices: [{ name: 'todo' }, { name: 'done' }] } },
    ],
    records: [
      { fields: { Name: 'p1', Cost: 5, Status: 'todo' } },
      { fields: { Name: 'p2', Status: 'done' } },
      { fields: { Name: 'p3', Cost: 7 } },
      { fields: { Name: 'p4', Cost: 100 } },
    ],
  });
  const link = await addField(ws.owner, ws.tableId, {
    type: 'link',
    name: 'Parts',
    options: { relationship: 'oneMany', foreignTableId: parts.id },
  });
  const [bolt, nut] = ws.table.records.map((r: { id: string }) => r.id) as [string, string];
  const [p1, p2, p3, p4] = parts.records.map((r) => r.id) as [string, string, string, string];
  await update(ws.owner, ws.tableId, bolt, { Parts: [{ id: p1 }, { id: p2 }, { id: p3 }] });
  const fieldOf = (name: string) => parts.fields.find((f) => f.name === name) as Field;
  const lookupOptions = (name: string) => ({
    foreignTableId: parts.id,
    linkFieldId: link.id,
    lookupFieldId: fieldOf(name).id,
  });
  return { ...ws, parts, link, bolt, nut, p1, p2, p3, p4, fieldOf, lookupOptions };
};

describe('rollup (example 5)', () => {
  it('sum 12, countall 3, counta 2; no links → empty; follows a linked record change', async () => {
    const t = await itemsAndParts();
    const sum = await addField(t.owner, t.tableId, {
      type: 'rollup',
      options: { expression: 'sum({values})' },
      lookupOptions: t.lookupOptions('Cost'),
    });
    expect(sum).toMatchObject({
      name: 'Cost Rollup (from Parts)',
      type: 'rollup',
      cellValueType: 'number',
      isComputed: true,
      dbFieldType: 'REAL',
      lookupOptions: { ...t.lookupOptions('Cost'), relationship: 'oneMany' },
      options: { expression: 'sum({values})', formatting: { type: 'decimal', precision: 2 } },
    });
    await addField(t.owner, t.tableId, {
      type: 'rollup',
      name: 'All',
      options: { expression: 'countall({values})' },
      lookupOptions: t.lookupOptions('Cost'),
    });
    await addField(t.owner, t.tableId, {
      type: 'rollup',
      name: 'Filled',
      options: { expression: 'counta({values})' },
      lookupOptions: t.lookupOptions('Cost'),
    });
    expect(await cells(t.owner, t.tableId, sum.name)).toEqual([12, undefined]);
    expect(await cells(t.owner, t.tableId, 'All')).toEqual([3, undefined]);
    expect(await cells(t.owner, t.tableId, 'Filled')).toEqual([2, undefined]);

    // a linked record changes in the other table: the rollup follows in the same write
    await update(t.owner, t.parts.id, t.p2, { Cost: 1 });
    expect(await cells(t.owner, t.tableId, sum.name)).toEqual([13, undefined]);
    // a link added on the other side
    await update(t.owner, t.parts.id, t.p4, { Items: { id: t.nut } });
    expect(await cells(t.owner, t.tableId, sum.name)).toEqual([13, 100]);
    // a link removed from this side: answered at once
    const res = await update(t.owner, t.tableId, t.bolt, { Parts: [{ id: t.p1 }] });
    expect(res.fields[sum.name]).toBe(5);
    // a linked record deleted
    const del = await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.parts.id, recordId: t.p4 },
    });
    expect(del.status).toBe(200);
    expect(await cells(t.owner, t.tableId, sum.name)).toEqual([5, undefined]);
  });
});

describe('lookup (example 6)', () => {
  it('of a select through a oneMany link: values in link order, empties removed, filterable', async () => {
    const t = await itemsAndParts();
    const status = await addField(t.owner, t.tableId, {
      type: 'singleSelect',
      isLookup: true,
      lookupOptions: t.lookupOptions('Status'),
    });
    expect(status).toMatchObject({
      name: 'Status (from Parts)',
      type: 'singleSelect',
      isLookup: true,
      isComputed: true,
      isMultipleCellValue: true,
      cellValueType: 'string',
      dbFieldType: 'JSON',
      options: { choices: expect.any(Array) },
    });
    expect(await cells(t.owner, t.tableId, status.name)).toEqual([['todo', 'done'], undefined]);
    expect(await cells(t.owner, t.tableId, status.name, 'cellFormat=text')).toEqual([
      'todo, done',
      undefined,
    ]);
    const filter = JSON.stringify({
      conjunction: 'and',
      filterSet: [{ fieldId: status.id, operator: 'hasAnyOf', value: ['done'] }],
    });
    const res = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `filter=${encodeURIComponent(filter)}`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.records.map((r: { name: string }) => r.name)).toEqual(['Bolt']);
  });

  it('refuses a lookup whose type differs from the looked-up field, naming both', async () => {
    const t = await itemsAndParts();
    const res = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'number', isLookup: true, lookupOptions: t.lookupOptions('Status') },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Current field type number is not equal to lookup field (singleSelect)');
  });

  it('a formula over a lookup over a rollup, across three tables, stays current', async () => {
    const t = await itemsAndParts();
    // Parts gets a link to Suppliers and a rollup of their ratings; Items looks it up; a formula sums it
    const suppliers = await createTable(t.owner, t.baseId, {
      name: 'Suppliers',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Score' },
      ],
      records: [{ fields: { Name: 's1', Score: 2 } }, { fields: { Name: 's2', Score: 3 } }],
    });
    const [s1, s2] = suppliers.records.map((r) => r.id) as [string, string];
    const supLink = await addField(t.owner, t.parts.id, {
      type: 'link',
      name: 'Suppliers',
      options: { relationship: 'manyMany', foreignTableId: suppliers.id },
    });
    await update(t.owner, t.parts.id, t.p1, { Suppliers: [{ id: s1 }, { id: s2 }] });
    const score = suppliers.fields.find((f) => f.name === 'Score') as Field;
    const rollup = await addField(t.owner, t.parts.id, {
      type: 'rollup',
      name: 'Score Sum',
      options: { expression: 'sum({values})' },
      lookupOptions: { foreignTableId: suppliers.id, linkFieldId: supLink.id, lookupFieldId: score.id },
    });
    const lookup = await addField(t.owner, t.tableId, {
      type: 'rollup',
      isLookup: true,
      lookupOptions: { foreignTableId: t.parts.id, linkFieldId: t.link.id, lookupFieldId: rollup.id },
    });
    expect(lookup).toMatchObject({
      name: 'Score Sum (from Parts)',
      cellValueType: 'number',
      isMultipleCellValue: true,
    });
    const formula = await addField(t.owner, t.tableId, {
      type: 'formula',
      name: 'Total',
      options: { expression: `SUM({${lookup.id}}) * 10` },
    });
    expect(formula.cellValueType).toBe('number');
    expect(await cells(t.owner, t.tableId, 'Total')).toEqual([50, 0]);
    // a change two tables away reaches the formula in the same write
    await update(t.owner, suppliers.id, s2, { Score: 10 });
    expect(await cells(t.owner, t.tableId, lookup.name)).toEqual([[12], undefined]);
    expect(await cells(t.owner, t.tableId, 'Total')).toEqual([120, 0]);
  });
});
