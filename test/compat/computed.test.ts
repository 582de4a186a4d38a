/**
 * Computed fields through Teable's own client (`@teable/openapi` 1.10.0, pinned): the client's
 * request functions, pointed at the local server, create formula, lookup and rollup fields and
 * read the records back; the answers are checked as a Teable user would check them.
 */
import {
  configApi,
  convertField,
  createBase,
  createField,
  createRecords,
  createSpace,
  createTable,
  getFieldFilterLinkRecords,
  getFields,
  getRecord,
  getRecords,
  updateRecord,
  updateUserName,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** A space, base and two linked tables made through the client. */
const setup = async () => {
  const space = await createSpace({ name: 'Compat' });
  const base = await createBase({ spaceId: space.data.id });
  const parts = await createTable(base.data.id, {
    name: 'Parts',
    fields: [
      { type: 'singleLineText' as never, name: 'Name' },
      { type: 'number' as never, name: 'Cost' },
    ],
    records: [
      { fields: { Name: 'p1', Cost: 5 } },
      { fields: { Name: 'p2' } },
      { fields: { Name: 'p3', Cost: 7 } },
    ],
  });
  const items = await createTable(base.data.id, {
    name: 'Items',
    fields: [
      { type: 'singleLineText' as never, name: 'Name' },
      { type: 'number' as never, name: 'Qty' },
    ],
    records: [{ fields: { Name: 'Bolt', Qty: 3 } }],
  });
  return { parts: parts.data, items: items.data };
};

describe("computed fields through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Compat' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('creates a formula, a lookup and a rollup and reads their values through getRecords', async () => {
    const { parts, items } = await setup();
    const qty = items.fields.find((f) => f.name === 'Qty');
    const cost = parts.fields.find((f) => f.name === 'Cost');
    if (!qty || !cost) throw new Error('fields missing');

    const formula = await createField(items.id, {
      type: 'formula' as never,
      name: 'Double',
      options: { expression: `{${qty.id}} * 2` },
    });
    expect(formula.status).toBe(201);
    expect(formula.data).toMatchObject({ type: 'formula', cellValueType: 'number', isComputed: true });

    const link = await createField(items.id, {
      type: 'link' as never,
      name: 'Parts',
      options: { relationship: 'manyMany', foreignTableId: parts.id } as never,
    });
    const lookupOptions = { foreignTableId: parts.id, linkFieldId: link.data.id, lookupFieldId: cost.id };
    const lookup = await createField(items.id, { type: 'number' as never, isLookup: true, lookupOptions });
    expect(lookup.data).toMatchObject({
      name: 'Cost (from Parts)',
      isLookup: true,
      isMultipleCellValue: true,
      lookupOptions: { ...lookupOptions, relationship: 'manyMany' },
    });
    const rollup = await createField(items.id, {
      type: 'rollup' as never,
      options: { expression: 'sum({values})' } as never,
      lookupOptions,
    });
    expect(rollup.data).toMatchObject({ name: 'Cost Rollup (from Parts)', cellValueType: 'number' });

    const bolt = items.records[0];
    if (!bolt) throw new Error('no record');
    const updated = await updateRecord(items.id, bolt.id, {
      fieldKeyType: 'name' as never,
      record: { fields: { Parts: parts.records.map((r) => ({ id: r.id })) } },
    });
    expect(updated.data.fields).toMatchObject({
      Double: 6,
      [lookup.data.name]: [5, 7],
      [rollup.data.name]: 12,
    });

    const text = await getRecords(items.id, { cellFormat: 'text' as never });
    expect(text.data.records[0]?.fields).toMatchObject({
      Double: '6.00',
      [lookup.data.name]: '5.00, 7.00',
      [rollup.data.name]: '12.00',
    });

    const fields = await getFields(items.id);
    expect(fields.data.find((f) => f.id === formula.data.id)).toMatchObject({ dbFieldType: 'REAL' });
  });

  it('answers a bad expression with a 400 the client raises as an HttpError', async () => {
    const { items } = await setup();
    await expect(
      createField(items.id, { type: 'formula' as never, options: { expression: 'ROUND()' } }),
    ).rejects.toMatchObject({ status: 400, message: 'ROUND needs at least 1 param' });
  });

  it('keeps a formula current for records created through the client', async () => {
    const { items } = await setup();
    const qty = items.fields.find((f) => f.name === 'Qty');
    if (!qty) throw new Error('no Qty');
    await createField(items.id, {
      type: 'formula' as never,
      name: 'Big',
      options: { expression: `IF({${qty.id}} > 5, "big", "small")` },
    });
    const created = await createRecords(items.id, {
      fieldKeyType: 'name' as never,
      records: [{ fields: { Name: 'Nut', Qty: 9 } }],
    });
    expect(created.data.records[0]?.fields.Big).toBe('big');
  });

  it('converts a text field to a number and a formula over it follows (convertField)', async () => {
    const { items } = await setup();
    const name = items.fields.find((f) => f.name === 'Name');
    if (!name) throw new Error('no Name');
    const code = await createField(items.id, { type: 'singleLineText' as never, name: 'Code' });
    await updateRecord(items.id, items.records[0]?.id as string, {
      fieldKeyType: 'name' as never,
      record: { fields: { Code: '41' } },
    });
    await createField(items.id, {
      type: 'formula' as never,
      name: 'Next',
      options: { expression: `{${code.data.id}} + 1` },
    });
    const converted = await convertField(items.id, code.data.id, { type: 'number' as never });
    expect(converted.data).toMatchObject({ id: code.data.id, type: 'number', cellValueType: 'number' });
    const records = await getRecords(items.id, {});
    expect(records.data.records[0]?.fields).toMatchObject({ Code: 41, Next: 42 });
  });

  it('converts a text field to a link and back (convertField), the other side made and removed', async () => {
    const { parts, items } = await setup();
    const code = await createField(items.id, { type: 'singleLineText' as never, name: 'Uses' });
    await updateRecord(items.id, items.records[0]?.id as string, {
      fieldKeyType: 'name' as never,
      record: { fields: { Uses: 'p1, P3' } },
    });
    const linked = await convertField(items.id, code.data.id, {
      type: 'link' as never,
      options: { relationship: 'manyMany', foreignTableId: parts.id } as never,
    });
    expect(linked.data).toMatchObject({ id: code.data.id, type: 'link', isMultipleCellValue: true });
    const records = await getRecords(items.id, {});
    expect(((records.data.records[0]?.fields.Uses ?? []) as { title: string }[]).map((l) => l.title)).toEqual(
      ['p1', 'p3'],
    );
    const symmetricId = (linked.data.options as { symmetricFieldId: string }).symmetricFieldId;
    expect((await getFields(parts.id)).data.some((f) => f.id === symmetricId)).toBe(true);
    const back = await convertField(items.id, code.data.id, { type: 'singleLineText' as never });
    expect(back.data).toMatchObject({ type: 'singleLineText' });
    expect((await getRecords(items.id, {})).data.records[0]?.fields.Uses).toBe('p1, p3');
    expect((await getFields(parts.id)).data.some((f) => f.id === symmetricId)).toBe(false);
  });

  it("names the records of a link's picker filter (getFieldFilterLinkRecords)", async () => {
    const { parts, items } = await setup();
    const p1 = parts.records[0]?.id as string;
    // Parts links Items; Items' link to Parts may only pick parts linked to the item p1 links
    const back = await createField(parts.id, {
      type: 'link' as never,
      name: 'Used in',
      options: { relationship: 'manyMany', foreignTableId: items.id } as never,
    });
    await updateRecord(parts.id, p1, {
      fieldKeyType: 'name' as never,
      record: { fields: { 'Used in': [{ id: items.records[0]?.id }] } },
    });
    const picker = await createField(items.id, {
      type: 'link' as never,
      name: 'Spare',
      options: {
        relationship: 'manyMany',
        foreignTableId: parts.id,
        filter: {
          conjunction: 'and',
          filterSet: [{ fieldId: back.data.id, operator: 'hasAnyOf', value: [items.records[0]?.id] }],
        },
      } as never,
    });
    const named = await getFieldFilterLinkRecords(items.id, picker.data.id);
    expect(named.data).toEqual([
      { tableId: items.id, records: [{ id: items.records[0]?.id, title: 'Bolt' }] },
    ]);
  });

  it('a rename reaches the user cells (updateUserName)', async () => {
    const { items } = await setup();
    const owner = await createField(items.id, { type: 'createdBy' as never, name: 'Made by' });
    expect(owner.data.type).toBe('createdBy');
    await updateUserName({ name: 'Compat Renamed' });
    await drainPurges();
    const records = await getRecords(items.id, {});
    expect(records.data.records[0]?.fields['Made by']).toMatchObject({ title: 'Compat Renamed' });
  });

  it("a many-one lookup follows links removed from the one-many side's cell (Teable's 'update many - one lookupField by remove a linkRecord from cell')", async () => {
    const space = await createSpace({ name: 'Lookups' });
    const baseId = (await createBase({ spaceId: space.data.id })).data.id;
    const fields = (s: string) => [
      { name: `text${s}`, type: 'singleLineText' as never },
      {
        name: `num${s}`,
        type: 'number' as never,
        options: { formatting: { type: 'decimal', precision: 2 } } as never,
      },
    ];
    // no records given: three empty ones, their primary cells empty
    const t1 = (await createTable(baseId, { name: 'table1', fields: fields('1') })).data;
    const t2 = (await createTable(baseId, { name: 'table2', fields: fields('2') })).data;
    const r1 = t1.records[1]?.id as string;
    const [s1, s2] = t2.records.slice(1).map((r) => r.id) as [string, string];
    const link = (
      await createField(t1.id, {
        type: 'link' as never,
        options: { relationship: 'oneMany', foreignTableId: t2.id } as never,
      })
    ).data;
    const back = (await getFields(t2.id)).data.find((f) => f.type === 'link') as { id: string };
    const lookup = (
      await createField(t2.id, {
        type: 'number' as never,
        isLookup: true,
        lookupOptions: {
          foreignTableId: t1.id,
          linkFieldId: back.id,
          lookupFieldId: t1.fields[1]?.id,
        } as never,
      })
    ).data;
    const put = (tableId: string, recordId: string, fieldId: string, value: unknown) =>
      updateRecord(tableId, recordId, {
        fieldKeyType: 'id' as never,
        record: { fields: { [fieldId]: value } },
      });
    const looked = async (recordId: string) =>
      (await getRecord(t2.id, recordId, { fieldKeyType: 'id' as never })).data.fields[lookup.id];

    await put(t1.id, r1, t1.fields[1]?.id as string, 123);
    await put(t1.id, r1, link.id, [{ id: s1 }, { id: s2 }]);
    expect([await looked(s1), await looked(s2)]).toEqual([123, 123]);
    const updated = await put(t1.id, r1, link.id, [{ id: s1 }]);
    // the linked record's primary cell is empty: an item without a title
    expect(updated.data.fields[link.id]).toEqual([{ id: s1 }]);
    expect([await looked(s1), await looked(s2)]).toEqual([123, undefined]);
    await put(t1.id, r1, link.id, null);
    expect(await looked(s1)).toBeUndefined();
    await put(t2.id, s1, back.id, { id: r1 });
    expect(await looked(s1)).toBe(123);
  });
});
