/**
 * `PUT /table/{t}/field/{f}/convert` (teable-routes.md "Field", computed.md 8): a field takes a
 * new type and options; cells are converted through their text form, or computed; dependents
 * follow in the same write.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable } from '#test/support/workspace.ts';

const table = () =>
  listedTable(
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'singleLineText', name: 'Code' },
      { type: 'number', name: 'Qty' },
      {
        type: 'date',
        name: 'Due',
        options: { formatting: { date: 'YYYY-MM-DD', time: 'hh:mm A', timeZone: 'UTC' } },
      },
    ],
    3,
    (i) =>
      [
        { Name: 'a', Code: '12', Qty: 3, Due: '2024-02-28T16:00:00.000Z' },
        { Name: 'b', Code: 'abc', Qty: 1 },
        { Name: 'c', Code: 'true' },
      ][i] as Record<string, unknown>,
  );

type T = Awaited<ReturnType<typeof table>>;

const idOf = (t: T, name: string) => ((t.table.fields as Field[]).find((f) => f.name === name) as Field).id;

const convert = (t: T, fieldId: string, body: Record<string, unknown>) =>
  call('convert-field', { token: t.token, params: { tableId: t.tableId, fieldId }, body });

const cells = async (t: T, name: string) =>
  (await t.listOk()).body.records.map((r: { fields: Record<string, unknown> }) => r.fields[name]);

describe('PUT /table/{tableId}/field/{fieldId}/convert', () => {
  it('text → number: what typecast reads becomes a number, the rest empty; a formula over it re-infers', async () => {
    const t = await table();
    const code = idOf(t, 'Code');
    await call('create-field', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { type: 'formula', name: 'Plus', options: { expression: `{${code}} + 1` } },
    });
    expect(await cells(t, 'Plus')).toEqual(['121', 'abc1', 'true1']);
    const res = await convert(t, code, { type: 'number' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: code, name: 'Code', type: 'number', cellValueType: 'number' });
    expect(await cells(t, 'Code')).toEqual([12, undefined, undefined]);
    expect(await cells(t, 'Plus')).toEqual([13, 1, 1]);
    const fields = await call('list-fields', { token: t.token, params: { tableId: t.tableId } });
    expect(fields.body.find((f: Field) => f.name === 'Plus')).toMatchObject({ cellValueType: 'number' });
  });

  it('number → singleSelect: values become choices; → text and back keeps them', async () => {
    const t = await table();
    const res = await convert(t, idOf(t, 'Qty'), { type: 'singleSelect' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.options.choices.map((c: { name: string }) => c.name).sort()).toEqual(['1.00', '3.00']);
    expect(await cells(t, 'Qty')).toEqual(['3.00', '1.00', undefined]);
    expect((await convert(t, idOf(t, 'Qty'), { type: 'singleLineText', name: 'Qty text' })).body.name).toBe(
      'Qty text',
    );
    expect(await cells(t, 'Qty text')).toEqual(['3.00', '1.00', undefined]);
  });

  it('text → checkbox and date → text through the text form', async () => {
    const t = await table();
    expect((await convert(t, idOf(t, 'Code'), { type: 'checkbox' })).status).toBe(200);
    // a checkbox typecast reads any non-empty text as checked
    expect(await cells(t, 'Code')).toEqual([true, true, true]);
    expect((await convert(t, idOf(t, 'Due'), { type: 'singleLineText' })).status).toBe(200);
    expect(await cells(t, 'Due')).toEqual(['2024-02-28 04:00 PM', undefined, undefined]);
  });

  it('plain → formula replaces the cells; formula → text keeps its text rendering', async () => {
    const t = await table();
    const res = await convert(t, idOf(t, 'Code'), {
      type: 'formula',
      options: { expression: `{${idOf(t, 'Qty')}} * 2` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ type: 'formula', isComputed: true, cellValueType: 'number' });
    expect(await cells(t, 'Code')).toEqual([6, 2, 0]);
    const back = await convert(t, idOf(t, 'Code'), { type: 'singleLineText' });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).not.toHaveProperty('isComputed');
    expect(await cells(t, 'Code')).toEqual(['6.00', '2.00', '0.00']);
  });

  it('refuses links, a unique field changing type, bad definitions and unknown fields; nothing changes', async () => {
    const t = await table();
    const link = await convert(t, idOf(t, 'Code'), {
      type: 'link',
      options: { relationship: 'manyMany', foreignTableId: t.tableId },
    });
    expect(link).toMatchObject(invalid('Converting a field to or from a link is not supported'));
    expect(await convert(t, idOf(t, 'Code'), { type: 'nope' })).toMatchObject({ status: 400 });
    expect(
      await convert(t, idOf(t, 'Code'), { type: 'formula', options: { expression: 'ROUND()' } }),
    ).toMatchObject(invalid('ROUND needs at least 1 param'));
    expect((await convert(t, 'fldAAAAAAAAAAAAAAAA', { type: 'number' })).status).toBe(404);
    expect(await cells(t, 'Code')).toEqual(['12', 'abc', 'true']);
  });

  it('a lookup in another table follows the type of the field it looks up', async () => {
    const t = await table();
    const other = await call('create-table', {
      token: t.token,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'o1' } }] },
    });
    const link = await call('create-field', {
      token: t.token,
      params: { tableId: other.body.id },
      body: { type: 'link', name: 'Items', options: { relationship: 'manyMany', foreignTableId: t.tableId } },
    });
    await call('update-record', {
      token: t.token,
      params: { tableId: other.body.id, recordId: other.body.records[0].id },
      body: { record: { fields: { Items: [{ id: t.ids[0] }, { id: t.ids[1] }] } } },
    });
    const lookup = await call('create-field', {
      token: t.token,
      params: { tableId: other.body.id },
      body: {
        type: 'singleLineText',
        isLookup: true,
        lookupOptions: {
          foreignTableId: t.tableId,
          linkFieldId: link.body.id,
          lookupFieldId: idOf(t, 'Code'),
        },
      },
    });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(201);
    expect((await convert(t, idOf(t, 'Code'), { type: 'number' })).status).toBe(200);
    const got = await call('get-field', {
      token: t.token,
      params: { tableId: other.body.id, fieldId: lookup.body.id },
    });
    expect(got.body).toMatchObject({ type: 'number', cellValueType: 'number', isLookup: true });
    expect(got.body).not.toHaveProperty('hasError');
    const list = await call('list-records', { token: t.token, params: { tableId: other.body.id } });
    expect(list.body.records[0].fields[lookup.body.name]).toEqual([12]);
  });
});
