/**
 * `PUT /table/{t}/field/{f}/convert` (teable-routes.md "Field", computed.md 8): a field takes a
 * new type and options; cells are converted through their text form, or computed; dependents
 * follow in the same write.
 */
import { describe, expect, it } from 'vitest';
import type { Field } from '#test/support/answers.ts';
import { invalid } from '#test/support/answers.ts';
import { uploadFile } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable, newTable } from '#test/support/workspace.ts';

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

  it('refuses a unique field changing type, bad definitions and unknown fields; nothing changes', async () => {
    const t = await table();
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

  describe('validation options over existing data', () => {
    /** Two records as a message names them: in id order. */
    const pair = (t: T, i: number, j: number) => [t.ids[i], t.ids[j]].sort().join(' and ');
    const update = (t: T, recordId: string, fields: Record<string, unknown>) =>
      call('update-record', {
        token: t.token,
        params: { tableId: t.tableId, recordId },
        body: { record: { fields } },
      });

    it('unique over a repeated value is a 400 naming both records; the field stays as it was', async () => {
      const t = await table();
      const code = idOf(t, 'Code');
      await update(t, t.ids[1] as string, { Code: ' 12 ' });

      const res = await convert(t, code, { type: 'singleLineText', unique: true });

      expect(res).toMatchObject(
        invalid(`Field "Code" (${code}) cannot be unique: records ${pair(t, 0, 1)} hold the same value`),
      );
      const field = await call('get-field', {
        token: t.token,
        params: { tableId: t.tableId, fieldId: code },
      });
      expect(field.body.unique).toBeUndefined();
      expect((await update(t, t.ids[2] as string, { Code: '12' })).status).toBe(200);
    });

    it('unique over distinct values claims them: a repeat is then a 400, until unique is turned off', async () => {
      const t = await table();
      const code = idOf(t, 'Code');

      const on = await convert(t, code, { type: 'singleLineText', unique: true });

      expect(on.status, JSON.stringify(on.body)).toBe(200);
      expect(on.body.unique).toBe(true);
      expect(await update(t, t.ids[2] as string, { Code: 'ABC' })).toMatchObject(
        invalid(`Field "Code" (${code}) must be unique: the value is already used`),
      );
      expect((await update(t, t.ids[1] as string, { Code: 'free' })).status).toBe(200);
      expect((await update(t, t.ids[2] as string, { Code: 'abc' })).status).toBe(200);
      const off = await convert(t, code, { type: 'singleLineText', unique: false });
      expect(off.status).toBe(200);
      expect((await update(t, t.ids[0] as string, { Code: 'abc' })).status).toBe(200);
      // on again: the claims follow today's values, not the ones of the first time
      expect(await convert(t, code, { type: 'singleLineText', unique: true })).toMatchObject(
        invalid(`Field "Code" (${code}) cannot be unique: records ${pair(t, 0, 2)} hold the same value`),
      );
      await update(t, t.ids[0] as string, { Code: 'free' });
      expect(await convert(t, code, { type: 'singleLineText', unique: true })).toMatchObject(
        invalid(`Field "Code" (${code}) cannot be unique: records ${pair(t, 0, 1)} hold the same value`),
      );
      await update(t, t.ids[0] as string, { Code: '12' });
      expect((await convert(t, code, { type: 'singleLineText', unique: true })).status).toBe(200);
      expect((await update(t, t.ids[1] as string, { Code: 'free again' })).status).toBe(200);
      expect((await update(t, t.ids[0] as string, { Code: 'free' })).status).toBe(200);
    });

    it('notNull over an empty cell is a 400 naming the record; over full cells it holds', async () => {
      const t = await table();
      const qty = idOf(t, 'Qty');

      expect(await convert(t, qty, { type: 'number', notNull: true })).toMatchObject(
        invalid(`Field "Qty" is notNull: record ${t.ids[2]} would be empty after the conversion`),
      );
      await update(t, t.ids[2] as string, { Qty: 0 });
      const res = await convert(t, qty, { type: 'number', notNull: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await update(t, t.ids[2] as string, { Qty: null })).toMatchObject({ status: 400 });
    });
  });

  describe('to and from a link', () => {
    /** The table of `table()` and table Other (o1, o2, O3) in its base. */
    const withOther = async () => {
      const t = await table();
      const other = await call('create-table', {
        token: t.token,
        params: { baseId: t.baseId },
        body: { name: 'Other', records: ['o1', 'o2', 'O3'].map((Name) => ({ fields: { Name } })) },
      });
      expect(other.status).toBe(201);
      const otherIds = other.body.records.map((r: { id: string }) => r.id) as string[];
      const otherRows = async () =>
        (await call('list-records', { token: t.token, params: { tableId: other.body.id } })).body.records.map(
          (r: { fields: Record<string, unknown> }) => r.fields,
        );
      const otherFields = async () =>
        (await call('list-fields', { token: t.token, params: { tableId: other.body.id } })).body as Field[];
      return { t, otherId: other.body.id as string, otherIds, otherRows, otherFields };
    };
    const setCodes = (t: T, codes: (string | null)[]) =>
      call('update-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: { records: codes.map((Code, i) => ({ id: t.ids[i], fields: { Code } })) },
      });

    it('text → link: titles (any case) and ids name records; the other side is created and filled', async () => {
      const w = await withOther();
      const { t } = w;
      expect((await setCodes(t, ['o1, o2', 'o3', `zzz, ${w.otherIds[1]}`])).status).toBe(200);
      const res = await convert(t, idOf(t, 'Code'), {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: w.otherId },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        id: idOf(t, 'Code'),
        name: 'Code',
        type: 'link',
        isMultipleCellValue: true,
      });
      const [o1, o2, o3] = w.otherIds as [string, string, string];
      expect(await cells(t, 'Code')).toEqual([
        [
          { id: o1, title: 'o1' },
          { id: o2, title: 'o2' },
        ],
        [{ id: o3, title: 'O3' }],
        [{ id: o2, title: 'o2' }],
      ]);
      const sym = (await w.otherFields()).find((f) => f.id === res.body.options.symmetricFieldId) as Field;
      expect(sym).toMatchObject({ type: 'link', name: 'Table' });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r[sym.name])).toEqual([
        [{ id: t.ids[0], title: 'a' }],
        [
          { id: t.ids[0], title: 'a' },
          { id: t.ids[2], title: 'c' },
        ],
        [{ id: t.ids[1], title: 'b' }],
      ]);
      // the link now writes both sides like any link
      const moved = await call('update-record', {
        token: t.token,
        params: { tableId: t.tableId, recordId: t.ids[1] as string },
        body: { record: { fields: { Code: null } } },
      });
      expect(moved.status).toBe(200);
      expect((await w.otherRows())[2]?.[sym.name]).toBeUndefined();
    });

    it('text → a link to one record keeps the first name; a one-way link makes no other side', async () => {
      const w = await withOther();
      const { t } = w;
      await setCodes(t, ['o2, o1', null, 'o1']);
      const res = await convert(t, idOf(t, 'Code'), {
        type: 'link',
        options: { relationship: 'manyOne', foreignTableId: w.otherId, isOneWay: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await cells(t, 'Code')).toEqual([
        { id: w.otherIds[1], title: 'o2' },
        undefined,
        { id: w.otherIds[0], title: 'o1' },
      ]);
      expect((await w.otherFields()).filter((f) => f.type === 'link')).toEqual([]);
    });

    it('text → a link to its own table: the other side is a new field of the table', async () => {
      const t = await table();
      await setCodes(t, ['b, c', 'a', null]);
      const res = await convert(t, idOf(t, 'Code'), {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: t.tableId },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const fields = (await call('list-fields', { token: t.token, params: { tableId: t.tableId } }))
        .body as Field[];
      const sym = fields.find((f) => f.id === res.body.options.symmetricFieldId) as Field;
      expect(sym).toMatchObject({
        type: 'link',
        options: { foreignTableId: t.tableId, symmetricFieldId: res.body.id },
      });
      expect(await cells(t, 'Code')).toEqual([
        [
          { id: t.ids[1], title: 'b' },
          { id: t.ids[2], title: 'c' },
        ],
        [{ id: t.ids[0], title: 'a' }],
        undefined,
      ]);
      expect(await cells(t, sym.name)).toEqual([
        [{ id: t.ids[1], title: 'b' }],
        [{ id: t.ids[0], title: 'a' }],
        [{ id: t.ids[0], title: 'a' }],
      ]);
    });

    it('link → text: cells become their titles and the other side is deleted', async () => {
      const w = await withOther();
      const { t } = w;
      await setCodes(t, ['o1, o2', null, 'o3']);
      const linked = await convert(t, idOf(t, 'Code'), {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: w.otherId },
      });
      expect(linked.status).toBe(200);
      const back = await convert(t, idOf(t, 'Code'), { type: 'singleLineText' });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect(back.body).toMatchObject({ type: 'singleLineText', cellValueType: 'string' });
      expect(back.body.options).not.toHaveProperty('foreignTableId');
      expect(await cells(t, 'Code')).toEqual(['o1, o2', undefined, 'O3']);
      expect((await w.otherFields()).filter((f) => f.type === 'link')).toEqual([]);
      const fieldNames = new Set((await w.otherFields()).map((f) => f.name));
      for (const row of await w.otherRows())
        for (const name of Object.keys(row)) expect(fieldNames).toContain(name);
    });

    /** Link field `Refs` of `relationship` from the table to Other, and the given links per row. */
    const linkedRefs = async (
      w: Awaited<ReturnType<typeof withOther>>,
      relationship: string,
      rows: number[][],
      extra: Record<string, unknown> = {},
    ) => {
      const { t } = w;
      const link = await call('create-field', {
        token: t.token,
        params: { tableId: t.tableId },
        body: { type: 'link', name: 'Refs', options: { relationship, foreignTableId: w.otherId, ...extra } },
      });
      expect(link.status, JSON.stringify(link.body)).toBe(201);
      const single = relationship === 'manyOne' || relationship === 'oneOne';
      const written = await call('update-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: {
          records: rows.map((row, i) => {
            const refs = row.map((n) => ({ id: w.otherIds[n] }));
            return { id: t.ids[i], fields: { Refs: refs.length ? (single ? refs[0] : refs) : null } };
          }),
        },
      });
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      return link.body as Field & { options: { symmetricFieldId?: string } };
    };
    const lookupIn = async (token: string, tableId: string, name: string, lookupOptions: object) => {
      const res = await call('create-field', {
        token,
        params: { tableId },
        body: { type: 'singleLineText', isLookup: true, name, lookupOptions },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Field;
    };
    const fieldOf = async (token: string, tableId: string, fieldId: string) =>
      (await call('get-field', { token, params: { tableId, fieldId } })).body as Field & {
        options: Record<string, unknown>;
        hasError?: boolean;
      };

    it('link → link of the same table, its other side still a list: each cell keeps its first record, the other side keeps its id and name and follows, a lookup through it is defined anew', async () => {
      const w = await withOther();
      const { t } = w;
      const [o1, o2] = w.otherIds as [string, string, string];
      const link = await linkedRefs(w, 'manyMany', [[0, 1], [1], []]);
      const names = await lookupIn(t.token, t.tableId, 'Names', {
        foreignTableId: w.otherId,
        linkFieldId: link.id,
        lookupFieldId: (await w.otherFields())[0]?.id,
      });
      expect(await cells(t, 'Names')).toEqual([['o1', 'o2'], ['o2'], undefined]);
      const sideBefore = await fieldOf(t.token, w.otherId, link.options.symmetricFieldId as string);

      const res = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'manyOne', foreignTableId: w.otherId },
      });

      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id: link.id, name: 'Refs', type: 'link', dbFieldType: 'JSON' });
      expect(res.body.isMultipleCellValue).toBeUndefined();
      expect(res.body.options).toMatchObject({ relationship: 'manyOne', symmetricFieldId: sideBefore.id });
      expect(await cells(t, 'Refs')).toEqual([{ id: o1, title: 'o1' }, { id: o2, title: 'o2' }, undefined]);
      const side = await fieldOf(t.token, w.otherId, sideBefore.id);
      expect(side).toMatchObject({
        name: sideBefore.name,
        options: { relationship: 'oneMany', symmetricFieldId: link.id },
        isMultipleCellValue: true,
      });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r[side.name])).toEqual([
        [{ id: t.ids[0], title: 'a' }],
        [{ id: t.ids[1], title: 'b' }],
        undefined,
      ]);
      expect(await fieldOf(t.token, t.tableId, names.id)).toMatchObject({ id: names.id, name: 'Names' });
      const lookup = await fieldOf(t.token, t.tableId, names.id);
      expect(lookup.hasError).toBeUndefined();
      expect(lookup.isMultipleCellValue).toBeUndefined(); // through a link to one record, one value
      expect(await cells(t, 'Names')).toEqual(['o1', 'o2', undefined]);
    });

    it('manyOne → oneOne: the other side becomes single, so it is made anew under its name; a record two records link stays with the first; what read the old side is broken and empty', async () => {
      const w = await withOther();
      const { t } = w;
      const [o1, o2] = w.otherIds as [string, string, string];
      const link = await linkedRefs(w, 'manyOne', [[0], [0], [1]]);
      const oldSide = await fieldOf(t.token, w.otherId, link.options.symmetricFieldId as string);
      const codes = await lookupIn(t.token, w.otherId, 'Codes', {
        foreignTableId: t.tableId,
        linkFieldId: oldSide.id,
        lookupFieldId: idOf(t, 'Name'),
      });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r.Codes)).toEqual([
        ['a', 'b'],
        ['c'],
        undefined,
      ]);

      const res = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'oneOne', foreignTableId: w.otherId },
      });

      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const newSide = res.body.options.symmetricFieldId as string;
      expect(newSide).not.toBe(oldSide.id);
      expect(await cells(t, 'Refs')).toEqual([{ id: o1, title: 'o1' }, undefined, { id: o2, title: 'o2' }]);
      const fields = await w.otherFields();
      expect(fields.find((f) => f.id === oldSide.id)).toBeUndefined();
      expect(fields.find((f) => f.id === newSide)).toMatchObject({
        name: oldSide.name,
        dbFieldName: oldSide.dbFieldName,
        options: { relationship: 'oneOne', symmetricFieldId: link.id },
      });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r[oldSide.name])).toEqual([
        { id: t.ids[0], title: 'a' },
        { id: t.ids[2], title: 'c' },
        undefined,
      ]);
      expect(await fieldOf(t.token, w.otherId, codes.id)).toMatchObject({ hasError: true });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r.Codes)).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    });

    it('two-way → one-way deletes the other side and keeps the cells; one-way → two-way makes it and fills it', async () => {
      const w = await withOther();
      const { t } = w;
      const [o1, o2] = w.otherIds as [string, string, string];
      const link = await linkedRefs(w, 'manyMany', [[0, 1], [], [1]]);

      const oneWay = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: w.otherId, isOneWay: true },
      });

      expect(oneWay.status, JSON.stringify(oneWay.body)).toBe(200);
      expect(oneWay.body.options).not.toHaveProperty('symmetricFieldId');
      expect((await w.otherFields()).filter((f) => f.type === 'link')).toEqual([]);
      const kept = [
        [
          { id: o1, title: 'o1' },
          { id: o2, title: 'o2' },
        ],
        undefined,
        [{ id: o2, title: 'o2' }],
      ];
      expect(await cells(t, 'Refs')).toEqual(kept);

      const twoWay = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: w.otherId },
      });

      expect(twoWay.status, JSON.stringify(twoWay.body)).toBe(200);
      expect(await cells(t, 'Refs')).toEqual(kept);
      const side = await fieldOf(t.token, w.otherId, twoWay.body.options.symmetricFieldId);
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r[side.name])).toEqual([
        [{ id: t.ids[0], title: 'a' }],
        [
          { id: t.ids[0], title: 'a' },
          { id: t.ids[2], title: 'c' },
        ],
        undefined,
      ]);
    });

    it('a link to another table: cells are matched by title there, the old side goes and the new is filled, a lookup through it is broken', async () => {
      const w = await withOther();
      const { t } = w;
      const link = await linkedRefs(w, 'manyMany', [[0, 1], [2], []]);
      const names = await lookupIn(t.token, t.tableId, 'Names', {
        foreignTableId: w.otherId,
        linkFieldId: link.id,
        lookupFieldId: (await w.otherFields())[0]?.id,
      });
      const third = await call('create-table', {
        token: t.token,
        params: { baseId: t.baseId },
        body: { name: 'Third', records: ['O1', 'x', 'o3'].map((Name) => ({ fields: { Name } })) },
      });
      const [x1, , x3] = third.body.records.map((r: { id: string }) => r.id) as string[];

      const res = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: third.body.id },
      });

      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await cells(t, 'Refs')).toEqual([
        [{ id: x1, title: 'O1' }],
        [{ id: x3, title: 'o3' }],
        undefined,
      ]);
      expect((await w.otherFields()).filter((f) => f.type === 'link')).toEqual([]);
      const side = await fieldOf(t.token, third.body.id, res.body.options.symmetricFieldId);
      const thirdRows = await call('list-records', { token: t.token, params: { tableId: third.body.id } });
      expect(
        thirdRows.body.records.map((r: { fields: Record<string, unknown> }) => r.fields[side.name]),
      ).toEqual([[{ id: t.ids[0], title: 'a' }], undefined, [{ id: t.ids[1], title: 'b' }]]);
      expect(await fieldOf(t.token, t.tableId, names.id)).toMatchObject({ hasError: true });
      expect(await cells(t, 'Names')).toEqual([undefined, undefined, undefined]);
    });

    it('a lookup broken by converting its link to text mends when the field is a link to that table again', async () => {
      const w = await withOther();
      const { t } = w;
      const link = await linkedRefs(w, 'manyMany', [[0, 1], [], [2]]);
      const names = await lookupIn(t.token, t.tableId, 'Names', {
        foreignTableId: w.otherId,
        linkFieldId: link.id,
        lookupFieldId: (await w.otherFields())[0]?.id,
      });
      expect((await convert(t, link.id, { type: 'singleLineText' })).status).toBe(200);
      expect(await fieldOf(t.token, t.tableId, names.id)).toMatchObject({ hasError: true });

      const back = await convert(t, link.id, {
        type: 'link',
        options: { relationship: 'manyMany', foreignTableId: w.otherId },
      });

      expect(back.status, JSON.stringify(back.body)).toBe(200);
      expect((await fieldOf(t.token, t.tableId, names.id)).hasError).toBeUndefined();
      expect(await cells(t, 'Names')).toEqual([['o1', 'o2'], undefined, ['O3']]);
    });

    it('a self-link manyMany → manyOne keeps its other side in the table, which follows', async () => {
      const t = await table();
      const link = await call('create-field', {
        token: t.token,
        params: { tableId: t.tableId },
        body: {
          type: 'link',
          name: 'Refs',
          options: { relationship: 'manyMany', foreignTableId: t.tableId },
        },
      });
      expect(link.status).toBe(201);
      const [a, b, c] = t.ids as [string, string, string];
      await call('update-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: {
          records: [
            { id: a, fields: { Refs: [{ id: b }, { id: c }] } },
            { id: b, fields: { Refs: [{ id: c }] } },
          ],
        },
      });
      const sideId = link.body.options.symmetricFieldId as string;
      const sideName = (await fieldOf(t.token, t.tableId, sideId)).name;

      const res = await convert(t, link.body.id, {
        type: 'link',
        options: { relationship: 'manyOne', foreignTableId: t.tableId },
      });

      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.options.symmetricFieldId).toBe(sideId);
      expect(await fieldOf(t.token, t.tableId, sideId)).toMatchObject({
        name: sideName,
        options: { relationship: 'oneMany' },
        isMultipleCellValue: true,
      });
      expect(await cells(t, 'Refs')).toEqual([{ id: b, title: 'b' }, { id: c, title: 'c' }, undefined]);
      expect(await cells(t, sideName)).toEqual([undefined, [{ id: a, title: 'a' }], [{ id: b, title: 'b' }]]);
    });

    it('link → text with lookups through it and through its other side: converted, and both lookups are broken and empty', async () => {
      const w = await withOther();
      const { t } = w;
      const link = await linkedRefs(w, 'manyMany', [[0, 1], [], [2]]);
      const names = await lookupIn(t.token, t.tableId, 'Names', {
        foreignTableId: w.otherId,
        linkFieldId: link.id,
        lookupFieldId: (await w.otherFields())[0]?.id,
      });
      const codes = await lookupIn(t.token, w.otherId, 'Codes', {
        foreignTableId: t.tableId,
        linkFieldId: link.options.symmetricFieldId,
        lookupFieldId: idOf(t, 'Name'),
      });

      const res = await convert(t, link.id, { type: 'singleLineText' });

      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await cells(t, 'Refs')).toEqual(['o1, o2', undefined, 'O3']);
      expect(await fieldOf(t.token, t.tableId, names.id)).toMatchObject({ hasError: true });
      expect(await cells(t, 'Names')).toEqual([undefined, undefined, undefined]);
      expect(await fieldOf(t.token, w.otherId, codes.id)).toMatchObject({ hasError: true });
      expect((await w.otherRows()).map((r: Record<string, unknown>) => r.Codes)).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    });
  });

  it('an attachment converted to an attachment (a rename through convert) keeps its files', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'attachment', name: 'Files' },
      ],
      records: [],
    });
    const file = await uploadFile(t.owner.auth, t.baseId);
    const files = (t.table.fields as Field[]).find((f) => f.name === 'Files') as Field;
    const created = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'a', Files: [{ name: 'hello.txt', token: file.token }] } }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await call('convert-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: files.id },
      body: { type: 'attachment', name: 'Documents' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const record = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: created.body.records[0].id },
    });
    expect(record.body.fields.Documents).toEqual([
      expect.objectContaining({ name: 'hello.txt', token: file.token, size: file.size }),
    ]);
  });

  it.each([
    ['singleSelect', ['a', 'b', 'c'], ['A', undefined, 'c']],
    ['multipleSelect', [['a', 'b'], ['b'], ['c', 'a']], [['A'], undefined, ['c', 'A']]],
  ])(
    'a %s converted to its kind follows its choices by id: renamed, removed, kept',
    async (type, given, after) => {
      const t = await newTable({
        fields: [
          { type: 'singleLineText', name: 'Name' },
          { type, name: 'Pick', options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
        ],
        records: (given as unknown[]).map((Pick, i) => ({ fields: { Name: `r${i}`, Pick } })),
      });
      const pick = (t.table.fields as Field[]).find((f) => f.name === 'Pick') as Field;
      const [a, , c] = (pick.options as { choices: { id: string; name: string }[] }).choices;
      const res = await call('convert-field', {
        token: t.owner.auth,
        params: { tableId: t.tableId, fieldId: pick.id },
        body: { type, options: { choices: [{ ...a, name: 'A' }, c] } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // no choice comes back for the removed one
      expect(res.body.options.choices.map((ch: { name: string }) => ch.name)).toEqual(['A', 'c']);
      const listed = await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId } });
      const byName = Object.fromEntries(
        listed.body.records.map((r: { fields: Record<string, unknown> }) => [r.fields.Name, r.fields.Pick]),
      );
      expect([byName.r0, byName.r1, byName.r2]).toEqual(after);
    },
  );
});
