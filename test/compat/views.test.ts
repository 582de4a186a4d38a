/**
 * The view routes, the record status and the delete of several fields through Teable's own
 * client (`@teable/openapi` 1.10.0, pinned): each of the client's functions, pointed at the local
 * server, and the answers read back as a Teable user would read them.
 */
import {
  configApi,
  createBase,
  createField,
  createSpace,
  createTable,
  createView,
  deleteFields,
  getFields,
  getRecordStatus,
  getRecords,
  getView,
  getViewFilterLinkRecords,
  getViewList,
  manualSortView,
  updateViewColumnMeta,
  updateViewDescription,
  updateViewFilter,
  updateViewGroup,
  updateViewLocked,
  updateViewName,
  updateViewOptions,
  updateViewOrder,
  updateViewSort,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** A table `Tasks` (Name, Count: t1 3, t2 1, t3 2) made through the client. */
const setup = async () => {
  const space = await createSpace({ name: 'Compat views' });
  const base = await createBase({ spaceId: space.data.id });
  const table = await createTable(base.data.id, {
    name: 'Tasks',
    fields: [
      { type: 'singleLineText' as never, name: 'Name' },
      { type: 'number' as never, name: 'Count' },
    ],
    records: [
      { fields: { Name: 't1', Count: 3 } },
      { fields: { Name: 't2', Count: 1 } },
      { fields: { Name: 't3', Count: 2 } },
    ],
  });
  const t = table.data;
  const viewId = t.defaultViewId ?? (t.views[0]?.id as string);
  const field = (name: string) => t.fields.find((f) => f.name === name)?.id as string;
  const names = async () =>
    (await getRecords(t.id, { viewId })).data.records.map((r) => r.fields.Name as string);
  return { base: base.data, table: t, tableId: t.id, viewId, field, names };
};

describe("view routes through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Compat views' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it("creates a view with its description (Teable's '/api/table/{tableId}/view (POST)')", async () => {
    const { tableId } = await setup();
    const made = await createView(tableId, {
      name: 'New view',
      description: 'the new view',
      type: 'grid',
    } as never);
    expect(made.data).toMatchObject({ name: 'New view', description: 'the new view', type: 'grid' });
    expect((await getView(tableId, made.data.id)).data).toMatchObject({ description: 'the new view' });
    await expect(
      createView(tableId, { type: 'grid', description: 'x'.repeat(2001) } as never),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('renames a view (names may repeat), sets its description and locks it', async () => {
    const { tableId, viewId } = await setup();
    const other = await createView(tableId, { type: 'grid' as never, name: 'Board' });

    expect((await updateViewName(tableId, viewId, { name: 'Board' })).status).toBe(200);
    expect((await updateViewDescription(tableId, viewId, { description: 'Daily work' })).status).toBe(200);
    expect((await updateViewLocked(tableId, viewId, { isLocked: true })).status).toBe(200);

    const view = (await getView(tableId, viewId)).data;
    expect(view).toMatchObject({ name: 'Board', description: 'Daily work', isLocked: true });
    expect((await getView(tableId, other.data.id)).data.name).toBe('Board');
    await expect(updateViewName(tableId, viewId, { name: '' })).rejects.toMatchObject({ status: 400 });
  });

  it('replaces filter, sort and group; the listing follows', async () => {
    const { tableId, viewId, field, names } = await setup();

    await updateViewFilter(tableId, viewId, {
      filter: {
        conjunction: 'and',
        filterSet: [{ fieldId: field('Count'), operator: 'isGreater', value: 1 }],
      },
    } as never);
    await updateViewSort(tableId, viewId, {
      sort: { sortObjs: [{ fieldId: field('Count'), order: 'asc' }] },
    } as never);
    expect(await names()).toEqual(['t3', 't1']);
    await updateViewGroup(tableId, viewId, { group: [{ fieldId: field('Name'), order: 'desc' }] } as never);

    const view = (await getView(tableId, viewId)).data;
    expect(view.sort).toEqual({ sortObjs: [{ fieldId: field('Count'), order: 'asc' }] });
    expect(view.group).toEqual([{ fieldId: field('Name'), order: 'desc' }]);
    await updateViewFilter(tableId, viewId, { filter: null });
    await updateViewSort(tableId, viewId, { sort: null } as never);
    await updateViewGroup(tableId, viewId, { group: null } as never);
    expect(await names()).toEqual(['t1', 't2', 't3']);
    await expect(
      updateViewGroup(tableId, viewId, {
        group: [1, 2, 3, 4].map(() => ({ fieldId: field('Name'), order: 'asc' })),
      } as never),
    ).rejects.toMatchObject({ status: 400, message: 'group: at most 3 levels' });
  });

  it('merges options and column metadata', async () => {
    const { tableId, viewId, field } = await setup();

    await updateViewOptions(tableId, viewId, { options: { rowHeight: 'short' } as never });
    await updateViewOptions(tableId, viewId, { options: { frozenColumnCount: 2 } as never });
    await updateViewColumnMeta(tableId, viewId, [
      { fieldId: field('Count'), columnMeta: { width: 90, statisticFunc: 'sum' as never } },
    ]);
    await updateViewColumnMeta(tableId, viewId, [{ fieldId: field('Count'), columnMeta: { hidden: true } }]);

    const view = (await getView(tableId, viewId)).data;
    expect(view.options).toEqual({ rowHeight: 'short', frozenColumnCount: 2 });
    expect(view.columnMeta[field('Count')]).toEqual({
      order: 1,
      width: 90,
      statisticFunc: 'sum',
      hidden: true,
    });
  });

  it('moves a view among the views of the table', async () => {
    const { tableId, viewId } = await setup();
    const second = await createView(tableId, { type: 'kanban' as never, name: 'Second' });

    expect(
      (await updateViewOrder(tableId, second.data.id, { anchorId: viewId, position: 'before' })).status,
    ).toBe(200);

    expect((await getViewList(tableId)).data.map((v) => v.id)).toEqual([second.data.id, viewId]);
    await expect(
      updateViewOrder(tableId, viewId, { anchorId: viewId, position: 'after' }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('applies a sort once as the manual order', async () => {
    const { tableId, viewId, field, names } = await setup();

    const res = await manualSortView(tableId, viewId, {
      sortObjs: [{ fieldId: field('Count'), order: 'desc' }],
    } as never);

    expect(res.status).toBe(200);
    expect(await names()).toEqual(['t1', 't3', 't2']);
    expect((await getView(tableId, viewId)).data.sort ?? null).toBeNull();
  });

  it('answers the records a view filter names through a link field', async () => {
    const { base, tableId, viewId } = await setup();
    const parts = await createTable(base.id, {
      name: 'Parts',
      fields: [{ type: 'singleLineText' as never, name: 'Name' }],
      records: [{ fields: { Name: 'Bolt' } }, { fields: { Name: 'Nut' } }],
    });
    const link = await createField(tableId, {
      type: 'link' as never,
      name: 'Parts',
      options: { relationship: 'manyMany', foreignTableId: parts.data.id } as never,
    });
    const [bolt, nut] = parts.data.records;
    if (!bolt || !nut) throw new Error('records missing');
    await updateViewFilter(tableId, viewId, {
      filter: {
        conjunction: 'and',
        filterSet: [{ fieldId: link.data.id, operator: 'hasAnyOf', value: [nut.id, bolt.id] }],
      },
    } as never);

    const res = await getViewFilterLinkRecords(tableId, viewId);

    expect(res.data).toEqual([
      {
        tableId: parts.data.id,
        records: [
          { id: nut.id, title: 'Nut' },
          { id: bolt.id, title: 'Bolt' },
        ],
      },
    ]);
  });

  it('tells whether a record is visible under a listing query, and whether it is deleted', async () => {
    const { table, tableId, viewId, field } = await setup();
    const [t1, t2] = table.records;
    if (!t1 || !t2) throw new Error('records missing');
    const filter = {
      conjunction: 'and',
      filterSet: [{ fieldId: field('Count'), operator: 'isGreater', value: 2 }],
    };

    const shown = await getRecordStatus(tableId, t1.id, { viewId, filter } as never);
    const hidden = await getRecordStatus(tableId, t2.id, { viewId, filter } as never);
    const gone = await getRecordStatus(tableId, 'recAAAAAAAAAAAAAAAA', { viewId } as never);

    expect(shown.data).toEqual({ isVisible: true, isDeleted: false });
    expect(hidden.data).toEqual({ isVisible: false, isDeleted: false });
    expect(gone.data).toEqual({ isVisible: false, isDeleted: true });
  });

  it('deletes several fields at once, and none when the primary field is among them', async () => {
    const { tableId, field } = await setup();
    const extra = await createField(tableId, { type: 'longText' as never, name: 'Notes' });

    await expect(deleteFields(tableId, [field('Count'), field('Name')])).rejects.toMatchObject({
      status: 403,
    });
    expect((await getFields(tableId)).data.map((f) => f.name)).toEqual(['Name', 'Count', 'Notes']);
    expect((await deleteFields(tableId, [field('Count'), extra.data.id])).status).toBe(200);
    expect((await getFields(tableId)).data.map((f) => f.name)).toEqual(['Name']);
  });

  it("leaves a view's hidden fields out of its records, and out of its fields with filterHidden (Teable's 'field filtered view')", async () => {
    const { tableId, field } = await setup();
    const view = (await createView(tableId, { name: 'view1', type: 'grid' as never })).data;
    await updateViewColumnMeta(tableId, view.id, [{ fieldId: field('Count'), columnMeta: { hidden: true } }]);

    const records = (await getRecords(tableId, { viewId: view.id, fieldKeyType: 'id' as never })).data
      .records;
    expect(records[0]?.fields[field('Name')]).toBe('t1');
    expect(records[0]?.fields[field('Count')]).toBeUndefined();

    const ids = async (query: Record<string, unknown>) =>
      (await getFields(tableId, query as never)).data.map((f) => f.id);
    expect(await ids({ viewId: view.id, filterHidden: true })).toEqual([field('Name')]);
    // as Teable answers it: without filterHidden the view's hidden fields are listed, in its order
    expect(await ids({ viewId: view.id })).toEqual([field('Name'), field('Count')]);
    expect(await ids({ excludeFieldIds: [field('Name')] })).toEqual([field('Count')]);
    await expect(
      getFields(tableId, { viewId: view.id, filterHidden: 'maybe' } as never),
    ).rejects.toMatchObject({ status: 400 });
  });
});
