import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { error, ISO, id, invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

type Table = Awaited<ReturnType<typeof newTable>>;
type View = { id: string; name: string; type: string; order: number; [k: string]: unknown };

const createView = (t: Table, body: Record<string, unknown>, token = t.owner.auth) =>
  call('create-view', { token, params: { tableId: t.tableId }, body });

const mustCreateView = async (t: Table, body: Record<string, unknown>): Promise<View> => {
  const res = await createView(t, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const listViews = async (t: Table): Promise<View[]> => {
  const res = await call('list-views', { token: t.owner.auth, params: { tableId: t.tableId } });
  expect(res.status).toBe(200);
  return res.body;
};

const getView = (t: Table, viewId: string) =>
  call('get-view', { token: t.owner.auth, params: { tableId: t.tableId, viewId } });

const updateView = (t: Table, viewId: string, body: Record<string, unknown>, token = t.owner.auth) =>
  call('update-view', { token, params: { tableId: t.tableId, viewId }, body });

const deleteView = (t: Table, viewId: string, token = t.owner.auth) =>
  call('delete-view', { token, params: { tableId: t.tableId, viewId } });

const fieldIds = (t: Table) => {
  const [name, count, status] = (t.table.fields as { id: string }[]).map((f) => f.id);
  return { name: name as string, count: count as string, status: status as string };
};

describe('POST /table/{tableId}/view', () => {
  it.each([
    ['grid', 'Grid view 2'],
    ['kanban', 'Kanban view'],
    ['form', 'Form'],
    ['gallery', 'Gallery'],
    ['calendar', 'Calendar'],
  ])('creates a %s view named %j by default', async (type, name) => {
    const t = await newTable();
    const f = fieldIds(t);

    const res = await createView(t, { type });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: id('viw'),
      name,
      type,
      order: 1,
      filter: null,
      sort: null,
      group: null,
      columnMeta: { [f.name]: { order: 0 }, [f.count]: { order: 1 }, [f.status]: { order: 2 } },
      options: {},
      createdBy: t.owner.id,
      createdTime: expect.stringMatching(ISO),
      lastModifiedTime: res.body.createdTime,
    });
    const got = await getView(t, res.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('creates a grid view when no type is given, names made unique with " 2", " 3"', async () => {
    const t = await newTable();

    const a = await mustCreateView(t, {});
    const b = await mustCreateView(t, {});
    const k1 = await mustCreateView(t, { type: 'kanban' });
    const k2 = await mustCreateView(t, { type: 'kanban' });

    expect([a, b, k1, k2].map((v) => [v.type, v.name])).toEqual([
      ['grid', 'Grid view 2'],
      ['grid', 'Grid view 3'],
      ['kanban', 'Kanban view'],
      ['kanban', 'Kanban view 2'],
    ]);
  });

  it('stores filter, sort, group, columnMeta and options, answering field names as ids', async () => {
    const t = await newTable();
    const f = fieldIds(t);

    const res = await createView(t, {
      type: 'grid',
      name: 'Heavy first',
      filter: {
        conjunction: 'or',
        filterSet: [
          { fieldId: 'Status', operator: 'is', value: 'heavy' },
          { conjunction: 'and', filterSet: [{ fieldId: f.count, operator: 'isGreater', value: 2 }] },
        ],
      },
      sort: { sortObjs: [{ fieldId: 'Count', order: 'desc' }], manualSort: false },
      group: [
        { fieldId: 'Status', order: 'asc' },
        { fieldId: f.name, order: 'desc' },
      ],
      columnMeta: { Count: { order: 9, width: 120 }, [f.status]: { hidden: true } },
      options: { rowHeight: 'short' },
    });

    expect(res.status).toBe(201);
    const expected = {
      filter: {
        conjunction: 'or',
        filterSet: [
          { fieldId: f.status, operator: 'is', value: 'heavy' },
          { conjunction: 'and', filterSet: [{ fieldId: f.count, operator: 'isGreater', value: 2 }] },
        ],
      },
      sort: { sortObjs: [{ fieldId: f.count, order: 'desc' }], manualSort: false },
      group: [
        { fieldId: f.status, order: 'asc' },
        { fieldId: f.name, order: 'desc' },
      ],
      columnMeta: {
        [f.name]: { order: 0 },
        [f.count]: { order: 9, width: 120 },
        [f.status]: { order: 2, hidden: true },
      },
      options: { rowHeight: 'short' },
    };
    expect(res.body).toMatchObject({ name: 'Heavy first', ...expected });
    expect((await getView(t, res.body.id)).body).toEqual(res.body);
    expect((await listViews(t))[1]).toEqual(res.body);
  });

  it.each([
    [
      'a filter on an unknown field',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Nope', operator: 'is', value: 1 }] } },
      'filter.filterSet.0.fieldId: field "Nope" not found',
    ],
    [
      'a nested filter on an unknown field id',
      {
        filter: {
          conjunction: 'and',
          filterSet: [{ conjunction: 'or', filterSet: [{ fieldId: 'fldAAAAAAAAAAAAAAAA', operator: 'is' }] }],
        },
      },
      'filter.filterSet.0.filterSet.0.fieldId: field "fldAAAAAAAAAAAAAAAA" not found',
    ],
    [
      'a filter with a bad conjunction',
      { filter: { conjunction: 'xor', filterSet: [] } },
      'filter.conjunction: must be "and" or "or"',
    ],
    [
      'a filter item without operator',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name' }] } },
      'filter.filterSet.0.operator: must be text',
    ],
    [
      'a filter operator the field kind does not allow',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'contains', value: 1 }] } },
      /^filter\.filterSet\.0\.operator: "contains" is not allowed on number field "Count"; allowed: is, isNot/,
    ],
    [
      'a filter value of the wrong shape',
      {
        filter: {
          conjunction: 'and',
          filterSet: [{ fieldId: 'Status', operator: 'isAnyOf', value: 'heavy' }],
        },
      },
      'filter.filterSet.0.value: isAnyOf takes a non-empty list',
    ],
    [
      'a sort on an unknown field',
      { sort: { sortObjs: [{ fieldId: 'Nope', order: 'asc' }] } },
      'sort.sortObjs.0.fieldId: field "Nope" not found',
    ],
    ['a sort with a bad order', { sort: { sortObjs: [{ fieldId: 'Name', order: 'up' }] } }, /sort/],
    [
      'a group on an unknown field',
      { group: [{ fieldId: 'Nope', order: 'asc' }] },
      'group.0.fieldId: field "Nope" not found',
    ],
    [
      'four group levels',
      {
        group: [
          { fieldId: 'Name', order: 'asc' },
          { fieldId: 'Count', order: 'asc' },
          { fieldId: 'Status', order: 'asc' },
          { fieldId: 'Name', order: 'desc' },
        ],
      },
      'group: at most 3 levels',
    ],
    [
      'columnMeta of an unknown field',
      { columnMeta: { Nope: { width: 3 } } },
      'columnMeta: field "Nope" not found',
    ],
    ['an unknown type', { type: 'timeline' }, /type/],
    ['an empty name', { name: ' ' }, /name/],
  ])('answers 400 for %s and creates nothing', async (_, body, message) => {
    const t = await newTable();

    const res = await createView(t, body);

    expect(res).toMatchObject(invalid(message));
    expect((await listViews(t)).map((v) => v.id)).toEqual([t.viewId]);
  });

  it('accepts the name of another view: view names may repeat', async () => {
    const t = await newTable();

    const res = await createView(t, { name: 'Grid view' });

    expect(res.status).toBe(201);
    expect((await listViews(t)).map((v) => v.name)).toEqual(['Grid view', 'Grid view']);
  });

  it('accepts exactly three group levels', async () => {
    const t = await newTable();

    const res = await createView(t, {
      group: [
        { fieldId: 'Name', order: 'asc' },
        { fieldId: 'Count', order: 'asc' },
        { fieldId: 'Status', order: 'asc' },
      ],
    });

    expect(res.status).toBe(201);
    expect(res.body.group).toHaveLength(3);
  });

  it('an editor may create, change and delete views; a viewer may not', async () => {
    const t = await newTable();
    const editor = await newMember(t, 'editor');
    const viewer = await newMember(t, 'viewer');

    const byViewer = await createView(t, { type: 'form' }, viewer.auth);
    const byEditor = await createView(t, { type: 'form' }, editor.auth);
    const viewerPatch = await updateView(t, byEditor.body.id, { name: 'x' }, viewer.auth);
    const viewerDelete = await deleteView(t, byEditor.body.id, viewer.auth);
    const editorPatch = await updateView(t, byEditor.body.id, { name: 'Sign-up' }, editor.auth);
    const editorDelete = await deleteView(t, byEditor.body.id, editor.auth);

    expect(byViewer).toMatchObject(
      error(403, 'restricted_resource', `not allowed to operate view|create on ${t.tableId}`),
    );
    expect(byEditor.status).toBe(201);
    expect(byEditor.body.createdBy).toBe(editor.id);
    expect(viewerPatch).toMatchObject(
      error(403, 'restricted_resource', `not allowed to operate view|update on ${t.tableId}`),
    );
    expect(viewerDelete).toMatchObject(
      error(403, 'restricted_resource', `not allowed to operate view|delete on ${t.tableId}`),
    );
    expect(editorPatch.body.name).toBe('Sign-up');
    expect(editorDelete.status).toBe(200);
  });
});

describe('GET /table/{tableId}/view', () => {
  it('lists views by order', async () => {
    const t = await newTable();
    const b = await mustCreateView(t, { type: 'kanban', name: 'B' });
    const a = await mustCreateView(t, { type: 'form', name: 'A' });

    const list = await listViews(t);

    expect(list.map((v) => [v.id, v.name, v.order])).toEqual([
      [t.viewId, 'Grid view', 0],
      [b.id, 'B', 1],
      [a.id, 'A', 2],
    ]);
  });

  it('completes columnMeta with fields added after the view', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    const field = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'longText', name: 'Later' },
    });

    const view = (await getView(t, t.viewId)).body;

    expect(view.columnMeta).toEqual({
      [f.name]: { order: 0 },
      [f.count]: { order: 1 },
      [f.status]: { order: 2 },
      [field.body.id]: { order: 3 },
    });
  });

  it('answers 404 for a view of another table and an unknown view', async () => {
    const t = await newTable();
    const other = await newTable();
    const unknown = newId('view');

    expect(await getView(t, other.viewId)).toMatchObject(
      notFound(`View ${other.viewId} not found in table ${t.tableId}`),
    );
    expect(await updateView(t, other.viewId, { name: 'Mine' })).toMatchObject(
      notFound(`View ${other.viewId} not found in table ${t.tableId}`),
    );
    expect(await deleteView(t, other.viewId)).toMatchObject(
      notFound(`View ${other.viewId} not found in table ${t.tableId}`),
    );
    expect(await getView(t, unknown)).toMatchObject(
      notFound(`View ${unknown} not found in table ${t.tableId}`),
    );
    const theirs = await call('get-view', {
      token: other.owner.auth,
      params: { tableId: other.tableId, viewId: other.viewId },
    });
    expect(theirs.body.name).toBe('Grid view');
  });

  it('answers 400 for a view id of the wrong shape', async () => {
    const t = await newTable();

    expect(await getView(t, 'grid')).toMatchObject(invalid(/viewId/));
  });
});

describe('PATCH /table/{tableId}/view/{viewId}', () => {
  it('renames a view and replaces its filter, sort and group', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    const view = await mustCreateView(t, {
      name: 'Old',
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'isEmpty', value: null }] },
      sort: { sortObjs: [{ fieldId: 'Name', order: 'asc' }] },
      group: [{ fieldId: 'Count', order: 'asc' }],
    });

    const res = await updateView(t, view.id, {
      name: 'New',
      filter: { conjunction: 'or', filterSet: [{ fieldId: 'Count', operator: 'isLess', value: 5 }] },
      sort: { sortObjs: [{ fieldId: 'Status', order: 'desc' }], manualSort: true },
      group: [{ fieldId: 'Name', order: 'desc' }],
    });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...view,
      name: 'New',
      filter: { conjunction: 'or', filterSet: [{ fieldId: f.count, operator: 'isLess', value: 5 }] },
      sort: { sortObjs: [{ fieldId: f.status, order: 'desc' }], manualSort: true },
      group: [{ fieldId: f.name, order: 'desc' }],
      lastModifiedTime: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.lastModifiedTime)).toBeGreaterThanOrEqual(
      Date.parse(String(view.createdTime)),
    );
    expect((await getView(t, view.id)).body).toEqual(res.body);
  });

  it('clears filter, sort and group with null and leaves absent parts alone', async () => {
    const t = await newTable();
    const view = await mustCreateView(t, {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'isEmpty', value: null }] },
      sort: { sortObjs: [{ fieldId: 'Name', order: 'asc' }] },
      group: [{ fieldId: 'Count', order: 'asc' }],
      options: { rowHeight: 'tall' },
    });

    const cleared = await updateView(t, view.id, { filter: null, sort: null });
    const alone = await updateView(t, view.id, { options: { frozenColumnCount: 2 } });

    expect(cleared.body).toMatchObject({ filter: null, sort: null, group: view.group });
    expect(alone.body).toMatchObject({
      filter: null,
      sort: null,
      group: view.group,
      options: { rowHeight: 'tall', frozenColumnCount: 2 },
    });
  });

  it('merges columnMeta: order, width and hidden per field, the rest kept', async () => {
    const t = await newTable();
    const f = fieldIds(t);

    const first = await updateView(t, t.viewId, {
      columnMeta: { Name: { width: 200 }, Status: { order: -1 } },
    });
    const second = await updateView(t, t.viewId, { columnMeta: { [f.name]: { hidden: true } } });

    expect(first.body.columnMeta).toEqual({
      [f.name]: { order: 0, width: 200 },
      [f.count]: { order: 1 },
      [f.status]: { order: -1 },
    });
    expect(second.body.columnMeta).toEqual({
      [f.name]: { order: 0, width: 200, hidden: true },
      [f.count]: { order: 1 },
      [f.status]: { order: -1 },
    });
    const fields = await call('list-fields', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `viewId=${t.viewId}`,
    });
    expect(fields.body.map((x: { id: string }) => x.id)).toEqual([f.status, f.name, f.count]);
  });

  it.each([
    [
      'a filter on an unknown field',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Gone', operator: 'is', value: 1 }] } },
      'filter.filterSet.0.fieldId: field "Gone" not found',
    ],
    [
      'a sort on an unknown field',
      { sort: { sortObjs: [{ fieldId: 'Gone', order: 'asc' }] } },
      'sort.sortObjs.0.fieldId: field "Gone" not found',
    ],
    [
      'four group levels',
      {
        group: [
          { fieldId: 'Name', order: 'asc' },
          { fieldId: 'Name', order: 'asc' },
          { fieldId: 'Name', order: 'asc' },
          { fieldId: 'Name', order: 'asc' },
        ],
      },
      'group: at most 3 levels',
    ],
    ['a name that is not text', { name: 3 }, /name/],
  ])('answers 400 for %s and changes nothing', async (_, body, message) => {
    const t = await newTable();
    await mustCreateView(t, { name: 'Other' });
    const before = (await getView(t, t.viewId)).body;

    const res = await updateView(t, t.viewId, body);

    expect(res).toMatchObject(invalid(message));
    expect((await getView(t, t.viewId)).body).toEqual(before);
  });

  it('takes the name of another view: view names may repeat', async () => {
    const t = await newTable();
    const other = await mustCreateView(t, { name: 'Other' });

    const res = await updateView(t, t.viewId, { name: 'Other' });

    expect(res.status).toBe(200);
    expect((await listViews(t)).map((v) => [v.id, v.name])).toEqual([
      [t.viewId, 'Other'],
      [other.id, 'Other'],
    ]);
  });

  it('keeps its own name', async () => {
    const t = await newTable();

    const res = await updateView(t, t.viewId, { name: 'Grid view' });

    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Grid view');
  });
});

describe('DELETE /table/{tableId}/view/{viewId}', () => {
  it('deletes a view; the next one becomes the default view', async () => {
    const t = await newTable();
    const second = await mustCreateView(t, { type: 'gallery' });

    const res = await deleteView(t, t.viewId);

    expect(res.status).toBe(200);
    expect(await getView(t, t.viewId)).toMatchObject(
      notFound(`View ${t.viewId} not found in table ${t.tableId}`),
    );
    expect((await listViews(t)).map((v) => v.id)).toEqual([second.id]);
    const defaultView = await call('get-default-view-id', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(defaultView.body).toEqual({ id: second.id });
    expect(await deleteView(t, t.viewId)).toMatchObject(notFound(/not found/));
  });

  it('answers 400 for the last view of a table', async () => {
    const t = await newTable();

    const res = await deleteView(t, t.viewId);

    expect(res).toMatchObject(invalid(`View ${t.viewId} is the last view of table ${t.tableId}`));
    expect((await listViews(t)).map((v) => v.id)).toEqual([t.viewId]);
  });

  it('a new view after a deletion gets the next order, never a used one', async () => {
    const t = await newTable();
    const a = await mustCreateView(t, { name: 'A' });
    await mustCreateView(t, { name: 'B' });
    await deleteView(t, a.id);

    const c = await mustCreateView(t, { name: 'C' });

    expect((await listViews(t)).map((v) => [v.name, v.order])).toEqual([
      ['Grid view', 0],
      ['B', 2],
      ['C', 3],
    ]);
    expect(c.order).toBe(3);
  });
});
