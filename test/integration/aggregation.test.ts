/**
 * The aggregation routes (teable-routes.md, Aggregation): each reads the list's query the way
 * the record list does and measures all its pages.
 */
import { describe, expect, it } from 'vitest';
import type { HandlerName } from '#shared/routes.ts';
import type { Field } from '#test/support/answers.ts';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { listedTable } from '#test/support/workspace.ts';

const deals = () =>
  listedTable(
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Amount' },
      { type: 'checkbox', name: 'Won' },
      { type: 'date', name: 'Start' },
      { type: 'date', name: 'End' },
      { type: 'singleSelect', name: 'Stage', options: { choices: [{ name: 'open' }, { name: 'closed' }] } },
    ],
    5,
    (i) =>
      [
        {
          Name: 'alpha',
          Amount: 10,
          Won: true,
          Start: '2024-01-01T00:00:00.000Z',
          End: '2024-01-03T00:00:00.000Z',
          Stage: 'open',
        },
        { Name: 'beta', Amount: 20, Start: '2024-01-02T00:00:00.000Z', Stage: 'open' },
        { Name: 'gamma', Amount: 30, Won: true, Start: '2024-02-01T00:00:00.000Z', Stage: 'closed' },
        { Name: 'delta', Stage: 'closed' },
        { Name: 'alphabet' },
      ][i] as Record<string, unknown>,
  );

type T = Awaited<ReturnType<typeof deals>>;

const idOf = (t: T, name: string) => ((t.table.fields as Field[]).find((f) => f.name === name) as Field).id;

const get = (t: T, handler: HandlerName, query = '') =>
  call(handler, { token: t.token, params: { tableId: t.tableId }, query });

const json = (v: unknown) => encodeURIComponent(JSON.stringify(v));

describe('GET /table/{t}/aggregation/row-count', () => {
  it('counts what the list would answer: all, filtered, searched with hiding', async () => {
    const t = await deals();
    expect((await get(t, 'get-row-count')).body).toEqual({ rowCount: 5 });
    const filter = {
      conjunction: 'and',
      filterSet: [{ fieldId: idOf(t, 'Amount'), operator: 'isGreater', value: 15 }],
    };
    expect((await get(t, 'get-row-count', `filter=${json(filter)}`)).body).toEqual({ rowCount: 2 });
    expect((await get(t, 'get-row-count', 'search[]=alph&search[]=&search[]=true')).body).toEqual({
      rowCount: 2,
    });
  });

  it('takes an empty or absent filter as no filter (as Teable does)', async () => {
    const t = await deals();
    for (const query of [
      'filter=',
      `filter=${json({})}`,
      `filter=${json(null)}`,
      `filter=${json({ conjunction: 'and', filterSet: [] })}`,
    ])
      expect((await get(t, 'get-row-count', query)).body, query).toEqual({ rowCount: 5 });
    const amount = idOf(t, 'Amount');
    const res = await get(t, 'get-aggregations', `filter=&field[sum][]=${amount}`);
    expect(res.body.aggregations).toEqual([{ fieldId: amount, total: { value: 60, aggFunc: 'sum' } }]);
  });

  it('answers 400 naming a bad filter, and 404 for an unknown view', async () => {
    const t = await deals();
    expect(await get(t, 'get-row-count', 'filter=%7Bnope')).toMatchObject(invalid('filter: not valid JSON'));
    expect((await get(t, 'get-row-count', 'viewId=viwAAAAAAAAAAAAAAAA')).status).toBe(404);
  });
});

describe('GET /table/{t}/aggregation', () => {
  it('computes the requested statistics over all matching records', async () => {
    const t = await deals();
    const amount = idOf(t, 'Amount');
    const won = idOf(t, 'Won');
    const start = idOf(t, 'Start');
    const res = await get(
      t,
      'get-aggregations',
      `field[sum][]=${amount}&field[average][]=${amount}&field[empty][]=${amount}&field[percentChecked][]=${won}&field[earliestDate][]=${start}&field[dateRangeOfDays][]=${start}&field[unique][]=${idOf(t, 'Stage')}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.aggregations).toEqual([
      { fieldId: amount, total: { value: 60, aggFunc: 'sum' } },
      { fieldId: amount, total: { value: 20, aggFunc: 'average' } },
      { fieldId: amount, total: { value: 2, aggFunc: 'empty' } },
      { fieldId: won, total: { value: 40, aggFunc: 'percentChecked' } },
      { fieldId: start, total: { value: '2024-01-01T00:00:00.000Z', aggFunc: 'earliestDate' } },
      { fieldId: start, total: { value: 31, aggFunc: 'dateRangeOfDays' } },
      { fieldId: idOf(t, 'Stage'), total: { value: 2, aggFunc: 'unique' } },
    ]);
  });

  it('per group header with groupBy, keyed by the group points’ header ids', async () => {
    const t = await deals();
    const amount = idOf(t, 'Amount');
    const groupBy = json([{ fieldId: idOf(t, 'Stage'), order: 'asc' }]);
    const points = await get(t, 'get-group-points', `groupBy=${groupBy}`);
    expect(points.status, JSON.stringify(points.body)).toBe(200);
    const headers = (points.body as { type: number; id: string; value: unknown }[]).filter(
      (p) => p.type === 0,
    );
    expect(headers.map((h) => h.value)).toEqual([null, 'open', 'closed']); // select groups in choice order
    const res = await get(t, 'get-aggregations', `field[sum][]=${amount}&groupBy=${groupBy}`);
    expect(res.body.aggregations[0].total).toEqual({ value: 60, aggFunc: 'sum' });
    expect(res.body.aggregations[0].group).toEqual({
      [(headers[0] as { id: string }).id]: { value: null, aggFunc: 'sum' },
      [(headers[1] as { id: string }).id]: { value: 30, aggFunc: 'sum' },
      [(headers[2] as { id: string }).id]: { value: 30, aggFunc: 'sum' },
    });
  });

  it('counts the distinct options of a multiple select, not its distinct combinations', async () => {
    const t = await listedTable(
      [
        {
          type: 'multipleSelect',
          name: 'Tags',
          options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
        },
      ],
      4,
      (i) => ({ Tags: [['a', 'b'], ['b'], ['a', 'b'], ['c']][i] }),
    );
    const tags = ((t.table.fields as Field[]).find((f) => f.name === 'Tags') as Field).id;
    const res = await call('get-aggregations', {
      token: t.token,
      params: { tableId: t.tableId },
      query: `field[unique][]=${tags}&field[percentUnique][]=${tags}`,
    });
    expect(res.body.aggregations).toEqual([
      { fieldId: tags, total: { value: 3, aggFunc: 'unique' } },
      { fieldId: tags, total: { value: 50, aggFunc: 'percentUnique' } },
    ]);
  });

  it('refuses a statistic the field does not allow, listing the allowed ones; and unknown functions', async () => {
    const t = await deals();
    const res = await get(t, 'get-aggregations', `field[sum][]=${idOf(t, 'Name')}`);
    expect(res).toMatchObject(
      invalid(/^field\[sum\]: not a statistic of field "Name".*allowed: count, empty/),
    );
    expect((await get(t, 'get-aggregations', `field[median][]=${idOf(t, 'Name')}`)).status).toBe(400);
    expect((await get(t, 'get-aggregations', 'field[count][]=fldNOPE')).status).toBe(400);
  });

  it('without field, answers the view’s statistics (none set: an empty list)', async () => {
    const t = await deals();
    expect((await get(t, 'get-aggregations')).body).toEqual({ aggregations: [] });
  });
});

describe('search count and index', () => {
  it('counts matching cells, and lists hits with their records’ 1-based positions', async () => {
    const t = await deals();
    expect((await get(t, 'get-search-count', 'search[]=alph')).body).toEqual({ count: 2 });
    const index = await get(t, 'get-search-index', 'search[]=a&take=2');
    expect(index.status, JSON.stringify(index.body)).toBe(200);
    expect(index.body).toEqual([
      { index: 1, fieldId: idOf(t, 'Name'), recordId: t.ids[0] },
      { index: 2, fieldId: idOf(t, 'Name'), recordId: t.ids[1] },
    ]);
    const later = await get(t, 'get-search-index', 'search[]=a&take=2&skip=2');
    expect(later.body.map((h: { index: number }) => h.index)).toEqual([3, 4]);
    expect((await get(t, 'get-search-index', 'search[]=zzz&take=10')).body).toBeNull();
    expect((await get(t, 'get-search-count')).status).toBe(400);
  });
});

describe('GET /table/{t}/aggregation/calendar-daily-collection', () => {
  it('counts records per day of the window and answers them', async () => {
    const t = await deals();
    const q = `startDate=2024-01-01T00:00:00.000Z&endDate=2024-01-31T00:00:00.000Z&startDateFieldId=${idOf(t, 'Start')}&endDateFieldId=${idOf(t, 'End')}`;
    const res = await get(t, 'get-calendar-daily-collection', q);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.countMap).toEqual({ '2024-01-01': 1, '2024-01-02': 2, '2024-01-03': 1 });
    expect(res.body.records.map((r: { name: string }) => r.name)).toEqual(['alpha', 'beta']);
    const bad = `startDate=2024-01-01&endDate=2024-01-31&startDateFieldId=${idOf(t, 'Name')}&endDateFieldId=${idOf(t, 'End')}`;
    expect(await get(t, 'get-calendar-daily-collection', bad)).toMatchObject(
      invalid('startDateFieldId: field "Name" is not a date field'),
    );
  });
});

describe('GET /table/{t}/aggregation/task-status-collection', () => {
  it('is always empty', async () => {
    const t = await deals();
    expect((await get(t, 'get-task-status-collection')).body).toEqual({ fieldMap: {}, cells: [] });
  });
});
