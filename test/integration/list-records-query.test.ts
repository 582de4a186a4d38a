import { describe, expect, it } from 'vitest';
import { call, q } from '#test/support/invoke.ts';
import { listedTable, newTable } from '#test/support/workspace.ts';

interface Ref {
  id: string;
}

const FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 0 } } },
  { type: 'singleSelect', name: 'Status', options: { choices: [{ name: 'light' }, { name: 'medium' }] } },
  { type: 'longText', name: 'Notes' },
];

/** Records r0..r(n-1): Count i % 3, Status light on even, medium on odd; Notes "note i" on multiples of 3. */
const tableOf = async (n: number) => {
  const t = await listedTable(FIELDS, n, (i) => ({
    Name: `r${i}`,
    Count: i % 3,
    Status: i % 2 ? 'medium' : 'light',
    ...(i % 3 === 0 ? { Notes: `note ${i}` } : {}),
  }));
  const fieldId = (name: string) =>
    t.table.fields.find((f: { name: string }) => f.name === name).id as string;
  const updateView = (body: Record<string, unknown>) =>
    call('update-view', { token: t.token, params: { tableId: t.tableId, viewId: t.viewId }, body });
  return { ...t, fieldId, updateView };
};

const filterOf = (...filterSet: unknown[]) => ({ conjunction: 'and', filterSet });

describe('list records: filter, sort, search through the route', () => {
  it('filters by a field name or id, AND-ed with the view filter', async () => {
    const t = await tableOf(6);
    expect(
      await t.names(q({ filter: filterOf({ fieldId: 'Status', operator: 'is', value: 'light' }) })),
    ).toEqual(['r0', 'r2', 'r4']);
    expect(
      await t.names(
        q({ filter: filterOf({ fieldId: t.fieldId('Count'), operator: 'isGreater', value: 0 }) }),
      ),
    ).toEqual(['r1', 'r2', 'r4', 'r5']);
    expect(
      (await t.updateView({ filter: filterOf({ fieldId: 'Count', operator: 'is', value: 1 }) })).status,
    ).toBe(200);
    expect(await t.names()).toEqual(['r1', 'r4']);
    expect(
      await t.names(q({ filter: filterOf({ fieldId: 'Status', operator: 'is', value: 'light' }) })),
    ).toEqual(['r4']);
    // ignoreViewQuery drops the view's filter.
    expect(await t.names('ignoreViewQuery=true&take=3')).toEqual(['r0', 'r1', 'r2']);
    expect(await t.names('ignoreViewQuery=false')).toEqual(['r1', 'r4']);
  });

  it('sorts by orderBy, then the view sort, then the view order', async () => {
    const t = await tableOf(6);
    expect(await t.names(q({ orderBy: [{ fieldId: 'Count', order: 'desc' }] }))).toEqual([
      'r2',
      'r5',
      'r1',
      'r4',
      'r0',
      'r3',
    ]);
    await t.updateView({ sort: { sortObjs: [{ fieldId: t.fieldId('Status'), order: 'desc' }] } });
    expect(await t.names()).toEqual(['r1', 'r3', 'r5', 'r0', 'r2', 'r4']);
    expect(await t.names(q({ orderBy: [{ fieldId: 'Count', order: 'asc' }] }))).toEqual([
      'r3',
      'r0',
      'r1',
      'r4',
      'r5',
      'r2',
    ]);
    expect(await t.names('ignoreViewQuery=1')).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('filterByTql replaces filter and answers Deprecation: true', async () => {
    const t = await tableOf(6);
    const res = await t.listOk(
      q({
        filterByTql: "{Status} = 'medium' AND {Count} > 0",
        filter: filterOf({ fieldId: 'Name', operator: 'is', value: 'r0' }),
      }),
    );
    expect(res.headers.deprecation).toBe('true');
    expect(res.body.records.map((r: { name: string }) => r.name)).toEqual(['r1', 'r5']);
    const plain = await t.listOk();
    expect(plain.headers.deprecation).toBeUndefined();
    const broken = await call('list-records', {
      token: t.token,
      params: { tableId: t.tableId },
      query: q({ filterByTql: '{Status} = ' }),
    });
    expect(broken.status).toBe(400);
  });

  it('searches visible fields, hides non-matching records with hide, and lists hits of the page', async () => {
    const t = await tableOf(7);
    const res = await t.listOk('search[]=NOTE%203&take=3');
    expect(res.body.records.map((r: { name: string }) => r.name)).toEqual(['r0', 'r1', 'r2']);
    expect(res.body.extra.searchHitIndex).toBeNull();
    const page2 = await t.listOk('search[]=NOTE%203&skip=3&take=3');
    expect(page2.body.extra.searchHitIndex).toEqual([
      { recordId: t.table.records[3].id, fieldId: t.fieldId('Notes') },
    ]);
    const hidden = await t.listOk('search[]=note&search[]=Notes&search[]=true');
    expect(hidden.body.records.map((r: { name: string }) => r.name)).toEqual(['r0', 'r3', 'r6']);
    expect(hidden.body.extra.searchHitIndex).toHaveLength(3);
    // A hidden column is not searched by default.
    await t.updateView({ columnMeta: { [t.fieldId('Notes')]: { hidden: true } } });
    const none = await t.listOk('search[]=note&search[]=&search[]=true');
    expect(none.body.records).toEqual([]);
  });

  it('leaves the view hidden columns out unless projection names them or ignoreViewQuery', async () => {
    const t = await tableOf(1);
    await t.updateView({ columnMeta: { [t.fieldId('Notes')]: { hidden: true } } });
    expect(Object.keys((await t.listOk()).body.records[0].fields).sort()).toEqual([
      'Count',
      'Name',
      'Status',
    ]);
    expect(Object.keys((await t.listOk('projection=Notes')).body.records[0].fields)).toEqual(['Notes']);
    expect(Object.keys((await t.listOk('ignoreViewQuery=true')).body.records[0].fields).sort()).toEqual([
      'Count',
      'Name',
      'Notes',
      'Status',
    ]);
  });

  it('lists only selectedRecordIds, in the usual order', async () => {
    const t = await tableOf(5);
    const ids = t.table.records.map((r: Ref) => r.id);
    expect(await t.names(`selectedRecordIds[]=${ids[3]}&selectedRecordIds[]=${ids[1]}`)).toEqual([
      'r1',
      'r3',
    ]);
    expect(await t.names(`selectedRecordIds=${ids[4]}`)).toEqual(['r4']);
  });

  it('answers a view other than the first with its own filter', async () => {
    const t = await tableOf(4);
    const view = await call('create-view', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { name: 'Odd', filter: filterOf({ fieldId: 'Status', operator: 'is', value: 'medium' }) },
    });
    expect(view.status).toBe(201);
    expect(await t.names(`viewId=${view.body.id}`)).toEqual(['r1', 'r3']);
    expect(await t.names()).toEqual(['r0', 'r1', 'r2', 'r3']);
  });
});

describe('list records: groups', () => {
  const A = 'fldAAAAAAAAAAAAAAAA';
  const B = 'fldBBBBBBBBBBBBBBBB';
  const example = async () => {
    const rows: [string | null, number][] = [
      [null, 1],
      ['light', 1],
      ['light', 1],
      ['light', 2],
      ['medium', 1],
      ['medium', 1],
      ['medium', 1],
    ];
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Name' },
        {
          id: A,
          type: 'singleSelect',
          name: 'Status',
          options: { choices: [{ name: 'light' }, { name: 'medium' }] },
        },
        {
          id: B,
          type: 'number',
          name: 'Priority',
          options: { formatting: { type: 'decimal', precision: 0 } },
        },
      ],
      records: rows.map(([s, p], i) => ({
        fields: { Name: `g${i}`, ...(s ? { Status: s } : {}), Priority: p },
      })),
    });
    const list = (query: string) =>
      call('list-records', { token: t.owner.auth, params: { tableId: t.tableId }, query });
    return { ...t, list };
  };
  const groupBy = [
    { fieldId: A, order: 'asc' },
    { fieldId: B, order: 'asc' },
  ];

  it('answers the worked example byte for byte', async () => {
    const t = await example();
    const res = await t.list(q({ groupBy }));
    expect(res.status).toBe(200);
    const h = (id: string, depth: number, value: unknown) => ({
      id,
      type: 0,
      depth,
      value,
      isCollapsed: false,
    });
    expect(res.body.extra.groupPoints).toEqual([
      h('325534932', 0, null),
      h('464743322', 1, 1),
      { type: 1, count: 1 },
      h('3394483242', 0, 'light'),
      h('4058634404', 1, 1),
      { type: 1, count: 2 },
      h('3236168807', 1, 2),
      { type: 1, count: 1 },
      h('3047063721', 0, 'medium'),
      h('3236059751', 1, 1),
      { type: 1, count: 3 },
    ]);
    expect(res.body.extra.allGroupHeaderRefs).toHaveLength(7);
    expect(res.body.records.map((r: { name: string }) => r.name)).toEqual([
      'g0',
      'g1',
      'g2',
      'g3',
      'g4',
      'g5',
      'g6',
    ]);
  });

  it('collapsing a header hides its sub-headers, counts and records (query-string list or JSON)', async () => {
    const t = await example();
    for (const collapsed of ['collapsedGroupIds=%5B%223394483242%22%5D', 'collapsedGroupIds[]=3394483242']) {
      const res = await t.list(`${q({ groupBy })}&${collapsed}`);
      expect(res.status).toBe(200);
      expect(res.body.extra.groupPoints).toHaveLength(7);
      expect(res.body.extra.groupPoints[3]).toEqual({
        id: '3394483242',
        type: 0,
        depth: 0,
        value: 'light',
        isCollapsed: true,
      });
      expect(res.body.extra.allGroupHeaderRefs).toHaveLength(7);
      expect(res.body.records.map((r: { name: string }) => r.name)).toEqual(['g0', 'g4', 'g5', 'g6']);
    }
  });
});

describe('list records: paging invariants on the general path', () => {
  it('pages join without gaps or repeats and the same call answers the same', async () => {
    const t = await tableOf(23);
    const orderBy = [{ fieldId: 'Count', order: 'asc' }];
    const all = await t.names(q({ orderBy }));
    expect(all).toHaveLength(23);
    const pages: string[] = [];
    for (let skip = 0; skip < 23; skip += 5)
      pages.push(...(await t.names(`${q({ orderBy })}&take=5&skip=${skip}`)));
    expect(pages).toEqual(all);
    expect(new Set(pages).size).toBe(23);
    expect(await t.names(q({ orderBy }))).toEqual(all);
  });
});
