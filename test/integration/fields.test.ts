import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { error, type Field, id, invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

type Table = Awaited<ReturnType<typeof newTable>>;

const createField = (t: Table, body: Record<string, unknown>, token = t.owner.auth) =>
  call('create-field', { token, params: { tableId: t.tableId }, body });

const mustCreateField = async (t: Table, body: Record<string, unknown>): Promise<Field> => {
  const res = await createField(t, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const listFields = async (t: Table, query?: string): Promise<Field[]> => {
  const res = await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId }, query });
  expect(res.status).toBe(200);
  return res.body;
};

const getField = (t: Table, fieldId: string) =>
  call('get-field', { token: t.owner.auth, params: { tableId: t.tableId, fieldId } });

const updateField = (t: Table, fieldId: string, body: Record<string, unknown>) =>
  call('update-field', { token: t.owner.auth, params: { tableId: t.tableId, fieldId }, body });

const deleteField = (t: Table, fieldId: string) =>
  call('delete-field', { token: t.owner.auth, params: { tableId: t.tableId, fieldId } });

const getView = async (t: Table, viewId = t.viewId) => {
  const res = await call('get-view', { token: t.owner.auth, params: { tableId: t.tableId, viewId } });
  expect(res.status).toBe(200);
  return res.body;
};

const getRecord = async (t: Table, recordId: string, query?: string) => {
  const res = await call('get-record', {
    token: t.owner.auth,
    params: { tableId: t.tableId, recordId },
    query,
  });
  expect(res.status).toBe(200);
  return res.body;
};

const fieldNamed = (t: Table, name: string): Field => {
  const field = (t.table.fields as Field[]).find((f) => f.name === name);
  if (!field) throw new Error(`no field ${name}`);
  return field;
};

/** Teable's dbFieldType per type, as its field creation sets it. */
const DB_FIELD_TYPES: Record<string, string> = {
  singleLineText: 'TEXT',
  longText: 'TEXT',
  number: 'REAL',
  rating: 'REAL',
  checkbox: 'BOOLEAN',
  singleSelect: 'TEXT',
  multipleSelect: 'JSON',
  date: 'DATETIME',
  createdTime: 'DATETIME',
  lastModifiedTime: 'DATETIME',
  user: 'JSON',
  attachment: 'JSON',
  autoNumber: 'INTEGER',
  createdBy: 'JSON',
  lastModifiedBy: 'JSON',
};

describe('POST /table/{tableId}/field', () => {
  it.each([
    [
      'singleLineText',
      { showAs: { type: 'url' }, defaultValue: 'https://x.test' },
      { options: { showAs: { type: 'url' }, defaultValue: 'https://x.test' }, cellValueType: 'string' },
    ],
    [
      'longText',
      { defaultValue: 'one\ntwo' },
      { options: { defaultValue: 'one\ntwo' }, cellValueType: 'string' },
    ],
    [
      'number',
      { formatting: { type: 'currency', precision: 1, symbol: '€' }, defaultValue: 3 },
      {
        options: { formatting: { type: 'currency', precision: 1, symbol: '€' }, defaultValue: 3 },
        cellValueType: 'number',
      },
    ],
    [
      'number',
      { formatting: { type: 'percent' } },
      { options: { formatting: { type: 'percent', precision: 2 } }, cellValueType: 'number' },
    ],
    [
      'number',
      { formatting: { type: 'currency' } },
      { options: { formatting: { type: 'currency', precision: 2, symbol: '$' } }, cellValueType: 'number' },
    ],
    [
      'rating',
      { icon: 'heart', color: 'redBright', max: 10 },
      { options: { icon: 'heart', color: 'redBright', max: 10 }, cellValueType: 'number' },
    ],
    [
      'rating',
      undefined,
      { options: { icon: 'star', color: 'yellowBright', max: 5 }, cellValueType: 'number' },
    ],
    ['checkbox', { defaultValue: true }, { options: { defaultValue: true }, cellValueType: 'boolean' }],
    [
      'singleSelect',
      { choices: [{ name: 'a' }, { name: ' b ', color: 'redDark1' }], defaultValue: 'a' },
      {
        options: {
          choices: [
            { id: id('cho'), name: 'a', color: 'blueLight2' },
            { id: id('cho'), name: 'b', color: 'redDark1' },
          ],
          defaultValue: 'a',
        },
        cellValueType: 'string',
      },
    ],
    [
      'multipleSelect',
      { choices: [{ id: 'choKeepThisIdPlease', name: 'x' }, { name: 'y' }], defaultValue: ['y'] },
      {
        options: {
          choices: [
            { id: 'choKeepThisIdPlease', name: 'x', color: 'blueLight2' },
            { id: id('cho'), name: 'y', color: 'cyanLight2' },
          ],
          defaultValue: ['y'],
        },
        cellValueType: 'string',
        isMultipleCellValue: true,
      },
    ],
    [
      'date',
      { formatting: { date: 'DD/MM/YYYY', time: 'HH:mm', timeZone: 'Europe/Berlin' }, defaultValue: 'now' },
      {
        options: {
          formatting: { date: 'DD/MM/YYYY', time: 'HH:mm', timeZone: 'Europe/Berlin' },
          defaultValue: 'now',
        },
        cellValueType: 'dateTime',
      },
    ],
    [
      'date',
      {},
      {
        options: { formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' } },
        cellValueType: 'dateTime',
      },
    ],
    [
      'user',
      { isMultiple: true, shouldNotify: false },
      {
        options: { isMultiple: true, shouldNotify: false },
        cellValueType: 'string',
        isMultipleCellValue: true,
      },
    ],
    ['user', {}, { options: {}, cellValueType: 'string' }],
    ['attachment', {}, { options: {}, cellValueType: 'string', isMultipleCellValue: true }],
    ['autoNumber', {}, { options: {}, cellValueType: 'number', isComputed: true }],
    [
      'createdTime',
      { formatting: { date: 'YYYY-MM-DD', time: 'hh:mm A', timeZone: 'Asia/Tokyo' } },
      {
        options: { formatting: { date: 'YYYY-MM-DD', time: 'hh:mm A', timeZone: 'Asia/Tokyo' } },
        cellValueType: 'dateTime',
        isComputed: true,
      },
    ],
    [
      'lastModifiedTime',
      {},
      {
        options: { formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' } },
        cellValueType: 'dateTime',
        isComputed: true,
      },
    ],
    ['createdBy', {}, { options: {}, cellValueType: 'string', isComputed: true }],
    ['lastModifiedBy', {}, { options: {}, cellValueType: 'string', isComputed: true }],
  ])('creates a %s field with options %j', async (type, options, expected) => {
    const t = await newTable();

    const res = await createField(t, { type, name: 'F', description: 'about F', options });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: id('fld'),
      name: 'F',
      type,
      description: 'about F',
      dbFieldName: 'F',
      ...expected,
      dbFieldType: DB_FIELD_TYPES[type],
    });
    const got = await getField(t, res.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('creates a link field and its symmetric field in the foreign table', async () => {
    const t = await newTable({ name: 'Orders' });
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Customers', records: [] },
    });
    const foreignPrimary = other.body.fields[0].id as string;

    const res = await createField(t, {
      type: 'link',
      options: { relationship: 'manyOne', foreignTableId: other.body.id },
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: id('fld'),
      name: 'Customers',
      type: 'link',
      options: {
        relationship: 'manyOne',
        foreignTableId: other.body.id,
        lookupFieldId: foreignPrimary,
        symmetricFieldId: id('fld'),
        // Teable's storage names: a many-one link is kept in its own table, under a key of its own
        fkHostTableName: t.table.dbTableName,
        selfKeyName: '__id',
        foreignKeyName: `__fk_${res.body.id}`,
      },
      dbFieldName: 'Customers',
      cellValueType: 'string',
      dbFieldType: 'JSON',
    });
    const foreign = await call('list-fields', { token: t.owner.auth, params: { tableId: other.body.id } });
    expect(foreign.body[3]).toEqual({
      id: res.body.options.symmetricFieldId,
      name: 'Orders',
      type: 'link',
      options: {
        relationship: 'oneMany',
        foreignTableId: t.tableId,
        symmetricFieldId: res.body.id,
        lookupFieldId: t.table.fields[0].id,
        fkHostTableName: t.table.dbTableName,
        selfKeyName: `__fk_${res.body.id}`,
        foreignKeyName: '__id',
      },
      dbFieldName: 'Orders',
      cellValueType: 'string',
      isMultipleCellValue: true,
      dbFieldType: 'JSON',
    });
  });

  it('deleting a link field deletes its symmetric field', async () => {
    const t = await newTable({ name: 'Orders' });
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Customers', records: [] },
    });
    const link = await mustCreateField(t, {
      type: 'link',
      options: { relationship: 'manyMany', foreignTableId: other.body.id },
    });

    const res = await deleteField(t, link.id);

    expect(res.status).toBe(200);
    const foreign = await call('list-fields', { token: t.owner.auth, params: { tableId: other.body.id } });
    expect(foreign.body.map((f: Field) => f.name)).toEqual(['Name', 'Count', 'Status']);
  });

  it.each([
    ['singleLineText', 'Label'],
    ['longText', 'Notes'],
    ['number', 'Number'],
    ['rating', 'Rating'],
    ['checkbox', 'Done'],
    ['singleSelect', 'Select'],
    ['multipleSelect', 'Tags'],
    ['date', 'Date'],
    ['user', 'Collaborator'],
    ['attachment', 'Attachments'],
    ['autoNumber', 'ID'],
    ['createdTime', 'Created Time'],
    ['lastModifiedTime', 'Last Modified Time'],
    ['createdBy', 'Created By'],
    ['lastModifiedBy', 'Last Modified By'],
  ])('names a %s field without a name %j', async (type, name) => {
    const t = await newTable();

    const res = await createField(t, { type });

    expect(res.status).toBe(201);
    expect(res.body.name).toBe(name);
    expect(res.body.dbFieldName).toBe(name.replaceAll(' ', '_'));
  });

  it('makes default names unique with " 2", " 3" and dbFieldNames with "_2", "_3"', async () => {
    const t = await newTable();

    const made = [];
    for (let i = 0; i < 3; i++) made.push(await mustCreateField(t, { type: 'number' }));
    const count = await mustCreateField(t, { type: 'number', name: 'Count 2' });

    expect(made.map((f) => [f.name, f.dbFieldName])).toEqual([
      ['Number', 'Number'],
      ['Number 2', 'Number_2'],
      ['Number 3', 'Number_3'],
    ]);
    expect([count.name, count.dbFieldName]).toEqual(['Count 2', 'Count_2']);
  });

  it('derives dbFieldName from the name, made unique when the reduced name is taken', async () => {
    const t = await newTable();

    const due = await mustCreateField(t, { type: 'date', name: 'Due date!' });
    const clash = await mustCreateField(t, { type: 'date', name: 'Due date?' });
    const digit = await mustCreateField(t, { type: 'number', name: '2nd' });

    expect([due.dbFieldName, clash.dbFieldName, digit.dbFieldName]).toEqual([
      'Due_date_',
      'Due_date__2',
      '_2nd',
    ]);
  });

  it('keeps a given dbFieldName', async () => {
    const t = await newTable();

    const field = await mustCreateField(t, { type: 'number', name: 'Price', dbFieldName: 'unit_price' });

    expect(field.dbFieldName).toBe('unit_price');
  });

  it.each([
    ['Name', 'Name 2'],
    ['  Count  ', 'Count 2'],
  ])('makes the taken name %j unique (%j), as Teable does', async (name, unique) => {
    const t = await newTable();

    const field = await mustCreateField(t, { type: 'longText', name });
    const again = await mustCreateField(t, { type: 'longText', name: unique });

    expect(field.name).toBe(unique);
    expect(again.name).toBe(unique.replace('2', '3'));
    expect((await listFields(t)).map((f) => f.name)).toEqual(['Name', 'Count', 'Status', unique, again.name]);
  });

  it.each([['1abc'], ['has space'], ['dash-ed'], [''], ['a'.repeat(64)]])(
    'answers 400 for the invalid dbFieldName %j',
    async (dbFieldName) => {
      const t = await newTable();

      const res = await createField(t, { type: 'longText', name: 'Notes', dbFieldName });

      expect(res).toMatchObject(invalid(/dbFieldName/));
      expect(await listFields(t)).toHaveLength(3);
    },
  );

  it('answers 400 for a dbFieldName taken by another field', async () => {
    const t = await newTable();

    const res = await createField(t, { type: 'longText', name: 'Other', dbFieldName: 'Count' });

    expect(res).toMatchObject(invalid('dbFieldName "Count" is already used in this table'));
  });

  it.each([
    [
      'a rollup without lookupOptions',
      { type: 'rollup', options: { expression: 'sum({values})' } },
      'lookupOptions is required',
    ],
    [
      'a lookup without lookupOptions',
      { type: 'singleLineText', isLookup: true },
      'lookupOptions is required when isLookup is true.',
    ],
    ['an unknown type', { type: 'barcode' }, /^Unknown field type "barcode"/],
    ['no type', { name: 'X' }, 'type is required'],
    ['a rating over 10', { type: 'rating', options: { max: 11 } }, /max must be an integer from 1 to 10/],
    ['precision 6', { type: 'number', options: { formatting: { precision: 6 } } }, /precision/],
    [
      'an unknown time zone',
      { type: 'date', options: { formatting: { timeZone: 'Mars/Base' } } },
      /timeZone/,
    ],
    [
      'duplicate choices',
      { type: 'singleSelect', options: { choices: [{ name: 'a' }, { name: 'a' }] } },
      /duplicate choice name "a"/,
    ],
    [
      'a default that is no choice',
      { type: 'singleSelect', options: { choices: [{ name: 'a' }], defaultValue: 'b' } },
      /defaultValue must name a choice/,
    ],
    ['a bad showAs', { type: 'singleLineText', options: { showAs: { type: 'fax' } } }, /showAs/],
    ['options that are a list', { type: 'number', options: [] }, /options must be an object/],
    ['a computed notNull field', { type: 'autoNumber', notNull: true }, /computed/],
    ['an id that is no field id', { type: 'number', id: 'abc' }, 'id must be a field id (fld…)'],
    ['a second primary field', { type: 'number', isPrimary: true }, 'The table already has a primary field'],
    ['a link to no table', { type: 'link', options: { relationship: 'manyMany' } }, /foreignTableId/],
  ])('answers 400 for %s', async (_, body, message) => {
    const t = await newTable();

    const res = await createField(t, body);

    expect(res).toMatchObject(invalid(message));
    expect(await listFields(t)).toHaveLength(3);
  });

  it('answers 400 for a link to a table of another base', async () => {
    const t = await newTable();
    const elsewhere = await newTable();
    await call('add-collaborators', {
      token: elsewhere.owner.auth,
      params: { spaceId: elsewhere.spaceId },
      body: { collaborators: [{ principalId: t.owner.id, principalType: 'user' }], role: 'owner' },
    });

    const res = await createField(t, {
      type: 'link',
      name: 'Far',
      options: { relationship: 'manyMany', foreignTableId: elsewhere.tableId },
    });

    expect(res).toMatchObject(
      invalid(`Field "Far": foreign table ${elsewhere.tableId} not found in this base`),
    );
  });

  it('an editor may not create fields; a creator may', async () => {
    const t = await newTable();
    const editor = await newMember(t, 'editor');
    const creator = await newMember(t, 'creator');

    const byEditor = await createField(t, { type: 'number' }, editor.auth);
    const byCreator = await createField(t, { type: 'number' }, creator.auth);

    expect(byEditor).toMatchObject(
      error(403, 'restricted_resource', `not allowed to operate field|create on ${t.tableId}`),
    );
    expect(byCreator.status).toBe(201);
  });
});

describe('GET /table/{tableId}/field', () => {
  it('lists fields in creation order', async () => {
    const t = await newTable();
    const a = await mustCreateField(t, { type: 'longText', name: 'Zed' });
    const b = await mustCreateField(t, { type: 'checkbox', name: 'Alpha' });

    const list = await listFields(t);

    expect(list.map((f) => f.id)).toEqual([...t.table.fields.map((f: Field) => f.id), a.id, b.id]);
    expect(list[0]).toEqual(t.table.fields[0]);
  });

  it("lists fields in a view's column order with viewId", async () => {
    const t = await newTable({
      views: [
        { type: 'grid', name: 'Moved' },
        { type: 'grid', name: 'Untouched' },
      ],
    });
    const [name, count, status] = t.table.fields as Field[];
    const moved = await call('update-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { columnMeta: { Count: { order: 5 }, [name?.id as string]: { order: 3, hidden: true } } },
    });
    expect(moved.status).toBe(200);
    const later = await mustCreateField(t, { type: 'number', name: 'Later' });

    const inView = await listFields(t, `viewId=${t.viewId}`);
    const inOther = await listFields(t, `viewId=${t.table.views[1].id}`);

    expect(inView.map((f) => f.name)).toEqual(['Status', 'Name', 'Count', 'Later']);
    expect(inOther.map((f) => f.id)).toEqual([name?.id, count?.id, status?.id, later.id]);
  });

  it('answers 404 for a viewId that is not a view of the table', async () => {
    const t = await newTable();
    const other = await newTable();

    const res = await call('list-fields', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `viewId=${other.viewId}`,
    });

    expect(res).toMatchObject(notFound(`View ${other.viewId} not found in table ${t.tableId}`));
  });

  it('answers 400 for a viewId that is no view id', async () => {
    const t = await newTable();

    const res = await call('list-fields', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: 'viewId=x',
    });

    expect(res).toMatchObject(invalid(/viewId/));
  });

  it('a viewer may list and get fields', async () => {
    const t = await newTable();
    const viewer = await newMember(t, 'viewer');

    const list = await call('list-fields', { token: viewer.auth, params: { tableId: t.tableId } });
    const one = await call('get-field', {
      token: viewer.auth,
      params: { tableId: t.tableId, fieldId: t.table.fields[1].id },
    });

    expect(list.body).toEqual(t.table.fields);
    expect(one.body).toEqual(t.table.fields[1]);
  });
});

describe('GET /table/{tableId}/field/{fieldId}', () => {
  it('answers the field', async () => {
    const t = await newTable();

    const res = await getField(t, fieldNamed(t, 'Status').id);

    expect(res.status).toBe(200);
    expect(res.body).toEqual(fieldNamed(t, 'Status'));
  });

  it('answers 404 for an unknown field and for a field of another table', async () => {
    const t = await newTable();
    const other = await newTable();
    const unknown = newId('field');
    const foreign = other.table.fields[0].id as string;

    expect(await getField(t, unknown)).toMatchObject(
      notFound(`Field ${unknown} not found in table ${t.tableId}`),
    );
    expect(await getField(t, foreign)).toMatchObject(
      notFound(`Field ${foreign} not found in table ${t.tableId}`),
    );
    expect(await updateField(t, unknown, { name: 'x' })).toMatchObject(notFound(/not found/));
    expect(await deleteField(t, unknown)).toMatchObject(notFound(/not found/));
  });
});

describe('PATCH /table/{tableId}/field/{fieldId}', () => {
  it('renames a field: records answer under the new name', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'a', Count: 4 } }] });
    const count = fieldNamed(t, 'Count');

    const res = await updateField(t, count.id, { name: 'Amount' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...count, name: 'Amount' });
    expect((await getRecord(t, t.table.records[0].id)).fields).toEqual({ Name: 'a', Amount: 4 });
    const write = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Count: 1 } }] },
    });
    expect(write).toMatchObject(notFound('Field name: Count not found'));
  });

  it('sets and clears the description', async () => {
    const t = await newTable();
    const count = fieldNamed(t, 'Count');

    const set = await updateField(t, count.id, { description: 'how many' });
    const cleared = await updateField(t, count.id, { description: null });

    expect(set.body).toEqual({ ...count, description: 'how many' });
    expect(cleared.body).toEqual(count);
    expect((await getField(t, count.id)).body).toEqual(count);
  });

  it('changes dbFieldName: records keyed by dbFieldName follow', async () => {
    const t = await newTable({ records: [{ fields: { Count: 2 } }] });

    const res = await updateField(t, fieldNamed(t, 'Count').id, { dbFieldName: 'qty' });

    expect(res.body.dbFieldName).toBe('qty');
    expect((await getRecord(t, t.table.records[0].id, 'fieldKeyType=dbFieldName')).fields).toEqual({
      qty: 2,
    });
  });

  it('changes number formatting: the text rendering follows', async () => {
    const t = await newTable({ records: [{ fields: { Count: 1234.5 } }] });

    const res = await updateField(t, fieldNamed(t, 'Count').id, {
      options: { formatting: { type: 'currency', precision: 2 } },
    });

    expect(res.body.options).toEqual({ formatting: { type: 'currency', precision: 2, symbol: '$' } });
    expect((await getRecord(t, t.table.records[0].id, 'cellFormat=text')).fields.Count).toBe('$1,234.50');
  });

  it('replaces select choices: ids kept, new ones get ids and colors', async () => {
    const t = await newTable();
    const status = fieldNamed(t, 'Status');
    const [light, medium] = status.options.choices as { id: string; name: string; color: string }[];

    const res = await updateField(t, status.id, {
      options: { choices: [light, { ...medium, name: 'middle', color: 'redBright' }, { name: 'extreme' }] },
    });

    expect(res.status).toBe(200);
    expect(res.body.options).toEqual({
      choices: [
        light,
        { id: medium?.id, name: 'middle', color: 'redBright' },
        { id: id('cho'), name: 'extreme', color: 'grayLight2' },
      ],
    });
    expect((await getField(t, status.id)).body).toEqual(res.body);
  });

  it('renaming a choice renames it in the records; removing one clears it', async () => {
    const t = await newTable({
      records: [
        { fields: { Status: 'light' } },
        { fields: { Status: 'medium' } },
        { fields: { Status: 'heavy' } },
      ],
    });
    const status = fieldNamed(t, 'Status');
    const [light, , heavy] = status.options.choices as { id: string; name: string; color: string }[];

    const res = await updateField(t, status.id, {
      options: { choices: [{ ...light, name: 'bright' }, heavy] },
    });

    expect(res.status).toBe(200);
    const ids = t.table.records.map((r: { id: string }) => r.id as string);
    expect((await getRecord(t, ids[0])).fields).toEqual({ Status: 'bright' });
    expect((await getRecord(t, ids[1])).fields).toEqual({});
    expect((await getRecord(t, ids[2])).fields).toEqual({ Status: 'heavy' });
  });

  it('renaming a choice of a multiple select renames it inside the lists', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Title' },
        {
          type: 'multipleSelect',
          name: 'Tags',
          options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
        },
      ],
      records: [{ fields: { Title: 'r', Tags: ['a', 'b', 'c'] } }],
    });
    const tags = fieldNamed(t, 'Tags');
    const [a, , c] = tags.options.choices as { id: string; name: string; color: string }[];

    const res = await updateField(t, tags.id, { options: { choices: [{ ...a, name: 'A' }, c] } });

    expect(res.status).toBe(200);
    expect((await getRecord(t, t.table.records[0].id)).fields).toEqual({ Title: 'r', Tags: ['A', 'c'] });
  });

  it("a select's default follows a renamed choice and goes with a removed one", async () => {
    const t = await newTable();
    const field = await mustCreateField(t, {
      type: 'multipleSelect',
      name: 'Tags',
      options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], defaultValue: ['b', 'c'] },
    });
    const [a, b] = field.options.choices as { id: string; name: string }[];

    const renamed = await updateField(t, field.id, { options: { choices: [a, { ...b, name: 'B' }] } });
    const removed = await updateField(t, field.id, { options: { choices: [a] } });

    expect(renamed.status).toBe(200);
    expect(renamed.body.options.defaultValue).toEqual(['B']);
    expect(removed.status).toBe(200);
    expect(removed.body.options).toEqual({ choices: [a] });
  });

  it('answers 400 for a change of type and changes nothing', async () => {
    const t = await newTable();
    const count = fieldNamed(t, 'Count');

    const res = await updateField(t, count.id, { type: 'singleLineText', name: 'Text' });
    const same = await updateField(t, count.id, { type: 'number', name: 'Still number' });

    expect(res).toMatchObject(invalid("Changing a field's type (number to singleLineText) is not supported"));
    expect(same.status).toBe(200);
    expect(same.body.name).toBe('Still number');
  });

  it.each([
    ['a taken name', { name: 'Name' }, 'A field named "Name" already exists in this table'],
    ['an empty name', { name: '  ' }, 'name must not be empty'],
    ['a taken dbFieldName', { dbFieldName: 'Status' }, 'dbFieldName "Status" is already used in this table'],
    ['an invalid dbFieldName', { dbFieldName: '9x' }, /dbFieldName "9x" must match/],
    ['bad options', { options: { formatting: { type: 'roman' } } }, /formatting.type must be one of/],
    ['options that are text', { options: 'x' }, 'options must be an object'],
  ])('answers 400 for %s', async (_, body, message) => {
    const t = await newTable();
    const count = fieldNamed(t, 'Count');

    const res = await updateField(t, count.id, body);

    expect(res).toMatchObject(invalid(message));
    expect((await getField(t, count.id)).body).toEqual(count);
  });

  it("answers 400 for a change of a link's relationship", async () => {
    const t = await newTable();
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [] },
    });
    const link = await mustCreateField(t, {
      type: 'link',
      options: { relationship: 'manyMany', foreignTableId: other.body.id },
    });

    const res = await updateField(t, link.id, { options: { relationship: 'oneOne' } });

    expect(res).toMatchObject(invalid('options.relationship of a link field cannot be changed'));
  });
});

describe('DELETE /table/{tableId}/field/{fieldId}', () => {
  it('deletes a field: it is gone from the table and from records; its name is free again', async () => {
    const t = await newTable({ records: [{ fields: { Name: 'a', Count: 4, Status: 'heavy' } }] });
    const count = fieldNamed(t, 'Count');

    const res = await deleteField(t, count.id);

    expect(res.status).toBe(200);
    expect(await getField(t, count.id)).toMatchObject(
      notFound(`Field ${count.id} not found in table ${t.tableId}`),
    );
    expect((await listFields(t)).map((f) => f.name)).toEqual(['Name', 'Status']);
    const record = await getRecord(t, t.table.records[0].id);
    expect(record.fields).toEqual({ Name: 'a', Status: 'heavy' });
    expect(Object.keys(record.permissions)).toEqual(['Name', 'Status']);
    const again = await mustCreateField(t, { type: 'longText', name: 'Count' });
    expect(again.dbFieldName).toBe('Count');
    expect((await getRecord(t, t.table.records[0].id)).fields).toEqual({ Name: 'a', Status: 'heavy' });
    expect(await deleteField(t, count.id)).toMatchObject(notFound(/not found/));
  });

  it('answers 403 for the primary field', async () => {
    const t = await newTable();
    const primary = fieldNamed(t, 'Name');

    const res = await deleteField(t, primary.id);

    expect(res).toMatchObject(
      error(403, 'restricted_resource', `Field ${primary.id} is the primary field and cannot be deleted`),
    );
    expect(await listFields(t)).toHaveLength(3);
  });

  it('removes the field from the filter, sort, group and columns of every view', async () => {
    const t = await newTable();
    const [name, count, status] = t.table.fields as Field[];
    const view = await call('create-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        type: 'grid',
        name: 'Busy',
        filter: {
          conjunction: 'and',
          filterSet: [
            { fieldId: 'Count', operator: 'isGreater', value: 1 },
            { fieldId: 'Name', operator: 'isNotEmpty', value: null },
            { conjunction: 'or', filterSet: [{ fieldId: 'Count', operator: 'is', value: 3 }] },
          ],
        },
        sort: {
          sortObjs: [
            { fieldId: 'Count', order: 'desc' },
            { fieldId: 'Name', order: 'asc' },
          ],
        },
        group: [
          { fieldId: 'Count', order: 'asc' },
          { fieldId: 'Status', order: 'desc' },
        ],
      },
    });
    expect(view.status).toBe(201);

    const res = await deleteField(t, count?.id as string);

    expect(res.status).toBe(200);
    const after = await getView(t, view.body.id);
    expect(after.filter).toEqual({
      conjunction: 'and',
      filterSet: [{ fieldId: name?.id, operator: 'isNotEmpty', value: null }],
    });
    expect(after.sort).toEqual({ sortObjs: [{ fieldId: name?.id, order: 'asc' }] });
    expect(after.group).toEqual([{ fieldId: status?.id, order: 'desc' }]);
    expect(Object.keys(after.columnMeta)).toEqual([name?.id, status?.id]);
    expect(JSON.stringify(after)).not.toContain(count?.id);
    expect(JSON.stringify(await getView(t))).not.toContain(count?.id);
  });

  it('leaves a view without filter when its only filtered field is deleted', async () => {
    const t = await newTable();
    const count = fieldNamed(t, 'Count');
    const patched = await call('update-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { filter: { conjunction: 'and', filterSet: [{ fieldId: count.id, operator: 'is', value: 1 }] } },
    });
    expect(patched.body.filter.filterSet[0].fieldId).toBe(count.id);

    await deleteField(t, count.id);

    expect((await getView(t)).filter).toBeNull();
  });
});
