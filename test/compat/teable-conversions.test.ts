/**
 * Teable's own conversion cases (`field-converting.e2e-spec.ts`) that this service meets, through
 * Teable's client with Teable's inputs and expectations: select choices followed by id, links to
 * text, a text converted to a select with choices in record order, a lookup of a link moved to
 * another link. The cases it differs on by decision are listed in the README ("Where it differs
 * from Teable"); Teable's helpers (`init-app.ts`) are reproduced over the client below.
 */
import {
  convertField as apiConvertField,
  createField as apiCreateField,
  createRecords as apiCreateRecords,
  createTable as apiCreateTable,
  getField as apiGetField,
  getRecord as apiGetRecord,
  getRecords as apiGetRecords,
  updateRecord as apiUpdateRecord,
  configApi,
  createBase,
  createSpace,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

// biome-ignore lint/suspicious/noExplicitAny: Teable's cases handle fields and records as loosely as its IFieldVo
type Any = any;
type Field = Any;
type Rec = { id: string; fields: Record<string, Any> };
type Table = { id: string; name: string; fields: Field[]; records: Rec[] };

// ---- Teable's test/utils/init-app.ts helpers, reproduced over the client ----
const createTable = async (baseId: string, ro: Any): Promise<Table> => {
  const res = await apiCreateTable(baseId, ro);
  expect(res.status).toEqual(201);
  return res.data as unknown as Table;
};
const createField = async (tableId: string, ro: Any): Promise<Field> => {
  const res = await apiCreateField(tableId, ro as never);
  expect(res.status).toEqual(201);
  return res.data;
};
const convertField = async (tableId: string, fieldId: string, ro: Any): Promise<Field> => {
  const res = await apiConvertField(tableId, fieldId, ro as never);
  expect(res.status).toEqual(200);
  return res.data;
};
const getField = async (tableId: string, fieldId: string): Promise<Field> => {
  const res = await apiGetField(tableId, fieldId);
  expect(res.status).toEqual(200);
  return res.data;
};
const getRecord = async (tableId: string, recordId: string, cellFormat?: 'json' | 'text'): Promise<Rec> => {
  const res = await apiGetRecord(tableId, recordId, {
    fieldKeyType: 'id' as never,
    cellFormat: cellFormat as never,
  });
  expect(res.status).toEqual(200);
  return res.data as Rec;
};
const getRecords = async (tableId: string, query?: Any): Promise<{ records: Rec[] }> => {
  const res = await apiGetRecords(tableId, query);
  return res.data as Any;
};
const createRecords = async (tableId: string, ro: Any): Promise<{ records: Rec[] }> => {
  const res = await apiCreateRecords(tableId, {
    ...ro,
    fieldKeyType: ro.fieldKeyType ?? 'id',
    records: ro.records,
    typecast: ro.typecast ?? false,
  });
  expect(res.status).toEqual(201);
  return res.data as Any;
};
const updateRecordByApi = async (
  tableId: string,
  recordId: string,
  fieldId: string,
  newValue: unknown,
): Promise<Rec> => {
  const res = await apiUpdateRecord(tableId, recordId, {
    record: { fields: { [fieldId]: newValue } },
    fieldKeyType: 'id' as never,
  } as never);
  expect(res.status).toEqual(200);
  return res.data as Rec;
};

/** A fresh space and base, with Teable's bfAf() tables table1..table3 (default fields, 3 empty records). */
const setup = async () => {
  const space = await createSpace({ name: 'Conv' });
  const base = await createBase({ spaceId: space.data.id });
  const baseId = base.data.id;
  const table1 = await createTable(baseId, { name: 'table1' });
  const table2 = await createTable(baseId, { name: 'table2' });
  const table3 = await createTable(baseId, { name: 'table3' });
  return { baseId, table1, table2, table3 };
};

async function expectUpdate(
  table: Table,
  sourceFieldRo: Any,
  newFieldRo: Any,
  values: unknown[] = [],
  createdCallback?: (newField: Field) => Promise<void>,
  appendBlankRow?: number,
) {
  const sourceField = await createField(table.id, sourceFieldRo);
  await createdCallback?.(sourceField);
  if (appendBlankRow) {
    const records = [];
    for (let i = 0; i < appendBlankRow; i++) records.push({ fields: {} });
    const createData = await createRecords(table.id, { records });
    table.records.push(...createData.records);
  }
  for (const i in values) {
    const value = values[i];
    value != null &&
      (await updateRecordByApi(table.id, table.records[Number(i)]?.id as string, sourceField.id, value));
  }
  await convertField(table.id, sourceField.id, newFieldRo);
  const newField = await getField(table.id, sourceField.id);
  const records: Rec[] = [];
  for (let i = 0; i < values.length; i++) {
    records.push(await getRecord(table.id, table.records[i]?.id as string));
  }
  const result = records.map((record) => record.fields[newField.id]);
  return { newField, sourceField, values: result, records };
}

describe("Teable's conversion cases through its client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Conv' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('3 should change choices for single select', async () => {
    const { table1 } = await setup();
    const sourceFieldRo = {
      type: 'singleSelect',
      options: {
        choices: [
          { id: 'choX', name: 'x', color: 'cyan' },
          { id: 'choY', name: 'y', color: 'blue' },
        ],
      },
    };
    const newFieldRo = {
      type: 'singleSelect',
      options: { choices: [{ id: 'choX', name: 'xx', color: 'gray' }] },
    };
    const { newField, values } = await expectUpdate(table1, sourceFieldRo, newFieldRo, ['x', 'y']);
    expect(newField).toMatchObject({
      cellValueType: 'string',
      dbFieldType: 'TEXT',
      options: { choices: [{ name: 'xx', color: 'gray' }] },
      type: 'singleSelect',
    });
    expect(values[0]).toEqual('xx');
    expect(values[1]).toEqual(undefined);
  });

  it('4 should change choices for multiple select', async () => {
    const { table1 } = await setup();
    const sourceFieldRo = {
      type: 'multipleSelect',
      options: {
        choices: [
          { id: 'choX', name: 'x', color: 'cyan' },
          { id: 'choY', name: 'y', color: 'blue' },
        ],
      },
    };
    const newFieldRo = {
      type: 'multipleSelect',
      options: { choices: [{ id: 'choX', name: 'xx', color: 'cyan' }] },
    };
    const { newField, values } = await expectUpdate(table1, sourceFieldRo, newFieldRo, [
      ['x'],
      ['x', 'y'],
      ['y'],
    ]);
    expect(newField).toMatchObject({
      cellValueType: 'string',
      isMultipleCellValue: true,
      dbFieldType: 'JSON',
      options: { choices: [{ name: 'xx', color: 'cyan' }] },
      type: 'multipleSelect',
    });
    expect(values[0]).toEqual(['xx']);
    expect(values[1]).toEqual(['xx']);
    expect(values[2]).toEqual(undefined);
  });

  it('7a should convert many-one link to text', async () => {
    const { table1, table2 } = await setup();
    const sourceFieldRo = { type: 'link', options: { relationship: 'manyOne', foreignTableId: table2.id } };
    await updateRecordByApi(table2.id, table2.records[0]?.id as string, table2.fields[0].id, 'x');
    await updateRecordByApi(table2.id, table2.records[1]?.id as string, table2.fields[0].id, 'y');
    const { newField, sourceField, values } = await expectUpdate(
      table1,
      sourceFieldRo,
      { type: 'singleLineText' },
      [{ id: table2.records[0]?.id as string }],
    );
    await expect(
      apiGetField(sourceField.options.foreignTableId, sourceField.options.symmetricFieldId),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(newField).toMatchObject({ cellValueType: 'string', dbFieldType: 'TEXT', type: 'singleLineText' });
    expect(values[0]).toEqual('x');
  });

  it('7b should convert one-many link to text', async () => {
    const { table1, table2 } = await setup();
    const sourceFieldRo = { type: 'link', options: { relationship: 'oneMany', foreignTableId: table2.id } };
    await updateRecordByApi(table2.id, table2.records[0]?.id as string, table2.fields[0].id, 'x');
    await updateRecordByApi(table2.id, table2.records[1]?.id as string, table2.fields[0].id, 'y');
    const { newField, sourceField, values } = await expectUpdate(
      table1,
      sourceFieldRo,
      { type: 'singleLineText' },
      [[{ id: table2.records[0]?.id as string }, { id: table2.records[1]?.id as string }]],
    );
    await expect(
      apiGetField(sourceField.options.foreignTableId, sourceField.options.symmetricFieldId),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(newField).toMatchObject({ cellValueType: 'string', dbFieldType: 'TEXT', type: 'singleLineText' });
    expect(values[0]).toEqual('x, y');
  });

  it('8 should convert text field to select and relational one-many lookup field', async () => {
    const { table1, table2 } = await setup();
    const linkField = await createField(table1.id, {
      type: 'link',
      options: { relationship: 'oneMany', foreignTableId: table2.id },
    });
    const sourceField = await createField(table2.id, { type: 'singleLineText' });
    const lookupField = await createField(table1.id, {
      name: `lookup ${sourceField.name}`,
      type: sourceField.type,
      isLookup: true,
      lookupOptions: { foreignTableId: table2.id, lookupFieldId: sourceField.id, linkFieldId: linkField.id },
    });
    expect(lookupField).toMatchObject({
      type: sourceField.type,
      dbFieldType: 'JSON',
      isMultipleCellValue: true,
      isLookup: true,
      lookupOptions: {
        relationship: 'oneMany',
        foreignTableId: table2.id,
        lookupFieldId: sourceField.id,
        linkFieldId: linkField.id,
      },
    });
    await updateRecordByApi(table1.id, table1.records[0]?.id as string, linkField.id, [
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    await updateRecordByApi(table2.id, table2.records[0]?.id as string, sourceField.id, 'text 1');
    await updateRecordByApi(table2.id, table2.records[1]?.id as string, sourceField.id, 'text 2');
    const recordResult1 = await getRecords(table1.id, { fieldKeyType: 'id' });
    expect(recordResult1.records[0]?.fields[lookupField.id]).toEqual(['text 1', 'text 2']);

    const newField = await convertField(table2.id, sourceField.id, { type: 'singleSelect' });
    const newLookupField = await getField(table1.id, lookupField.id);
    expect(newField).toMatchObject({
      cellValueType: 'string',
      dbFieldType: 'TEXT',
      type: 'singleSelect',
      options: { choices: [{ name: 'text 1' }, { name: 'text 2' }] },
    });
    expect(newLookupField).toMatchObject({
      type: newField.type,
      isLookup: true,
      dbFieldType: 'JSON',
      cellValueType: newField.cellValueType,
      isMultipleCellValue: true,
      options: newField.options,
      lookupOptions: {
        relationship: 'oneMany',
        foreignTableId: table2.id,
        lookupFieldId: sourceField.id,
        linkFieldId: linkField.id,
      },
    });
    const recordResult2 = await getRecords(table1.id, { fieldKeyType: 'id' });
    expect(recordResult2.records[0]?.fields[lookupField.id]).toEqual(['text 1', 'text 2']);
  });

  it('11 should change lookupField from link to text', async () => {
    const { table1, table2 } = await setup();
    const linkField = await createField(table1.id, {
      type: 'link',
      options: { relationship: 'oneMany', foreignTableId: table2.id },
    });
    const symmetricLinkField = await getField(table2.id, linkField.options.symmetricFieldId);
    const lookupField = await createField(table1.id, {
      type: 'link',
      isLookup: true,
      lookupOptions: {
        foreignTableId: table2.id,
        lookupFieldId: symmetricLinkField.id,
        linkFieldId: linkField.id,
      },
    });
    await updateRecordByApi(table1.id, table1.records[0]?.id as string, linkField.id, [
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    await convertField(table1.id, lookupField.id, {
      type: 'singleLineText',
      isLookup: true,
      lookupOptions: {
        foreignTableId: table2.id,
        lookupFieldId: table2.fields[0].id,
        linkFieldId: linkField.id,
      },
    });
    const linkFieldAfter = await getField(table1.id, linkField.id);
    expect(linkFieldAfter).toMatchObject(linkField);
    const records = (await getRecords(table1.id, { fieldKeyType: 'id' })).records;
    expect(records[0]?.fields[linkField.id]).toEqual([
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    expect(records[0]?.fields[lookupField.id]).toBeUndefined();
  });

  it('12 should change lookupField from link to other link', async () => {
    const { table1, table2 } = await setup();
    const linkField1 = await createField(table1.id, {
      type: 'link',
      options: { relationship: 'oneMany', foreignTableId: table2.id },
    });
    const linkField2 = await createField(table1.id, {
      type: 'link',
      options: { relationship: 'oneMany', foreignTableId: table2.id },
    });
    const lookupField = await createField(table1.id, {
      type: 'link',
      isLookup: true,
      lookupOptions: {
        foreignTableId: table2.id,
        lookupFieldId: linkField1.options.symmetricFieldId,
        linkFieldId: linkField1.id,
      },
    });
    await updateRecordByApi(table1.id, table1.records[0]?.id as string, linkField1.id, [
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    await updateRecordByApi(table1.id, table1.records[1]?.id as string, linkField2.id, [
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    const lookupFieldRo2 = {
      type: 'link',
      isLookup: true,
      lookupOptions: {
        foreignTableId: table2.id,
        lookupFieldId: linkField2.options.symmetricFieldId,
        linkFieldId: linkField2.id,
      },
    };
    const recordsPre = (await getRecords(table1.id, { fieldKeyType: 'id' })).records;
    expect(recordsPre[0]?.fields[lookupField.id]).toEqual([
      { id: table1.records[0]?.id as string },
      { id: table1.records[0]?.id as string },
    ]);

    await convertField(table1.id, lookupField.id, lookupFieldRo2);
    const linkField1After = await getField(table1.id, linkField1.id);
    expect(linkField1After).toMatchObject(linkField1);
    const linkField2After = await getField(table1.id, linkField2.id);
    expect(linkField2After).toMatchObject(linkField2);

    const records = (await getRecords(table1.id, { fieldKeyType: 'id' })).records;
    expect(records[0]?.fields[linkField1.id]).toEqual([
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    expect(records[0]?.fields[linkField2.id]).toBeUndefined();
    expect(records[1]?.fields[linkField2.id]).toEqual([
      { id: table2.records[0]?.id as string },
      { id: table2.records[1]?.id as string },
    ]);
    expect(records[0]?.fields[lookupField.id]).toBeUndefined();
    expect(records[1]?.fields[lookupField.id]).toEqual([
      { id: table1.records[1]?.id as string },
      { id: table1.records[1]?.id as string },
    ]);
  });
  it('9 should convert number field to text and relational many-one lookup field and formula field', async () => {
    const { table1, table2 } = await setup();
    const linkField = await createField(table1.id, {
      type: 'link',
      options: { relationship: 'manyOne', foreignTableId: table2.id },
    });
    const sourceField = await createField(table2.id, { type: 'number' });
    const lookupField = await createField(table1.id, {
      name: `lookup ${sourceField.name}`,
      type: sourceField.type,
      isLookup: true,
      lookupOptions: { foreignTableId: table2.id, lookupFieldId: sourceField.id, linkFieldId: linkField.id },
    });
    const formulaField = await createField(table1.id, {
      type: 'formula',
      options: { expression: `{${lookupField.id}}` },
    });
    expect(lookupField).toMatchObject({
      type: sourceField.type,
      dbFieldType: 'REAL',
      cellValueType: 'number',
      isLookup: true,
      lookupOptions: {
        relationship: 'manyOne',
        foreignTableId: table2.id,
        lookupFieldId: sourceField.id,
        linkFieldId: linkField.id,
      },
    });
    expect(formulaField).toMatchObject({ type: 'formula', dbFieldType: 'REAL', cellValueType: 'number' });

    await updateRecordByApi(table1.id, table1.records[0]?.id as string, linkField.id, {
      id: table2.records[0]?.id,
    });
    await updateRecordByApi(table1.id, table1.records[1]?.id as string, linkField.id, {
      id: table2.records[0]?.id,
    });
    await updateRecordByApi(table2.id, table2.records[0]?.id as string, sourceField.id, 1);
    const recordResult1 = await getRecords(table1.id, { fieldKeyType: 'id' });
    expect(recordResult1.records[0]?.fields[lookupField.id]).toEqual(1);
    expect(recordResult1.records[1]?.fields[lookupField.id]).toEqual(1);

    const newField = await convertField(table2.id, sourceField.id, { type: 'singleLineText' });
    const newLookupField = await getField(table1.id, lookupField.id);
    const newFormulaField = await getField(table1.id, formulaField.id);
    expect(newField).toMatchObject({
      cellValueType: 'string',
      dbFieldType: 'TEXT',
      type: 'singleLineText',
      options: {},
    });
    expect(newLookupField).toMatchObject({
      type: newField.type,
      isLookup: true,
      dbFieldType: 'TEXT',
      cellValueType: newField.cellValueType,
      options: newField.options,
      lookupOptions: {
        relationship: 'manyOne',
        foreignTableId: table2.id,
        lookupFieldId: sourceField.id,
        linkFieldId: linkField.id,
      },
    });
    expect(newFormulaField).toMatchObject({
      type: 'formula',
      dbFieldType: 'TEXT',
      cellValueType: newField.cellValueType,
    });
    const recordResult2 = await getRecords(table1.id, { fieldKeyType: 'id' });
    expect(recordResult2.records[0]?.fields[lookupField.id]).toEqual('1.00');
    expect(recordResult2.records[1]?.fields[lookupField.id]).toEqual('1.00');
  });
});
