import { describe, expect, it } from 'vitest';
import { getItems, putItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { seedRecords } from '#test/bench/seed.ts';
import { invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable, newMember, newTable } from '#test/support/workspace.ts';

interface Ref {
  id: string;
}

const FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 0 } } },
  {
    type: 'singleSelect',
    name: 'Status',
    options: { choices: [{ name: 'light' }, { name: 'medium' }] },
  },
  { type: 'longText', name: 'Notes' },
  { type: 'checkbox', name: 'Done' },
];

/** A table of n records: Name `r<i>`, Count i % 5, Status light/medium alternating, Notes on even. */
const tableOf = (n: number) =>
  listedTable(FIELDS, n, (i) => ({
    Name: `r${i}`,
    Count: i % 5,
    Status: i % 2 ? 'medium' : 'light',
    ...(i % 2 === 0 ? { Notes: `note ${i}` } : {}),
  }));

describe('GET /table/{tableId}/record: defaults and wire format', () => {
  it('lists the first view in order with the contract shape', async () => {
    const t = await tableOf(3);
    const res = await t.list();
    expect(res.status).toBe(200);
    expect(res.body.extra).toEqual({ groupPoints: null, searchHitIndex: null });
    expect(res.body.records.map((r: Ref) => r.id)).toEqual(t.ids);
    expect(res.body.records[0]).toMatchObject({
      id: t.ids[0],
      name: 'r0',
      fields: { Name: 'r0', Count: 0, Status: 'light', Notes: 'note 0' },
      autoNumber: 1,
    });
  });

  it('pages with take and skip (default take 100)', async () => {
    const t = await tableOf(7);
    expect(await t.names('take=3')).toEqual(['r0', 'r1', 'r2']);
    expect(await t.names('take=3&skip=3')).toEqual(['r3', 'r4', 'r5']);
    expect(await t.names('take=3&skip=6')).toEqual(['r6']);
    expect(await t.names('skip=10')).toEqual([]);
    expect(await t.names()).toHaveLength(7);
  });

  // A skip past DynamoDB's largest Limit (2^31 - 1) once reached it and answered 500.
  it.each([
    'skip=2147483648',
    'skip=9007199254740991',
    'skip=2147483648&filter={"conjunction":"and","filterSet":[]}',
  ])('answers an empty page for a skip beyond any table (%s), never a 500', async (query) => {
    const t = await tableOf(3);
    expect(await t.names(query)).toEqual([]);
  });

  it.each([
    ['take=0', /take/],
    ['take=-1', /take/],
    ['take=1.5', /take/],
    ['take=1001', /take/],
    ['take=abc', /take/],
    ['skip=-1', /skip/],
    ['skip=0.5', /skip/],
    ['filter=%7Bnot-json', /^filter: not valid JSON/],
    ['orderBy=%5B', /^orderBy: not valid JSON/],
    ['groupBy=nope', /^groupBy: not valid JSON/],
    ['collapsedGroupIds=%5Bbroken', /^collapsedGroupIds: not valid JSON/],
    ['cellFormat=xml', /cellFormat/],
    ['fieldKeyType=label', /fieldKeyType/],
    ['viewId=nope', /viewId/],
    ['projection=Nope', /^projection: field name "Nope" not found/],
    [
      `orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'Nope', order: 'asc' }]))}`,
      /^orderBy\.0\.fieldId: .*Nope/,
    ],
    [
      `orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'Name', order: 'up' }]))}`,
      /^orderBy\.0\.order/,
    ],
    [
      `groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: 'Nope', order: 'asc' }]))}`,
      /^groupBy\.0\.fieldId/,
    ],
    [
      `groupBy=${encodeURIComponent(JSON.stringify(['Name', 'Count', 'Status', 'Notes'].map((fieldId) => ({ fieldId, order: 'asc' }))))}`,
      /^groupBy: at most 3/,
    ],
    [
      `filter=${encodeURIComponent(JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: 'Nope', operator: 'is', value: 'x' }] }))}`,
      /^filter\.filterSet\.0\.fieldId/,
    ],
    [
      `filter=${encodeURIComponent(JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'contains', value: '1' }] }))}`,
      /^filter\.filterSet\.0\.operator/,
    ],
    ['search[]=x&search[]=Nope', /Nope/],
    ['filterLinkCellCandidate=abc', /^filterLinkCellCandidate/],
    ['filterLinkCellSelected[]=fld0000000000000000&filterLinkCellSelected[]=nope', /^filterLinkCellSelected/],
    [
      'filterLinkCellCandidate=fld0000000000000000&filterLinkCellSelected=fld0000000000000000',
      /cannot be used together/,
    ],
    ['queryId=abc', /^queryId/],
    ['filterByTql=%7BName%7D%20%3D%3D', /./],
  ])('%s is a 400', async (query, message) => {
    const t = await tableOf(1);
    const res = await t.list(query);
    expect(res).toMatchObject(invalid(message));
  });

  it.each([
    ['viewId=viw0000000000000000', /View viw0000000000000000 not found/],
    ['queryId=qry_0000000000000000', /Query qry_0000000000000000 not found/],
    ['filterLinkCellCandidate=fld0000000000000000', /field fld0000000000000000 not found/],
  ])('%s is a 404', async (query, message) => {
    const t = await tableOf(1);
    expect(await t.list(query)).toMatchObject(notFound(message));
  });

  it('reads a bare value and a bracketed list alike for list parameters', async () => {
    const t = await tableOf(2);
    const one = await t.list('projection=Count');
    const two = await t.list('projection[]=Count&projection[]=Name');
    expect(one.body.records[0].fields).toEqual({ Count: 0 });
    expect(two.body.records[0].fields).toEqual({ Count: 0, Name: 'r0' });
    expect(Object.keys(two.body.records[0].permissions).sort()).toEqual(['Count', 'Name']);
  });

  it('keys fields per fieldKeyType and renders text with cellFormat=text', async () => {
    const t = await tableOf(2);
    const countId = t.table.fields.find((f: { name: string }) => f.name === 'Count').id;
    const byId = await t.list(`fieldKeyType=id&projection=${countId}`);
    expect(byId.body.records[1].fields).toEqual({ [countId]: 1 });
    const text = await t.list('cellFormat=text&projection=Count&projection=Done');
    expect(text.body.records[1].fields).toEqual({ Count: '1' });
    const byDb = await t.list('fieldKeyType=dbFieldName&projection=Name');
    expect(Object.keys(byDb.body.records[0].fields)).toEqual([
      t.table.fields.find((f: { name: string }) => f.name === 'Name').dbFieldName,
    ]);
  });
});

describe('queryId: saved parameters', () => {
  const save = (token: string, params: Record<string, unknown>) =>
    call('create-query-params', { token, body: { params } });

  it('saves parameters for 24 hours and uses them as the base, request keys overriding', async () => {
    const t = await tableOf(6);
    const saved = await save(t.token, {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Status', operator: 'is', value: 'light' }] },
      orderBy: [{ fieldId: 'Name', order: 'desc' }],
      take: 2,
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({ queryId: expect.stringMatching(/^qry_[0-9A-Za-z]{16}$/) });
    const item = (await getItems([keys.savedQuery(saved.body.queryId)])).get(
      keys.savedQuery(saved.body.queryId),
    );
    expect(item).toMatchObject({ createdBy: t.owner.id });
    const ttl = Number(item?.expiresAt) - Date.now() / 1000;
    expect(ttl).toBeGreaterThan(86_400 - 120);
    expect(ttl).toBeLessThanOrEqual(86_400);
    expect(await t.names(`queryId=${saved.body.queryId}`)).toEqual(['r4', 'r2']);
    expect(await t.names(`queryId=${saved.body.queryId}&take=5`)).toEqual(['r4', 'r2', 'r0']);
    expect(
      await t.names(
        `queryId=${saved.body.queryId}&orderBy=${encodeURIComponent('[{"fieldId":"Name","order":"asc"}]')}`,
      ),
    ).toEqual(['r0', 'r2']);
  });

  it('another reader of the table may use it; a saved query with a bad value is a 400 when saved', async () => {
    const t = await tableOf(3);
    const saved = await save(t.token, { take: 1 });
    const viewer = await newMember(t, 'viewer');
    const res = await call('list-records', {
      token: viewer.auth,
      params: { tableId: t.tableId },
      query: `queryId=${saved.body.queryId}`,
    });
    expect(res.status).toBe(200);
    expect(res.body.records).toHaveLength(1);
    expect(await save(t.token, { take: 0 })).toMatchObject(invalid(/take/));
    expect(await save(t.token, { filter: '{oops' })).toMatchObject(invalid(/^filter: not valid JSON/));
    expect((await call('create-query-params', { token: t.token, body: { params: 'x' } })).status).toBe(400);
  });

  it('an expired saved query is a 404 even before DynamoDB removes it', async () => {
    const t = await tableOf(1);
    const queryId = newId('query');
    await putItem({
      ...keys.savedQuery(queryId),
      type: 'savedQuery',
      params: { take: '1' },
      createdBy: t.owner.id,
      expiresAt: Math.floor(Date.now() / 1000) - 1,
    });
    expect(await t.list(`queryId=${queryId}`)).toMatchObject(
      notFound(`Query ${queryId} not found or expired`),
    );
  });
});

describe('read-your-writes and manual order', () => {
  it('a record created, updated or deleted is listed accordingly by the next call', async () => {
    const t = await tableOf(2);
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'new' } }] },
    });
    expect(await t.names()).toEqual(['r0', 'r1', 'new']);
    await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.ids[0] as string },
      body: { record: { fields: { Name: 'changed', Count: 9 } } },
    });
    expect(await t.names()).toEqual(['changed', 'r1', 'new']);
    const filter = encodeURIComponent(
      JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'is', value: 9 }] }),
    );
    expect(await t.names(`filter=${filter}`)).toEqual(['changed']);
    await call('delete-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.ids[1] as string },
    });
    expect(await t.names()).toEqual(['changed', 'new']);
    expect(await t.names(`filter=${filter}&take=1`)).toEqual(['changed']);
    expect(created.status).toBe(201);
  });

  it('lists a view in its manual order: placed records among unplaced ones, per view', async () => {
    const t = await tableOf(5);
    const second = await call('create-view', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { name: 'B' },
    });
    const placed = await call('update-record-order', {
      token: t.token,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { anchorId: t.ids[1], position: 'before', recordIds: [t.ids[4], t.ids[3]] },
    });
    expect(placed.status).toBe(200);
    expect(await t.names()).toEqual(['r0', 'r4', 'r3', 'r1', 'r2']);
    for (let skip = 0; skip < 5; skip++)
      expect(await t.names(`take=1&skip=${skip}`)).toEqual([['r0', 'r4', 'r3', 'r1', 'r2'][skip]]);
    // The manual order breaks ties on the general path too.
    const orderBy = encodeURIComponent(JSON.stringify([{ fieldId: 'Status', order: 'asc' }]));
    expect(await t.names(`orderBy=${orderBy}`)).toEqual(['r0', 'r4', 'r2', 'r3', 'r1']);
    // The other view keeps the default order.
    expect(await t.names(`viewId=${second.body.id}`)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    // A record created after an anchor is listed there at once.
    await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: [{ fields: { Name: 'n' } }],
        order: { viewId: t.viewId, anchorId: t.ids[0], position: 'after' },
      },
    });
    expect(await t.names()).toEqual(['r0', 'n', 'r4', 'r3', 'r1', 'r2']);
  });
});

describe('view order: deep pages over the split index walk', () => {
  it('a page past 4,000 entries matches the full order, with placed and deleted records', async () => {
    const t = await newTable({ records: [] });
    const name = t.table.fields[0].id as string;
    const ids = await seedRecords(t.tableId, 6000, (i) => ({ [name]: `s${i}` }));
    // Move two late records near the front, and delete one record in the middle.
    const placed = await call('update-record-order', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { anchorId: ids[10], position: 'after', recordIds: [ids[5999], ids[5000]] },
    });
    expect(placed.status).toBe(200);
    expect(
      (
        await call('delete-record', {
          token: t.owner.auth,
          params: { tableId: t.tableId, recordId: ids[4700] as string },
        })
      ).status,
    ).toBe(200);
    const full = await viewOrderIds(t.tableId, t.viewId);
    expect(full).toHaveLength(5999);
    for (const skip of [0, 4390, 4950, 5900]) {
      const res = await call('list-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        query: `take=150&skip=${skip}&projection=Name`,
      });
      expect(res.status).toBe(200);
      expect(res.body.records.map((r: Ref) => r.id)).toEqual(full.slice(skip, skip + 150));
    }
  });
});
