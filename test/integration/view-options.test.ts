import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 27, item 3: a view's options are checked against its type's schema (Teable's strict
 * option objects) on create view, update view, update options and create table with views.
 * Before: 33 levels of nesting and a key named `constructor` were 500s, `__proto__` was a 200
 * that stored nothing.
 */

type Table = Awaited<ReturnType<typeof newTable>>;

const deep = (levels: number): Record<string, unknown> => {
  let v: Record<string, unknown> = { x: 1 };
  for (let i = 1; i < levels; i++) v = { x: v };
  return v;
};

/** Each way of writing options, given the options. */
const WRITES = {
  'create view': (t: Table, options: unknown) =>
    call('create-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'grid', options },
    }),
  'update view': (t: Table, options: unknown) =>
    call('update-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { options },
    }),
  'update options': (t: Table, options: unknown) =>
    call('update-view-options', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { options },
    }),
  'create table with views': (t: Table, options: unknown) =>
    call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', views: [{ type: 'grid', options }] },
    }),
} as const;
const ROUTES = Object.entries(WRITES);

/** The same writes with the options as raw JSON text (so a key `__proto__` reaches the service). */
const RAW_WRITES = {
  'create view': (t: Table, options: string) =>
    call('create-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      rawBody: `{"type":"grid","options":${options}}`,
    }),
  'update view': (t: Table, options: string) =>
    call('update-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      rawBody: `{"options":${options}}`,
    }),
  'update options': (t: Table, options: string) =>
    call('update-view-options', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      rawBody: `{"options":${options}}`,
    }),
  'create table with views': (t: Table, options: string) =>
    call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      rawBody: `{"name":"Other","views":[{"type":"grid","options":${options}}]}`,
    }),
} as const;

const viewOf = async (t: Table) =>
  (await call('get-view', { token: t.owner.auth, params: { tableId: t.tableId, viewId: t.viewId } })).body;

describe('view options are checked per view type', () => {
  it.each(ROUTES)('%s: a key named constructor is a 400 naming it, nothing stored', async (_, write) => {
    const t = await newTable();
    const before = await viewOf(t);

    const res = await write(t, { constructor: 1 });

    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res).toMatchObject(invalid(/^Invalid options: Unrecognized key: "constructor"/));
    expect(await viewOf(t)).toEqual(before);
  });

  it.each(Object.entries(RAW_WRITES))(
    '%s: a key __proto__ is a 400, never a silent 200',
    async (_, write) => {
      const t = await newTable();
      const before = await viewOf(t);

      const res = await write(t, '{"__proto__":{"rowHeight":"tall"}}');

      expect(res.status).toBe(400);
      expect(res).toMatchObject(
        invalid(/^Invalid body\.(views\.0\.)?options\.__proto__: this key is not allowed$/),
      );
      expect(await viewOf(t)).toEqual(before);
    },
  );

  it.each(ROUTES)('%s: 33 levels of nesting are a 400, not a DynamoDB error', async (_, write) => {
    const t = await newTable();

    const res = await write(t, deep(33));

    expect(res.status).toBe(400);
    expect(res).toMatchObject(invalid(/nests more than 20 levels deep/));
  });

  it.each(ROUTES)('%s: an unknown key and a value of the wrong kind are 400s', async (_, write) => {
    const t = await newTable();

    const unknown = await write(t, { stackFieldId: 'fld' });
    const wrong = await write(t, { rowHeight: 'giant' });

    expect(unknown).toMatchObject(invalid(/^Invalid options: Unrecognized key: "stackFieldId"/));
    expect(wrong).toMatchObject(invalid(/^Invalid options\.rowHeight: /));
  });

  it.each([
    ['grid', { rowHeight: 'autoFit', fieldNameDisplayLines: 2, frozenColumnCount: 1 }],
    [
      'kanban',
      {
        stackFieldId: 'fldA',
        coverFieldId: null,
        isCoverFit: true,
        isFieldNameHidden: false,
        isEmptyStackHidden: true,
      },
    ],
    ['gallery', { coverFieldId: 'fldB', isCoverFit: false, isFieldNameHidden: true }],
    [
      'calendar',
      {
        startDateFieldId: 'fldS',
        endDateFieldId: null,
        titleFieldId: 'fldT',
        colorConfig: { type: 'custom', color: 'redLight1' },
      },
    ],
    [
      'form',
      { coverUrl: 'https://example.com/c.png', logoUrl: 'https://example.com/l.png', submitLabel: 'Send' },
    ],
  ])('a %s view stores every option of its type', async (type, options) => {
    const t = await newTable();

    const res = await call('create-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type, options },
    });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.options).toEqual(options);
  });

  it("a kanban's options are refused on a grid view: options follow the view's own type", async () => {
    const t = await newTable();

    const res = await WRITES['update options'](t, { stackFieldId: 'fldA' });

    expect(res).toMatchObject(invalid(/Unrecognized key: "stackFieldId"/));
  });

  it('a patch of options merges with what is stored', async () => {
    const t = await newTable();

    await WRITES['update options'](t, { rowHeight: 'tall' });
    const res = await WRITES['update options'](t, { frozenColumnCount: 3 });

    expect(res.status).toBe(200);
    expect((await viewOf(t)).options).toEqual({ rowHeight: 'tall', frozenColumnCount: 3 });
  });
});
