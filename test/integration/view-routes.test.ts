import { afterEach, describe, expect, it } from 'vitest';
import { injectChunkFault } from '#shared/db/commit.ts';
import { newId } from '#shared/ids.ts';
import type { HandlerName } from '#shared/routes.ts';
import { forbidden, invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * The view routes of Teable's client (teable-routes.md 2, View), the record status and the
 * delete of several fields: each write answers an empty 200, bumps the view's lastModifiedTime,
 * and changes nothing on a 400 or 404.
 */

type Table = Awaited<ReturnType<typeof newTable>>;
type Body = Record<string, unknown> | unknown[];

afterEach(() => injectChunkFault(undefined));

const onView = (name: HandlerName, t: Table, viewId: string, body?: Body, token = t.owner.auth) =>
  call(name, { token, params: { tableId: t.tableId, viewId }, ...(body !== undefined ? { body } : {}) });

const getView = async (t: Table, viewId = t.viewId) => {
  const res = await call('get-view', { token: t.owner.auth, params: { tableId: t.tableId, viewId } });
  expect(res.status).toBe(200);
  return res.body;
};

const listViews = async (t: Table): Promise<{ id: string; name: string; order: number }[]> =>
  (await call('list-views', { token: t.owner.auth, params: { tableId: t.tableId } })).body;

const createView = async (t: Table, body: Record<string, unknown>) => {
  const res = await call('create-view', { token: t.owner.auth, params: { tableId: t.tableId }, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string };
};

const fieldIds = (t: Table) => {
  const [name, count, status] = (t.table.fields as { id: string }[]).map((f) => f.id);
  return { name: name as string, count: count as string, status: status as string };
};

/** The primary names of a view's records as the listing shows them. */
const namesIn = async (t: Table, viewId = t.viewId, query = '') => {
  const res = await call('list-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    query: `viewId=${viewId}&take=1000${query}`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.records.map((r: { fields: { Name?: string } }) => r.fields.Name);
};

/** A table whose records are named r1… with Count n, n-1… (so sorting by Count reverses them). */
const countedTable = (n: number) =>
  newTable({
    records: Array.from({ length: n }, (_, i) => ({ fields: { Name: `r${i + 1}`, Count: n - i } })),
  });

/** Expects a write to answer an empty 200 and bump the view's lastModifiedTime. */
const expectEmptyWrite = async (
  t: Table,
  write: () => Promise<{ status: number; body: unknown }>,
  viewId = t.viewId,
) => {
  const before = await getView(t, viewId);
  await new Promise((r) => setTimeout(r, 5));
  const res = await write();
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toBeUndefined();
  const after = await getView(t, viewId);
  expect(Date.parse(after.lastModifiedTime)).toBeGreaterThan(Date.parse(before.lastModifiedTime));
  return after;
};

describe('PUT …/view/{viewId}/name', () => {
  it('renames the view, to a name another view has too', async () => {
    const t = await newTable();
    const other = await createView(t, { name: 'Other' });

    const view = await expectEmptyWrite(t, () => onView('update-view-name', t, t.viewId, { name: 'Other' }));

    expect(view.name).toBe('Other');
    expect((await listViews(t)).map((v) => [v.id, v.name])).toEqual([
      [t.viewId, 'Other'],
      [other.id, 'Other'],
    ]);
  });

  it.each([
    ['an empty name', { name: '  ' }],
    ['no name', {}],
    ['a name that is not text', { name: 7 }],
  ])('answers 400 for %s and changes nothing', async (_, body) => {
    const t = await newTable();
    const before = await getView(t);

    expect(await onView('update-view-name', t, t.viewId, body)).toMatchObject(invalid(/name/));
    expect(await getView(t)).toEqual(before);
  });

  it('answers 404 for a view of another table', async () => {
    const t = await newTable();
    const other = await newTable();

    expect(await onView('update-view-name', t, other.viewId, { name: 'x' })).toMatchObject(
      notFound(`View ${other.viewId} not found in table ${t.tableId}`),
    );
  });
});

describe('PUT …/view/{viewId}/description', () => {
  it('sets a description, answered on the view', async () => {
    const t = await newTable();

    const view = await expectEmptyWrite(t, () =>
      onView('update-view-description', t, t.viewId, { description: 'For triage' }),
    );

    expect(view.description).toBe('For triage');
    expect((await listViews(t))[0]).toMatchObject({ description: 'For triage' });
  });

  it('answers 400 for a description that is not text', async () => {
    const t = await newTable();

    expect(await onView('update-view-description', t, t.viewId, { description: 3 })).toMatchObject(
      invalid(/description/),
    );
    expect((await getView(t)).description).toBeUndefined();
  });
});

describe('PUT …/view/{viewId}/filter, sort, group', () => {
  it('replaces the filter (names answered as ids) and clears it with null', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    const filter = { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'isGreater', value: 1 }] };

    const set = await expectEmptyWrite(t, () => onView('update-view-filter', t, t.viewId, { filter }));
    const cleared = await expectEmptyWrite(t, () =>
      onView('update-view-filter', t, t.viewId, { filter: null }),
    );

    expect(set.filter).toEqual({
      conjunction: 'and',
      filterSet: [{ fieldId: f.count, operator: 'isGreater', value: 1 }],
    });
    expect(cleared.filter).toBeNull();
  });

  it('the filter applies to the listing at once', async () => {
    const t = await countedTable(3);

    await onView('update-view-filter', t, t.viewId, {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'isLess', value: 3 }] },
    });

    expect(await namesIn(t)).toEqual(['r2', 'r3']);
  });

  it('replaces the sort and the group, and clears them with null', async () => {
    const t = await countedTable(3);
    const f = fieldIds(t);

    const sorted = await expectEmptyWrite(t, () =>
      onView('update-view-sort', t, t.viewId, {
        sort: { sortObjs: [{ fieldId: 'Count', order: 'asc' }], manualSort: false },
      }),
    );
    expect(await namesIn(t)).toEqual(['r3', 'r2', 'r1']);
    const grouped = await expectEmptyWrite(t, () =>
      onView('update-view-group', t, t.viewId, { group: [{ fieldId: f.status, order: 'desc' }] }),
    );
    await onView('update-view-sort', t, t.viewId, { sort: null });
    const cleared = await expectEmptyWrite(t, () =>
      onView('update-view-group', t, t.viewId, { group: null }),
    );

    expect(sorted.sort).toEqual({ sortObjs: [{ fieldId: f.count, order: 'asc' }], manualSort: false });
    expect(grouped.group).toEqual([{ fieldId: f.status, order: 'desc' }]);
    expect(cleared).toMatchObject({ sort: null, group: null });
    expect(await namesIn(t)).toEqual(['r1', 'r2', 'r3']);
  });

  it.each([
    [
      'update-view-filter',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Gone', operator: 'is', value: 1 }] } },
      'filter.filterSet.0.fieldId: field "Gone" not found',
    ],
    [
      'update-view-filter',
      { filter: { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'contains', value: 1 }] } },
      /^filter\.filterSet\.0\.operator: "contains" is not allowed on number field "Count"/,
    ],
    ['update-view-filter', {}, /filter/],
    ['update-view-filter', { filter: 'Count > 1' }, /filter/],
    [
      'update-view-sort',
      { sort: { sortObjs: [{ fieldId: 'Gone', order: 'asc' }] } },
      'sort.sortObjs.0.fieldId: field "Gone" not found',
    ],
    ['update-view-sort', { sort: { sortObjs: [{ fieldId: 'Name', order: 'up' }] } }, /sort/],
    ['update-view-sort', {}, /sort/],
    [
      'update-view-group',
      {
        group: ['Name', 'Count', 'Status', 'Name'].map((fieldId) => ({ fieldId, order: 'asc' })),
      },
      'group: at most 3 levels',
    ],
    [
      'update-view-group',
      { group: [{ fieldId: 'Gone', order: 'asc' }] },
      'group.0.fieldId: field "Gone" not found',
    ],
    ['update-view-group', { group: 'Name' }, /group/],
  ] as const)('%s answers 400 for %j and changes nothing', async (route, body, message) => {
    const t = await newTable();
    const before = await getView(t);

    expect(await onView(route, t, t.viewId, body)).toMatchObject(invalid(message));
    expect(await getView(t)).toEqual(before);
  });

  it('accepts exactly three group levels', async () => {
    const t = await newTable();

    const res = await onView('update-view-group', t, t.viewId, {
      group: ['Name', 'Count', 'Status'].map((fieldId) => ({ fieldId, order: 'asc' })),
    });

    expect(res.status).toBe(200);
    expect((await getView(t)).group).toHaveLength(3);
  });
});

describe('PATCH …/view/{viewId}/options', () => {
  it('merges options into the view options', async () => {
    const t = await newTable();
    await onView('update-view-options', t, t.viewId, {
      options: { rowHeight: 'short', frozenColumnCount: 1 },
    });

    const view = await expectEmptyWrite(t, () =>
      onView('update-view-options', t, t.viewId, { options: { rowHeight: 'tall' } }),
    );

    expect(view.options).toEqual({ rowHeight: 'tall', frozenColumnCount: 1 });
  });

  it.each([[{}], [{ options: 'tall' }], [{ options: null }]])('answers 400 for %j', async (body) => {
    const t = await newTable();

    expect(await onView('update-view-options', t, t.viewId, body)).toMatchObject(invalid(/options/));
  });
});

describe('PUT …/view/{viewId}/column-meta', () => {
  it('merges column metadata per field, the rest kept', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    await onView('update-view-column-meta', t, t.viewId, [{ fieldId: f.name, columnMeta: { width: 200 } }]);

    const view = await expectEmptyWrite(t, () =>
      onView('update-view-column-meta', t, t.viewId, [
        { fieldId: f.name, columnMeta: { hidden: true, statisticFunc: 'filled' } },
        { fieldId: f.status, columnMeta: { order: -1, visible: true, required: true } },
        { fieldId: f.count, columnMeta: { statisticFunc: null } },
      ]),
    );

    expect(view.columnMeta).toEqual({
      [f.name]: { order: 0, width: 200, hidden: true, statisticFunc: 'filled' },
      [f.count]: { order: 1, statisticFunc: null },
      [f.status]: { order: -1, visible: true, required: true },
    });
  });

  it.each([
    [
      'an unknown field',
      [{ fieldId: 'fldAAAAAAAAAAAAAAAA', columnMeta: { width: 1 } }],
      'columnMeta: field "fldAAAAAAAAAAAAAAAA" not found',
    ],
    ['a field name instead of an id', [{ fieldId: 'Name', columnMeta: { width: 1 } }], /fieldId/],
    [
      'an unknown statistic',
      [{ fieldId: 'FIELD', columnMeta: { statisticFunc: 'median' } }],
      /statisticFunc/,
    ],
    ['an unknown part', [{ fieldId: 'FIELD', columnMeta: { colour: 'red' } }], /colour|columnMeta/],
    ['a width that is not a number', [{ fieldId: 'FIELD', columnMeta: { width: '100' } }], /width/],
    ['an object instead of a list', { FIELD: { width: 1 } }, /body/],
    ['an empty list', [], /body/],
  ])('answers 400 for %s and changes nothing', async (_, body, message) => {
    const t = await newTable();
    const before = await getView(t);
    const withField = JSON.parse(JSON.stringify(body).replaceAll('FIELD', fieldIds(t).name));

    expect(await onView('update-view-column-meta', t, t.viewId, withField)).toMatchObject(invalid(message));
    expect(await getView(t)).toEqual(before);
  });
});

describe('PUT …/view/{viewId}/order', () => {
  it('moves a view before or after another', async () => {
    const t = await newTable();
    const b = await createView(t, { name: 'B' });
    const c = await createView(t, { name: 'C' });

    await expectEmptyWrite(
      t,
      () => onView('move-view', t, c.id, { anchorId: t.viewId, position: 'before' }),
      c.id,
    );
    expect((await listViews(t)).map((v) => v.name)).toEqual(['C', 'Grid view', 'B']);
    await onView('move-view', t, c.id, { anchorId: b.id, position: 'after' });
    expect((await listViews(t)).map((v) => v.name)).toEqual(['Grid view', 'B', 'C']);
    await onView('move-view', t, t.viewId, { anchorId: b.id, position: 'after' });
    expect((await listViews(t)).map((v) => v.name)).toEqual(['B', 'Grid view', 'C']);
    const defaultView = await call('get-default-view-id', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(defaultView.body).toEqual({ id: b.id });
  });

  it('keeps working when moved to the same spot again and again (views numbered again)', async () => {
    const t = await newTable();
    const b = await createView(t, { name: 'B' });
    const c = await createView(t, { name: 'C' });

    for (let i = 0; i < 60; i++) {
      const [moving, anchor] = i % 2 ? [b, c] : [c, b];
      const res = await onView('move-view', t, moving.id, { anchorId: anchor.id, position: 'before' });
      expect(res.status).toBe(200);
    }

    const views = await listViews(t);
    expect(views.map((v) => v.name)).toEqual(['Grid view', 'B', 'C']);
    expect(new Set(views.map((v) => v.order)).size).toBe(3);
  });

  it('answers 400 for the view itself as anchor, 404 for an anchor not among the views', async () => {
    const t = await newTable();
    const other = await newTable();
    const b = await createView(t, { name: 'B' });
    const before = await listViews(t);

    expect(await onView('move-view', t, b.id, { anchorId: b.id, position: 'before' })).toMatchObject(
      invalid(`View ${b.id} cannot be moved relative to itself`),
    );
    expect(await onView('move-view', t, b.id, { anchorId: other.viewId, position: 'before' })).toMatchObject(
      notFound(`Anchor ${other.viewId} not found in table ${t.tableId}`),
    );
    expect(await onView('move-view', t, b.id, { anchorId: t.viewId, position: 'above' })).toMatchObject(
      invalid(/position/),
    );
    expect(
      await onView('move-view', t, b.id, { anchorId: 'rec0000000000000000', position: 'before' }),
    ).toMatchObject(invalid(/anchorId/));
    expect(
      await onView('move-view', t, newId('view'), { anchorId: t.viewId, position: 'before' }),
    ).toMatchObject(notFound(/not found in table/));
    expect(await listViews(t)).toEqual(before);
  });
});

describe('PUT …/view/{viewId}/manual-sort', () => {
  it("stores the sorted order as the view's manual order, the view sort untouched", async () => {
    const t = await countedTable(5);
    const second = await createView(t, { name: 'Second' });

    const view = await expectEmptyWrite(t, () =>
      onView('apply-view-manual-sort', t, t.viewId, { sortObjs: [{ fieldId: 'Count', order: 'asc' }] }),
    );

    expect(view.sort).toBeNull();
    expect(await namesIn(t)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
    expect(await namesIn(t, second.id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    // The order stays after the values change, and a new record goes to the end.
    const records = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'r6', Count: 0 } }] },
    });
    expect(records.status).toBe(201);
    expect(await namesIn(t)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1', 'r6']);
  });

  it('keeps the current order among equal values and can be applied again', async () => {
    const t = await newTable({
      records: ['a', 'b', 'c', 'd'].map((Name, i) => ({ fields: { Name, Count: i % 2 } })),
    });

    await onView('apply-view-manual-sort', t, t.viewId, { sortObjs: [{ fieldId: 'Count', order: 'desc' }] });
    expect(await namesIn(t)).toEqual(['b', 'd', 'a', 'c']);
    await onView('apply-view-manual-sort', t, t.viewId, { sortObjs: [{ fieldId: 'Name', order: 'desc' }] });
    expect(await namesIn(t)).toEqual(['d', 'c', 'b', 'a']);
    // Record order moves still work on top of it.
    const records = (
      await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId }, query: 'take=10' })
    ).body.records as { id: string; fields: { Name: string } }[];
    const idOf = (name: string) => records.find((r) => r.fields.Name === name)?.id as string;
    const moved = await onView('update-record-order', t, t.viewId, {
      anchorId: idOf('d'),
      position: 'before',
      recordIds: [idOf('a')],
    });
    expect(moved.status).toBe(200);
    expect(await namesIn(t)).toEqual(['a', 'd', 'c', 'b']);
  });

  it('sorts a table whose write needs more than one transaction, all or nothing', async () => {
    const t = await countedTable(60);
    const expected = Array.from({ length: 60 }, (_, i) => `r${60 - i}`);

    injectChunkFault((unit) => {
      if (unit === 1) throw new Error('injected');
    });
    const failed = await onView('apply-view-manual-sort', t, t.viewId, {
      sortObjs: [{ fieldId: 'Count', order: 'asc' }],
    });
    injectChunkFault(undefined);
    const afterFault = await namesIn(t);
    const done = await onView('apply-view-manual-sort', t, t.viewId, {
      sortObjs: [{ fieldId: 'Count', order: 'asc' }],
    });

    expect(failed.status).toBe(500);
    expect(afterFault).toEqual([...expected].reverse());
    expect(done.status).toBe(200);
    expect(await namesIn(t)).toEqual(expected);
  });

  it.each([
    [{ sortObjs: [{ fieldId: 'Gone', order: 'asc' }] }, 'sortObjs.0.fieldId: field "Gone" not found'],
    [{ sortObjs: [{ fieldId: 'Count', order: 'up' }] }, /sortObjs/],
    [{}, /sortObjs/],
  ])('answers 400 for %j and changes nothing', async (body, message) => {
    const t = await countedTable(3);

    expect(await onView('apply-view-manual-sort', t, t.viewId, body)).toMatchObject(invalid(message));
    expect(await namesIn(t)).toEqual(['r1', 'r2', 'r3']);
  });
});

describe('PUT …/view/{viewId}/locked', () => {
  it('locks and unlocks a view; no isLocked unlocks', async () => {
    const t = await newTable();

    const locked = await expectEmptyWrite(t, () =>
      onView('update-view-locked', t, t.viewId, { isLocked: true }),
    );
    const unlocked = await expectEmptyWrite(t, () => onView('update-view-locked', t, t.viewId, {}));

    expect(locked.isLocked).toBe(true);
    expect(unlocked.isLocked).toBe(false);
  });

  it('answers 400 for an isLocked that is not a boolean', async () => {
    const t = await newTable();

    expect(await onView('update-view-locked', t, t.viewId, { isLocked: 'yes' })).toMatchObject(
      invalid(/isLocked/),
    );
  });
});

/** Table `Items` with a many-many link to table `Parts` (P1, P2, P3) in the same base. */
const linkedTables = async () => {
  const items = await newTable({ name: 'Items', records: [{ fields: { Name: 'i1' } }] });
  const parts = await call('create-table', {
    token: items.owner.auth,
    params: { baseId: items.baseId },
    body: { name: 'Parts', records: ['P1', 'P2', 'P3'].map((Name) => ({ fields: { Name } })) },
  });
  const link = await call('create-field', {
    token: items.owner.auth,
    params: { tableId: items.tableId },
    body: {
      type: 'link',
      name: 'Parts',
      options: { relationship: 'manyMany', foreignTableId: parts.body.id },
    },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const partIds = (parts.body.records as { id: string }[]).map((r) => r.id);
  return { items, partsTableId: parts.body.id as string, partIds, linkFieldId: link.body.id as string };
};

describe('GET …/view/{viewId}/filter-link-records', () => {
  it('answers the records the link items of the view filter name, with titles', async () => {
    const { items, partsTableId, partIds, linkFieldId } = await linkedTables();
    const [p1, , p3] = partIds;
    const gone = newId('record');
    await onView('update-view-filter', items, items.viewId, {
      filter: {
        conjunction: 'or',
        filterSet: [
          { fieldId: linkFieldId, operator: 'hasAnyOf', value: [p3, gone] },
          {
            conjunction: 'and',
            filterSet: [{ fieldId: linkFieldId, operator: 'hasAllOf', value: [p1, p3] }],
          },
          { fieldId: 'Name', operator: 'is', value: p1 },
        ],
      },
    });

    const res = await onView('list-view-filter-link-records', items, items.viewId);

    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        tableId: partsTableId,
        records: [
          { id: p3, title: 'P3' },
          { id: p1, title: 'P1' },
        ],
      },
    ]);
  });

  it('answers an empty list for a view without link filter items, 404 for an unknown view', async () => {
    const t = await newTable();
    const unknown = newId('view');

    expect(await onView('list-view-filter-link-records', t, t.viewId)).toMatchObject({
      status: 200,
      body: [],
    });
    expect(await onView('list-view-filter-link-records', t, unknown)).toMatchObject(
      notFound(`View ${unknown} not found in table ${t.tableId}`),
    );
  });
});

describe('GET /table/{tableId}/record/{recordId}/status', () => {
  const status = (t: Table, recordId: string, query = '') =>
    call('get-record-status', { token: t.owner.auth, params: { tableId: t.tableId, recordId }, query });

  const recordIds = (t: Table) => (t.table.records as { id: string }[]).map((r) => r.id);

  it('tells whether the record passes the view filter, the request filter and the search', async () => {
    const t = await countedTable(3);
    const [r1, r2, r3] = recordIds(t) as [string, string, string];
    const filter = (f: unknown) => `&filter=${encodeURIComponent(JSON.stringify(f))}`;
    await onView('update-view-filter', t, t.viewId, {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'isLess', value: 3 }] },
    });

    expect((await status(t, r1)).body).toEqual({ isVisible: false, isDeleted: false });
    expect((await status(t, r2)).body).toEqual({ isVisible: true, isDeleted: false });
    expect((await status(t, r1, `viewId=${t.viewId}&ignoreViewQuery=true`)).body).toEqual({
      isVisible: true,
      isDeleted: false,
    });
    const nameIs = (v: string) =>
      filter({ conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'is', value: v }] });
    expect((await status(t, r2, `viewId=${t.viewId}${nameIs('r3')}`)).body.isVisible).toBe(false);
    expect((await status(t, r3, `viewId=${t.viewId}${nameIs('r3')}`)).body.isVisible).toBe(true);
    expect((await status(t, r2, 'search[]=r3&search[]=&search[]=true')).body.isVisible).toBe(false);
    expect((await status(t, r3, 'search[]=r3&search[]=&search[]=true')).body.isVisible).toBe(true);
    expect((await status(t, r2, 'search[]=r3')).body.isVisible).toBe(true);
    expect((await status(t, r2, `selectedRecordIds[]=${r3}`)).body.isVisible).toBe(false);
  });

  it('answers isDeleted for a record that does not exist or was deleted, not a 404', async () => {
    const t = await countedTable(2);
    const [r1] = recordIds(t) as [string];
    await call('delete-record', { token: t.owner.auth, params: { tableId: t.tableId, recordId: r1 } });

    expect(await status(t, r1)).toMatchObject({ status: 200, body: { isVisible: false, isDeleted: true } });
    expect((await status(t, newId('record'))).body).toEqual({ isVisible: false, isDeleted: true });
  });

  it('answers 400 for bad parameters and 404 for an unknown view', async () => {
    const t = await countedTable(1);
    const [r1] = recordIds(t) as [string];
    const unknown = newId('view');

    expect(await status(t, r1, 'filter=%7Bnot')).toMatchObject(invalid('filter: not valid JSON'));
    expect(
      await status(
        t,
        r1,
        `orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'Gone', order: 'asc' }]))}`,
      ),
    ).toMatchObject(invalid('orderBy.0.fieldId: field "Gone" not found'));
    expect(await status(t, 'rec1')).toMatchObject(invalid(/recordId/));
    expect(await status(t, r1, `viewId=${unknown}`)).toMatchObject(notFound(/not found/));
  });
});

describe('DELETE /table/{tableId}/field?fieldIds[]=', () => {
  const deleteFields = (t: Table, ids: string[]) =>
    call('delete-fields', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: ids.map((id) => `fieldIds[]=${id}`).join('&'),
    });
  const fieldsOf = async (t: Table) =>
    (await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } })).body as {
      id: string;
      name: string;
      hasError?: boolean;
    }[];

  it('deletes several fields in one write; views and formulas follow', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    const formula = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'formula', name: 'Twice', options: { expression: `{${f.count}} * 2` } },
    });
    const reader = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'formula', name: 'Label', options: { expression: `{${f.status}}` } },
    });
    await onView('update-view-sort', t, t.viewId, {
      sort: { sortObjs: [{ fieldId: f.status, order: 'asc' }] },
    });

    const res = await deleteFields(t, [f.count, f.status, formula.body.id]);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toBeUndefined();
    const left = await fieldsOf(t);
    expect(left.map((x) => x.name)).toEqual(['Name', 'Label']);
    expect(left.find((x) => x.id === reader.body.id)?.hasError).toBe(true);
    const view = await getView(t);
    expect(view.sort).toEqual({ sortObjs: [] });
    expect(Object.keys(view.columnMeta).sort()).toEqual([f.name, reader.body.id].sort());
  });

  it('deletes a link field together with its other side and a lookup through it', async () => {
    const { items, partsTableId, linkFieldId } = await linkedTables();
    const lookup = await call('create-field', {
      token: items.owner.auth,
      params: { tableId: items.tableId },
      body: {
        type: 'singleLineText',
        isLookup: true,
        lookupOptions: {
          foreignTableId: partsTableId,
          linkFieldId,
          lookupFieldId: (
            await call('list-fields', { token: items.owner.auth, params: { tableId: partsTableId } })
          ).body[0].id,
        },
      },
    });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(201);

    const res = await deleteFields(items, [linkFieldId, lookup.body.id]);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await fieldsOf(items)).map((x) => x.name)).toEqual(['Name', 'Count', 'Status']);
    const parts = await call('list-fields', { token: items.owner.auth, params: { tableId: partsTableId } });
    expect(parts.body.map((x: { name: string }) => x.name)).toEqual(['Name', 'Count', 'Status']);
  });

  it('deletes none when the primary field is among them (403) or one is unknown (404)', async () => {
    const t = await newTable();
    const f = fieldIds(t);
    const unknown = newId('field');

    expect(await deleteFields(t, [f.count, f.name])).toMatchObject(
      forbidden(`Field ${f.name} is the primary field and cannot be deleted`),
    );
    expect(await deleteFields(t, [f.count, unknown])).toMatchObject(
      notFound(`Field ${unknown} not found in table ${t.tableId}`),
    );
    expect((await fieldsOf(t)).map((x) => x.id)).toEqual([f.name, f.count, f.status]);
  });

  it('answers 400 for no ids or a malformed id', async () => {
    const t = await newTable();

    expect(await deleteFields(t, [])).toMatchObject(invalid(/fieldIds/));
    expect(await deleteFields(t, ['Count'])).toMatchObject(invalid(/fieldIds/));
    expect((await fieldsOf(t)).length).toBe(3);
  });
});
