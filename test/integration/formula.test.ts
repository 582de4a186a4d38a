/**
 * Formula fields over HTTP on DynamoDB Local (computed.md 1–3, 6, 8, 9): create with backfill,
 * values current in every write's answer, update and delete of fields they read, cycles,
 * text rendering, and listing by formula values.
 */
import { describe, expect, it } from 'vitest';
import { type Field, invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable } from '#test/support/workspace.ts';

type T = Awaited<ReturnType<typeof listedTable>>;

/** Items: Name, Price, Qty, Due (the worked examples' table), 3 records. */
const items = () =>
  listedTable(
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Price' },
      { type: 'number', name: 'Qty' },
      { type: 'date', name: 'Due' },
    ],
    3,
    (i) =>
      [
        { Name: 'Bolt', Price: 10, Qty: 3, Due: '2024-01-01T00:00:00.000Z' },
        { Name: 'Nut', Price: 2.5, Qty: 9 },
        { Name: 'Gear' },
      ][i] as Record<string, unknown>,
  );

const idOf = (t: T, name: string): string => {
  const field = (t.table.fields as Field[]).find((f) => f.name === name);
  if (!field) throw new Error(`no field ${name}`);
  return field.id;
};

const addField = (t: T, body: Record<string, unknown>) =>
  call('create-field', { token: t.token, params: { tableId: t.tableId }, body });

const addFormula = async (t: T, expression: string, extra: Record<string, unknown> = {}) => {
  const res = await addField(t, {
    type: 'formula',
    ...extra,
    options: { expression, ...(extra.options ?? {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Field & { options: Record<string, unknown> };
};

const cellsOf = async (t: T, fieldName: string, query = '') => {
  const res = await t.listOk(query);
  return res.body.records.map((r: { fields: Record<string, unknown> }) => r.fields[fieldName]);
};

const ref = (t: T, name: string) => `{${idOf(t, name)}}`;

describe('formula fields', () => {
  it('backfills every record at create and answers the field object of the contract', async () => {
    const t = await items();
    const field = await addFormula(t, `${ref(t, 'Price')} * ${ref(t, 'Qty')}`);
    expect(field).toMatchObject({
      name: 'Calculation',
      type: 'formula',
      cellValueType: 'number',
      isComputed: true,
      dbFieldType: 'REAL',
      options: {
        expression: `${ref(t, 'Price')} * ${ref(t, 'Qty')}`,
        formatting: { type: 'decimal', precision: 2 },
      },
    });
    expect(field).not.toHaveProperty('isPending');
    expect(field).not.toHaveProperty('hasError');
    expect(await cellsOf(t, 'Calculation')).toEqual([30, 22.5, 0]);
    expect(await cellsOf(t, 'Calculation', 'cellFormat=text')).toEqual(['30.00', '22.50', '0.00']);
  });

  it('is current in the answer of a record create and update, and stored', async () => {
    const t = await items();
    await addFormula(t, `${ref(t, 'Name')} & " x" & ${ref(t, 'Qty')}`, { name: 'Label' });
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'Bolt' } }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.records[0].fields.Label).toBe('Bolt x');
    const recordId = created.body.records[0].id;
    const updated = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId },
      body: { record: { fields: { Qty: 4 } } },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.fields.Label).toBe('Bolt x4');
    const read = await call('get-record', { token: t.token, params: { tableId: t.tableId, recordId } });
    expect(read.body.fields.Label).toBe('Bolt x4');
  });

  it('ignores writes to a formula cell and applies the rest of the write', async () => {
    const t = await items();
    await addFormula(t, `${ref(t, 'Qty')} * 2`, { name: 'Double' });
    const res = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.ids[0] as string },
      body: { record: { fields: { Double: 99, Qty: 5 } }, typecast: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields).toMatchObject({ Double: 10, Qty: 5 });
  });

  it('stores true and leaves false empty; IF with BLANK infers text (examples 3, 4)', async () => {
    const t = await items();
    await addFormula(t, `${ref(t, 'Qty')} > 5`, { name: 'Bulk' });
    const blank = await addFormula(t, `IF(${ref(t, 'Qty')} > 5, "bulk", BLANK())`, { name: 'Tag' });
    expect(blank).toMatchObject({
      cellValueType: 'string',
      dbFieldType: 'TEXT',
      options: { expression: expect.any(String) },
    });
    expect(Object.keys(blank.options)).toEqual(['expression']);
    expect(await cellsOf(t, 'Bulk')).toEqual([undefined, true, undefined]);
    expect(await cellsOf(t, 'Tag')).toEqual([undefined, 'bulk', undefined]);
  });

  it('reads a date field: DATETIME_DIFF gives 60 either way round (example 7)', async () => {
    const t = await items();
    await addFormula(t, `DATETIME_DIFF("2024-03-01", ${ref(t, 'Due')})`, { name: 'Diff' });
    await addFormula(t, `DATETIME_DIFF(${ref(t, 'Due')}, "2024-03-01")`, { name: 'Swapped' });
    expect(await cellsOf(t, 'Diff')).toEqual([60, undefined, undefined]);
    expect(await cellsOf(t, 'Swapped')).toEqual([60, undefined, undefined]);
  });

  it('refuses bad expressions with the contract messages (example 9), nothing created', async () => {
    const t = await items();
    for (const [expression, message] of [
      ['ROUND()', 'ROUND needs at least 1 param'],
      ['SUM(1, 2', /^expression parse error: /],
      ['{fldAAAAAAAAAAAAAAAA}', 'formula field reference fldAAAAAAAAAAAAAAAA not found'],
      ['NOPE(1)', 'Unknown function NOPE'],
    ] as const) {
      const res = await addField(t, { type: 'formula', name: 'Bad', options: { expression } });
      expect(res).toMatchObject(invalid(message));
    }
    const fields = await call('list-fields', { token: t.token, params: { tableId: t.tableId } });
    expect(fields.body.map((f: Field) => f.name)).not.toContain('Bad');
  });

  it('refuses a timeZone that is not one and formatting that does not fit the result', async () => {
    const t = await items();
    expect(
      await addField(t, { type: 'formula', options: { expression: '1', timeZone: 'Mars/Olympus' } }),
    ).toMatchObject(invalid('Invalid options for a formula field: "Mars/Olympus" is not a valid timezone'));
    expect(
      await addField(t, {
        type: 'formula',
        options: { expression: '"a"', formatting: { type: 'decimal', precision: 1 } },
      }),
    ).toMatchObject({ status: 400 });
    const zoned = await addFormula(t, 'YEAR("2023-01-01T07:00:00Z")', {
      options: { timeZone: 'America/Los_Angeles' },
    });
    expect(zoned.options.timeZone).toBe('America/Los_Angeles');
    expect(await cellsOf(t, zoned.name)).toEqual([2022, 2022, 2022]);
  });

  it('refuses a cycle at update, naming it, and changes nothing', async () => {
    const t = await items();
    const a = await addFormula(t, `${ref(t, 'Qty')} + 1`, { name: 'A' });
    const b = await addFormula(t, `{${a.id}} + 1`, { name: 'B' });
    const res = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: a.id },
      body: { options: { expression: `{${b.id}} + 1` } },
    });
    expect(res).toMatchObject(invalid(/^field reference has cycle: /));
    const self = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: a.id },
      body: { options: { expression: `{${a.id}}` } },
    });
    expect(self).toMatchObject(invalid(/^field reference has cycle/));
    expect(await cellsOf(t, 'B')).toEqual([5, 11, 2]);
  });

  it('recomputes every record when the expression changes, and dependents follow', async () => {
    const t = await items();
    const a = await addFormula(t, `${ref(t, 'Qty')} + 1`, { name: 'A' });
    await addFormula(t, `{${a.id}} + 1`, { name: 'B' });
    const res = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: a.id },
      body: { options: { expression: `${ref(t, 'Qty')} & "!"` } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ cellValueType: 'string', dbFieldType: 'TEXT' });
    expect(res.body.options).not.toHaveProperty('formatting');
    expect(await cellsOf(t, 'A')).toEqual(['3!', '9!', '!']);
    // B re-infers: a text operand makes + join texts
    expect(await cellsOf(t, 'B')).toEqual(['3!1', '9!1', '!1']);
    const fields = await call('list-fields', { token: t.token, params: { tableId: t.tableId } });
    expect(fields.body.find((f: Field) => f.name === 'B')).toMatchObject({ cellValueType: 'string' });
  });

  it('marks a formula broken with empty cells when a field it reads is deleted (example 10)', async () => {
    const t = await items();
    const f = await addFormula(t, ref(t, 'Price'), { name: 'P' });
    const del = await call('delete-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: idOf(t, 'Price') },
    });
    expect(del.status).toBe(200);
    const got = await call('get-field', { token: t.token, params: { tableId: t.tableId, fieldId: f.id } });
    expect(got.body.hasError).toBe(true);
    expect(await cellsOf(t, 'P')).toEqual([undefined, undefined, undefined]);
  });

  it('filters, sorts and searches by formula values like plain fields of the result type', async () => {
    const t = await items();
    const total = await addFormula(t, `${ref(t, 'Price')} * ${ref(t, 'Qty')}`, { name: 'Total' });
    const filter = JSON.stringify({
      conjunction: 'and',
      filterSet: [{ fieldId: total.id, operator: 'isGreater', value: 20 }],
    });
    expect(await t.names(`filter=${encodeURIComponent(filter)}`)).toEqual(['Bolt', 'Nut']);
    const sort = JSON.stringify([{ fieldId: total.id, order: 'asc' }]);
    expect(await t.names(`orderBy=${encodeURIComponent(sort)}`)).toEqual(['Gear', 'Nut', 'Bolt']);
    expect(await t.names(`search[]=22.50&search[]=${total.id}&search[]=true`)).toEqual(['Nut']);
  });
});
