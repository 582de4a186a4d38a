import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { forbidden, ISO, id, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { itemsMentioning } from '#test/support/scan.ts';
import { newMember, newTable, newWorkspace } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;
type Workspace = Awaited<ReturnType<typeof newWorkspace>>;

const createTable = (ws: Workspace, body: Record<string, unknown> = {}, user: User = ws.owner) =>
  call('create-table', { token: user.auth, params: { baseId: ws.baseId }, body });

const listTables = async (ws: Workspace, baseId = ws.baseId) => {
  const res = await call('list-tables', { token: ws.owner.auth, params: { baseId } });
  expect(res.status).toBe(200);
  return res.body as { id: string; name: string; order: number }[];
};

/** Every item whose key mentions one of `ids` (a Scan of the whole DynamoDB table). */
describe('POST /base/{baseId}/table', () => {
  it('creates the documented defaults: three fields, one grid view, three empty records', async () => {
    const ws = await newWorkspace();

    const res = await createTable(ws);

    expect(res.status).toBe(201);
    const t = res.body;
    const [name, count, status] = t.fields;
    expect(t).toEqual({
      id: id('tbl'),
      name: 'Table',
      dbTableName: 'Table',
      description: null,
      icon: null,
      order: 0,
      defaultViewId: t.views[0].id,
      lastModifiedTime: expect.stringMatching(ISO),
      fields: [
        {
          id: id('fld'),
          name: 'Name',
          type: 'singleLineText',
          options: {},
          dbFieldName: 'Name',
          isPrimary: true,
          cellValueType: 'string',
          dbFieldType: 'TEXT',
        },
        {
          id: id('fld'),
          name: 'Count',
          type: 'number',
          options: { formatting: { type: 'decimal', precision: 2 } },
          dbFieldName: 'Count',
          cellValueType: 'number',
          dbFieldType: 'REAL',
        },
        {
          id: id('fld'),
          name: 'Status',
          type: 'singleSelect',
          options: {
            choices: [
              { id: id('cho'), name: 'light', color: 'blueLight2' },
              { id: id('cho'), name: 'medium', color: 'cyanLight2' },
              { id: id('cho'), name: 'heavy', color: 'grayLight2' },
            ],
          },
          dbFieldName: 'Status',
          cellValueType: 'string',
          dbFieldType: 'TEXT',
        },
      ],
      views: [
        {
          id: id('viw'),
          name: 'Grid view',
          type: 'grid',
          order: 0,
          filter: null,
          sort: null,
          group: null,
          columnMeta: { [name.id]: { order: 0 }, [count.id]: { order: 1 }, [status.id]: { order: 2 } },
          options: {},
          createdBy: ws.owner.id,
          createdTime: expect.stringMatching(ISO),
          lastModifiedTime: expect.stringMatching(ISO),
        },
      ],
      records: [1, 2, 3].map((autoNumber) => ({
        id: id('rec'),
        name: '',
        fields: {},
        autoNumber,
        createdTime: expect.stringMatching(ISO),
        lastModifiedTime: expect.stringMatching(ISO),
        createdBy: ws.owner.name,
        lastModifiedBy: ws.owner.name,
        permissions: {
          Name: { read: true, update: true },
          Count: { read: true, update: true },
          Status: { read: true, update: true },
        },
        undeletable: false,
      })),
      total: 3,
    });
    for (const r of t.records) {
      const got = await call('get-record', {
        token: ws.owner.auth,
        params: { tableId: t.id, recordId: r.id },
      });
      expect(got.status).toBe(200);
      expect(got.body.autoNumber).toBe(r.autoNumber);
    }
  });

  it('derives dbTableName from the name and keeps a given one', async () => {
    const ws = await newWorkspace();

    const derived = await createTable(ws, { name: 'Orders 2026 (EU)', records: [] });
    const leadingDigit = await createTable(ws, { name: '2026 plan', records: [] });
    const given = await createTable(ws, { name: 'Whatever', dbTableName: 'orders_eu', records: [] });

    expect(derived.status).toBe(201);
    expect(derived.body.dbTableName).toBe('Orders_2026__EU_');
    expect(leadingDigit.body.dbTableName).toBe('_2026_plan');
    expect(given.body.dbTableName).toBe('orders_eu');
  });

  it.each([['has space'], ['1starts_with_digit'], ['a'.repeat(64)], ['']])(
    'answers 400 for the dbTableName %j (the dbFieldName alphabet)',
    async (dbTableName) => {
      const ws = await newWorkspace();

      const res = await createTable(ws, { dbTableName, records: [] });

      expect(res).toMatchObject(invalid(/dbTableName/));
      expect(await listTables(ws)).toEqual([]);
    },
  );

  it('creates the given fields, views and records (keyed by name), the first field primary', async () => {
    const ws = await newWorkspace();

    const res = await createTable(ws, {
      name: 'Tasks',
      description: 'What to do',
      icon: '✅',
      fields: [
        { type: 'singleLineText', name: 'Title' },
        { type: 'number', name: 'Qty', options: { formatting: { type: 'decimal', precision: 0 } } },
        { type: 'checkbox', name: 'Done' },
      ],
      views: [
        { type: 'grid', name: 'All', sort: { sortObjs: [{ fieldId: 'Qty', order: 'desc' }] } },
        { type: 'kanban' },
      ],
      records: [{ fields: { Title: 'first', Qty: 1, Done: true } }, { fields: { Title: 'second' } }],
    });

    expect(res.status).toBe(201);
    const t = res.body;
    expect(t).toMatchObject({ name: 'Tasks', description: 'What to do', icon: '✅', dbTableName: 'Tasks' });
    expect(t.fields.map((f: Record<string, unknown>) => [f.name, f.type, f.isPrimary ?? false])).toEqual([
      ['Title', 'singleLineText', true],
      ['Qty', 'number', false],
      ['Done', 'checkbox', false],
    ]);
    expect(t.fields[1].options).toEqual({ formatting: { type: 'decimal', precision: 0 } });
    expect(t.views.map((v: Record<string, unknown>) => [v.name, v.type, v.order])).toEqual([
      ['All', 'grid', 0],
      ['Kanban view', 'kanban', 1],
    ]);
    expect(t.views[0].sort).toEqual({ sortObjs: [{ fieldId: t.fields[1].id, order: 'desc' }] });
    expect(t.defaultViewId).toBe(t.views[0].id);
    expect(t.total).toBe(2);
    expect(t.records.map((r: Record<string, unknown>) => [r.name, r.fields, r.autoNumber])).toEqual([
      ['first', { Title: 'first', Qty: 1, Done: true }, 1],
      ['second', { Title: 'second' }, 2],
    ]);
  });

  it('creates no record with records: []', async () => {
    const ws = await newWorkspace();

    const res = await createTable(ws, { records: [] });

    expect(res.status).toBe(201);
    expect(res.body.records).toEqual([]);
    expect(res.body.total).toBe(0);
    const next = await call('create-records', {
      token: ws.owner.auth,
      params: { tableId: res.body.id },
      body: { records: [{ fields: {} }] },
    });
    expect(next.body.records[0].autoNumber).toBe(1);
  });

  it('reads records keyed by dbFieldName, or by id when the fields carry their ids', async () => {
    const ws = await newWorkspace();
    const titleId = newId('field');

    const byDb = await createTable(ws, {
      fieldKeyType: 'dbFieldName',
      fields: [{ type: 'singleLineText', name: 'Full name', dbFieldName: 'full_name' }],
      records: [{ fields: { full_name: 'Ada' } }],
    });
    const byId = await createTable(ws, {
      fieldKeyType: 'id',
      fields: [{ type: 'singleLineText', name: 'Title', id: titleId }],
      records: [{ fields: { [titleId]: 'Bob' } }],
    });

    expect(byDb.status).toBe(201);
    expect(byDb.body.records[0].fields).toEqual({ full_name: 'Ada' });
    expect(byDb.body.records[0].permissions).toEqual({ full_name: { read: true, update: true } });
    expect(byId.status).toBe(201);
    expect(byId.body.fields[0].id).toBe(titleId);
    expect(byId.body.records[0].fields).toEqual({ [titleId]: 'Bob' });
  });

  it.each(['checkbox', 'attachment', 'link'])('answers 400 for a %s primary field', async (type) => {
    const ws = await newWorkspace();
    const other = await createTable(ws, { name: 'Other', records: [] });
    const options = type === 'link' ? { relationship: 'manyOne', foreignTableId: other.body.id } : {};

    const res = await createTable(ws, {
      name: 'Bad',
      fields: [
        { type, name: 'First', options },
        { type: 'singleLineText', name: 'Second' },
      ],
    });

    expect(res).toMatchObject(invalid(`A ${type} field cannot be the primary field (field "First")`));
    expect((await listTables(ws)).map((t) => t.name)).toEqual(['Other']);
  });

  it.each([
    'singleLineText',
    'longText',
    'number',
    'rating',
    'singleSelect',
    'multipleSelect',
    'date',
    'user',
    'autoNumber',
    'createdTime',
    'lastModifiedTime',
    'createdBy',
    'lastModifiedBy',
  ])('accepts a %s primary field', async (type) => {
    const ws = await newWorkspace();

    const res = await createTable(ws, { fields: [{ type }], records: [] });

    expect(res.status).toBe(201);
    expect(res.body.fields[0]).toMatchObject({ type, isPrimary: true });
  });

  it('answers 400 for a table without fields', async () => {
    const ws = await newWorkspace();

    const res = await createTable(ws, { fields: [] });

    expect(res).toMatchObject(invalid(/fields/));
    expect(await listTables(ws)).toEqual([]);
  });

  it.each([
    ['name is empty', { name: '   ' }, /name/],
    ['name is not text', { name: 5 }, /name/],
    ['fields is not a list', { fields: { type: 'number' } }, /fields/],
    ['a field has no type', { fields: [{ name: 'x' }] }, /type is required/],
    ['a field type is unknown', { fields: [{ type: 'spreadsheet' }] }, /Unknown field type "spreadsheet"/],
    [
      'two fields share a name',
      {
        fields: [
          { type: 'number', name: 'A' },
          { type: 'longText', name: 'A' },
        ],
      },
      'A field named "A" already exists in this table',
    ],
    ['a view type is unknown', { views: [{ type: 'table' }] }, /views/],
    ['views is empty', { views: [] }, /views/],
    ['records is not a list', { records: {} }, /records/],
    ['a record has no fields', { records: [{}] }, /records/],
    ['fieldKeyType is unknown', { fieldKeyType: 'label' }, /fieldKeyType/],
    ['description is not text', { description: 3 }, /description/],
    ['a record value is invalid', { records: [{ fields: { Count: 'many' } }] }, /Field "Count" \(fld\w+\)/],
  ])('answers 400 when %s, creating nothing', async (_, body, message) => {
    const ws = await newWorkspace();

    const res = await createTable(ws, body);

    expect(res).toMatchObject(invalid(message));
    expect(await listTables(ws)).toEqual([]);
  });

  it('leaves no link field behind in the foreign table when the records fail', async () => {
    const ws = await newWorkspace();
    const other = await createTable(ws, { name: 'Other', records: [] });

    const res = await createTable(ws, {
      name: 'Linking',
      fields: [
        { type: 'singleLineText', name: 'Title' },
        {
          type: 'link',
          name: 'Others',
          options: { relationship: 'manyMany', foreignTableId: other.body.id },
        },
      ],
      records: [{ fields: { Title: 5 } }],
    });

    expect(res).toMatchObject(invalid(/Field "Title"/));
    expect((await listTables(ws)).map((t) => t.name)).toEqual(['Other']);
    const fields = await call('list-fields', { token: ws.owner.auth, params: { tableId: other.body.id } });
    expect(fields.body.map((f: { name: string }) => f.name)).toEqual(['Name', 'Count', 'Status']);
  });

  // Issue 10.5: two links into one table bumped its schema twice in one transaction (a spurious 409).
  it('creates two link fields into the same foreign table, each with its own symmetric field there', async () => {
    const ws = await newWorkspace();
    const other = await createTable(ws, { name: 'Other', records: [{ fields: { Name: 'o1' } }] });
    const otherId = other.body.id as string;
    const link = (name: string, relationship: string) => ({
      type: 'link',
      name,
      options: { relationship, foreignTableId: otherId },
    });

    const res = await createTable(ws, {
      name: 'Linking',
      fields: [
        { type: 'singleLineText', name: 'Title' },
        link('Owner', 'manyOne'),
        link('Watchers', 'manyMany'),
      ],
      records: [{ fields: { Title: 't1', Owner: { id: other.body.records[0].id } } }],
    });

    expect(res.status).toBe(201);
    const [owner, watchers] = res.body.fields.slice(1);
    const there = await call('list-fields', { token: ws.owner.auth, params: { tableId: otherId } });
    expect(there.body.map((f: { name: string }) => f.name)).toEqual([
      'Name',
      'Count',
      'Status',
      'Linking',
      'Linking 2',
    ]);
    const [ownerSide, watchersSide] = there.body.slice(3);
    expect(new Set(there.body.map((f: { dbFieldName: string }) => f.dbFieldName)).size).toBe(5);
    expect(ownerSide).toMatchObject({
      id: owner.options.symmetricFieldId,
      options: { relationship: 'oneMany', foreignTableId: res.body.id, symmetricFieldId: owner.id },
    });
    expect(watchersSide).toMatchObject({
      id: watchers.options.symmetricFieldId,
      options: { relationship: 'manyMany', foreignTableId: res.body.id, symmetricFieldId: watchers.id },
    });
    const o1 = await call('get-record', {
      token: ws.owner.auth,
      params: { tableId: otherId, recordId: other.body.records[0].id },
    });
    expect(o1.body.fields.Linking).toEqual([{ id: res.body.records[0].id, title: 't1' }]);
  });

  it('answers 404 for an unknown field key in the records, leaving nothing behind', async () => {
    const ws = await newWorkspace();

    const res = await createTable(ws, { records: [{ fields: { Nope: 1 } }] });

    expect(res).toMatchObject(notFound('Field name: Nope not found'));
    expect(await listTables(ws)).toEqual([]);
  });

  it('answers 404 for a base that does not exist', async () => {
    const ws = await newWorkspace();
    const baseId = newId('base');

    const res = await call('create-table', { token: ws.owner.auth, params: { baseId }, body: {} });

    expect(res).toMatchObject(notFound(`Base ${baseId} not found`));
  });

  it('names tables Table, Table 2, Table 3 per base; another base starts again', async () => {
    const ws = await newWorkspace();
    const otherBase = await call('create-base', { token: ws.owner.auth, body: { spaceId: ws.spaceId } });

    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push((await createTable(ws, { records: [] })).body.name);
    const elsewhere = await call('create-table', {
      token: ws.owner.auth,
      params: { baseId: otherBase.body.id },
      body: { records: [] },
    });

    expect(names).toEqual(['Table', 'Table 2', 'Table 3']);
    expect(elsewhere.body.name).toBe('Table');
  });

  it('reuses a default name freed by a deleted table', async () => {
    const ws = await newWorkspace();
    const first = await createTable(ws, { records: [] });
    await createTable(ws, { records: [] });
    await call('delete-table', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId, tableId: first.body.id },
    });

    const again = await createTable(ws, { records: [] });

    expect(again.body.name).toBe('Table');
  });
});

describe('reading and changing tables', () => {
  it('lists the tables of a base in creation order', async () => {
    const ws = await newWorkspace();
    const created: string[] = [];
    for (const name of ['Zeta', 'Alpha', 'Mid'])
      created.push((await createTable(ws, { name, records: [] })).body.id);

    const list = await listTables(ws);

    expect(list.map((t) => [t.id, t.name, t.order])).toEqual([
      [created[0], 'Zeta', 0],
      [created[1], 'Alpha', 1],
      [created[2], 'Mid', 2],
    ]);
  });

  it('puts a new table after every other one, also after a table was deleted for good', async () => {
    const ws = await newWorkspace();
    const tables: string[] = [];
    for (const name of ['A', 'B', 'C', 'D'])
      tables.push((await createTable(ws, { name, records: [] })).body.id);
    for (const tableId of [tables[0], tables[2]] as string[])
      await call('delete-table-permanently', {
        token: ws.owner.auth,
        params: { baseId: ws.baseId, tableId },
      });
    await drainPurges();

    const added: string[] = [];
    for (const name of ['E', 'F', 'G']) added.push((await createTable(ws, { name, records: [] })).body.name);

    const list = await listTables(ws);
    expect(list.map((t) => t.name)).toEqual(['B', 'D', 'E', 'F', 'G']);
    expect(new Set(list.map((t) => t.order)).size).toBe(5);
  });

  it('gets one table without its fields and records', async () => {
    const t = await newTable({ name: 'Inventory', icon: '📦', description: 'stock' });

    const res = await call('get-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: t.tableId,
      name: 'Inventory',
      dbTableName: 'Inventory',
      description: 'stock',
      icon: '📦',
      order: 0,
      defaultViewId: t.viewId,
      lastModifiedTime: expect.stringMatching(ISO),
    });
  });

  it('renames a table and changes its description and icon', async () => {
    const t = await newTable({ name: 'Old' });

    const res = await call('update-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
      body: { name: 'New', description: 'changed', icon: '🚀' },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.tableId, name: 'New', description: 'changed', icon: '🚀' });
    expect(res.body.dbTableName).toBe('Old');
    const got = await call('get-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(got.body).toEqual(res.body);
    expect((await listTables(t)).map((x) => x.name)).toEqual(['New']);
  });

  it('clears the description with null and leaves absent keys alone', async () => {
    const t = await newTable({ name: 'Keep', description: 'text', icon: '🔥' });

    const res = await call('update-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
      body: { description: null },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Keep', description: null, icon: '🔥' });
  });

  it.each([
    ['an empty name', { name: '' }, /name/],
    ['a name that is not text', { name: 1 }, /name/],
    ['an icon over 100 characters', { icon: 'x'.repeat(101) }, /icon/],
  ])('answers 400 for a PATCH with %s', async (_, body, message) => {
    const t = await newTable({ name: 'Same' });

    const res = await call('update-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
      body,
    });

    expect(res).toMatchObject(invalid(message));
    const got = await call('get-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(got.body.name).toBe('Same');
  });

  it('answers the default view id: the first view', async () => {
    const t = await newTable({ views: [{ type: 'kanban', name: 'Board' }, { type: 'grid' }] });

    const res = await call('get-default-view-id', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: t.table.views[0].id });
    expect(t.table.views[0].name).toBe('Board');
  });

  it('answers 404 for a table of another base in the path', async () => {
    const t = await newTable();
    const otherBase = await call('create-base', { token: t.owner.auth, body: { spaceId: t.spaceId } });
    const params = { baseId: otherBase.body.id as string, tableId: t.tableId };
    const expected = notFound(`Table ${t.tableId} not found in base ${params.baseId}`);

    expect(await call('get-table', { token: t.owner.auth, params })).toMatchObject(expected);
    expect(await call('update-table', { token: t.owner.auth, params, body: { name: 'X' } })).toMatchObject(
      expected,
    );
    expect(await call('get-default-view-id', { token: t.owner.auth, params })).toMatchObject(expected);
    expect(await call('delete-table', { token: t.owner.auth, params })).toMatchObject(expected);
    expect(await call('delete-table-permanently', { token: t.owner.auth, params })).toMatchObject(expected);
    const still = await call('get-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(still.body.name).toBe('Table');
  });

  it('answers 404 for a table that does not exist', async () => {
    const ws = await newWorkspace();
    const tableId = newId('table');

    const res = await call('get-table', { token: ws.owner.auth, params: { baseId: ws.baseId, tableId } });

    expect(res).toMatchObject(notFound(`Table ${tableId} not found`));
  });
});

describe('deleting tables', () => {
  it('moves a table to the trash: every route on it answers 404 and it leaves the list', async () => {
    const t = await newTable();
    const other = await createTable(t, { name: 'Stays', records: [] });
    const recordId = t.table.records[0].id as string;
    const fieldId = t.table.fields[0].id as string;
    const auth = t.owner.auth;

    const res = await call('delete-table', { token: auth, params: { baseId: t.baseId, tableId: t.tableId } });

    expect(res.status).toBe(200);
    const gone = notFound(`Table ${t.tableId} not found`);
    const tableOnly = { tableId: t.tableId };
    expect(
      await call('get-table', { token: auth, params: { baseId: t.baseId, tableId: t.tableId } }),
    ).toMatchObject(gone);
    expect(await call('list-fields', { token: auth, params: tableOnly })).toMatchObject(gone);
    expect(await call('get-field', { token: auth, params: { ...tableOnly, fieldId } })).toMatchObject(gone);
    expect(await call('list-views', { token: auth, params: tableOnly })).toMatchObject(gone);
    expect(await call('get-record', { token: auth, params: { ...tableOnly, recordId } })).toMatchObject(gone);
    expect(
      await call('create-records', { token: auth, params: tableOnly, body: { records: [{ fields: {} }] } }),
    ).toMatchObject(gone);
    expect(
      await call('update-table', {
        token: auth,
        params: { baseId: t.baseId, tableId: t.tableId },
        body: { name: 'back' },
      }),
    ).toMatchObject(gone);
    expect(
      await call('delete-table', { token: auth, params: { baseId: t.baseId, tableId: t.tableId } }),
    ).toMatchObject(gone);
    expect((await listTables(t)).map((x) => x.id)).toEqual([other.body.id]);
  });

  it('deletes a table for good: no item of it is left in DynamoDB', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Code', unique: true },
        { type: 'number', name: 'N' },
      ],
      views: [{ type: 'grid', name: 'One' }, { type: 'gallery' }],
      records: [{ fields: { Code: 'a' } }, { fields: { Code: 'b' } }],
    });
    const viewIds = t.table.views.map((v: { id: string }) => v.id as string);
    // a record placed by hand gives the view a manual order of its own
    const placed = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        records: [{ fields: { Code: 'c' } }],
        order: { viewId: t.viewId, anchorId: t.table.records[0].id, position: 'before' },
      },
    });
    expect(placed.status).toBe(201);
    expect((await itemsMentioning(t.tableId)).length).toBeGreaterThan(0);
    expect((await itemsMentioning(...viewIds)).length).toBeGreaterThan(0);

    const res = await call('delete-table-permanently', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    await drainPurges();

    expect(res.status).toBe(200);
    expect(await itemsMentioning(t.tableId, ...viewIds)).toEqual([]);
    expect(await listTables(t)).toEqual([]);
    expect(
      await call('get-table', { token: t.owner.auth, params: { baseId: t.baseId, tableId: t.tableId } }),
    ).toMatchObject(notFound(`Table ${t.tableId} not found`));
  });

  it('deleting a linked table for good removes the link field on the other side', async () => {
    const t = await newTable({ name: 'Stays', records: [{ fields: { Name: 's1' } }] });
    const gone = await createTable(t, {
      name: 'Goes',
      fields: [
        { type: 'singleLineText', name: 'Title' },
        { type: 'link', name: 'Stays', options: { relationship: 'manyMany', foreignTableId: t.tableId } },
      ],
      records: [{ fields: { Title: 'g1', Stays: [{ id: t.table.records[0].id }] } }],
    });
    expect(gone.status).toBe(201);
    const before = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.table.records[0].id },
    });
    expect(before.body.fields.Goes).toEqual([{ id: gone.body.records[0].id, title: 'g1' }]);

    const res = await call('delete-table-permanently', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: gone.body.id },
    });
    await drainPurges();

    expect(res.status).toBe(200);
    const fields = await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(fields.body.map((f: { name: string }) => f.name)).toEqual(['Name', 'Count', 'Status']);
    const after = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: t.table.records[0].id },
    });
    expect(after.status).toBe(200);
    expect(after.body.fields).toEqual({ Name: 's1' });
  });

  it('deletes a table in the trash for good', async () => {
    const t = await newTable();
    const params = { baseId: t.baseId, tableId: t.tableId };
    await call('delete-table', { token: t.owner.auth, params });

    const res = await call('delete-table-permanently', { token: t.owner.auth, params });
    await drainPurges();

    expect(res.status).toBe(200);
    expect(await itemsMentioning(t.tableId)).toEqual([]);
    expect(await call('delete-table-permanently', { token: t.owner.auth, params })).toMatchObject(
      notFound(`Table ${t.tableId} not found`),
    );
  });
});

describe('roles on tables', () => {
  it('a viewer may read tables but not create, update or delete them', async () => {
    const t = await newTable();
    const viewer = await newMember(t, 'viewer');
    const params = { baseId: t.baseId, tableId: t.tableId };

    const created = await createTable(t, {}, viewer);
    const updated = await call('update-table', { token: viewer.auth, params, body: { name: 'Mine' } });
    const trashed = await call('delete-table', { token: viewer.auth, params });
    const purged = await call('delete-table-permanently', { token: viewer.auth, params });
    await drainPurges();
    const read = await call('get-table', { token: viewer.auth, params });

    expect(created).toMatchObject(forbidden(`not allowed to operate table|create on ${t.baseId}`));
    expect(updated).toMatchObject(forbidden(`not allowed to operate table|update on ${t.tableId}`));
    expect(trashed).toMatchObject(forbidden(`not allowed to operate table|delete on ${t.tableId}`));
    expect(purged).toMatchObject(forbidden(`not allowed to operate table|delete on ${t.tableId}`));
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Table');
    expect((await listTables(t)).map((x) => x.id)).toEqual([t.tableId]);
  });

  it('an editor may not create tables but may create records', async () => {
    const t = await newTable({ records: [] });
    const editor = await newMember(t, 'editor');

    const table = await createTable(t, {}, editor);
    const records = await call('create-records', {
      token: editor.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'by editor' } }] },
    });

    expect(table).toMatchObject(forbidden(`not allowed to operate table|create on ${t.baseId}`));
    expect(records.status).toBe(201);
    expect(records.body.records[0]).toMatchObject({
      name: 'by editor',
      createdBy: editor.name,
      undeletable: false,
    });
  });

  it('a creator may create, update and delete tables', async () => {
    const t = await newTable();
    const creator = await newMember(t, 'creator');

    const created = await createTable(t, { name: 'Theirs', records: [] }, creator);
    const params = { baseId: t.baseId, tableId: created.body.id };
    const updated = await call('update-table', { token: creator.auth, params, body: { name: 'Renamed' } });
    const deleted = await call('delete-table', { token: creator.auth, params });

    expect(created.status).toBe(201);
    expect(created.body.views[0].createdBy).toBe(creator.id);
    expect(updated.body.name).toBe('Renamed');
    expect(deleted.status).toBe(200);
  });

  it('someone outside the space gets a 403', async () => {
    const t = await newTable();
    const stranger = await newUser();

    const res = await call('get-table', {
      token: stranger.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });

    expect(res).toMatchObject(forbidden(`not a collaborator of the space that holds ${t.tableId}`));
  });
});
