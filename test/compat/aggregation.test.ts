/**
 * The aggregation routes through Teable's own client (`@teable/openapi` 1.10.0): its request
 * functions serialize the query their way (JSON texts, `field[sum][]=…`, `search[]=…`), and the
 * answers have the shapes its types declare.
 */
import {
  configApi,
  createBase,
  createSpace,
  createTable,
  getAggregation,
  getCalendarDailyCollection,
  getGroupPoints,
  getRecords,
  getRowCount,
  getSearchCount,
  getSearchIndex,
  getTaskStatusCollection,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

const table = async () => {
  const space = await createSpace({ name: 'Stats' });
  const base = await createBase({ spaceId: space.data.id });
  const created = await createTable(base.data.id, {
    name: 'Deals',
    fields: [
      { type: 'singleLineText' as never, name: 'Name' },
      { type: 'number' as never, name: 'Amount' },
      { type: 'date' as never, name: 'Due' },
    ],
    records: [
      { fields: { Name: 'alpha', Amount: 10, Due: '2024-01-02T00:00:00.000Z' } },
      { fields: { Name: 'beta', Amount: 20 } },
      { fields: { Name: 'alphabet', Amount: 5 } },
    ],
  });
  const id = (name: string) => created.data.fields.find((f) => f.name === name)?.id as string;
  return { tableId: created.data.id, id, records: created.data.records };
};

describe("aggregation through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Stats' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('row count, with and without a filter', async () => {
    const t = await table();
    expect((await getRowCount(t.tableId)).data).toEqual({ rowCount: 3 });
    const filtered = await getRowCount(t.tableId, {
      filter: {
        conjunction: 'and',
        filterSet: [{ fieldId: t.id('Amount'), operator: 'isGreater', value: 8 }],
      } as never,
    });
    expect(filtered.data).toEqual({ rowCount: 2 });
  });

  it('statistics per field, and group points', async () => {
    const t = await table();
    const res = await getAggregation(t.tableId, { field: { sum: [t.id('Amount')] } as never });
    expect(res.data).toEqual({
      aggregations: [{ fieldId: t.id('Amount'), total: { value: 35, aggFunc: 'sum' } }],
    });
    const points = await getGroupPoints(t.tableId, {
      groupBy: [{ fieldId: t.id('Amount'), order: 'asc' as never }],
    });
    expect(points.data?.filter((p) => p.type === 0)).toHaveLength(3);
  });

  it('percentages over a filter that matches nothing: answered, `null` (nothing to measure), the filter handed over as text (Teable\'s "percent aggregation zero")', async () => {
    const t = await table();
    const name = t.id('Name');
    const res = await getAggregation(t.tableId, {
      field: { percentFilled: [name], percentUnique: [name], percentEmpty: [name] } as never,
      // as Teable's own test passes it: already JSON text, which its client encodes again
      filter: JSON.stringify({
        conjunction: 'and',
        filterSet: [{ fieldId: name, operator: 'is', value: 'xxxxxxxxxx' }],
      }) as never,
    });
    expect(res.status).toBe(200);
    const totals = (res.data.aggregations ?? []).map((a) => [a.total?.aggFunc, a.total?.value]);
    expect(totals).toEqual(
      expect.arrayContaining([
        ['percentFilled', null],
        ['percentUnique', null],
        ['percentEmpty', null],
      ]),
    );
  });

  it('search count and index', async () => {
    const t = await table();
    expect((await getSearchCount(t.tableId, { search: ['alph', '', false] as never })).data).toEqual({
      count: 2,
    });
    const index = await getSearchIndex(t.tableId, { search: ['alph', '', false] as never, take: 10 });
    expect(index.data?.map((h) => h.index)).toEqual([1, 3]);
  });

  it('calendar days and the task status collection', async () => {
    const t = await table();
    const days = await getCalendarDailyCollection(t.tableId, {
      startDate: '2024-01-01T00:00:00.000Z',
      endDate: '2024-01-10T00:00:00.000Z',
      startDateFieldId: t.id('Due'),
      endDateFieldId: t.id('Due'),
    } as never);
    expect(days.data.countMap).toEqual({ '2024-01-02': 1 });
    expect((await getTaskStatusCollection(t.tableId)).data).toEqual({ fieldMap: {}, cells: [] });
  });

  it("search in a named field, records hidden that do not match: numbers as displayed, a named checkbox by its text ('true' when checked)", async () => {
    const space = await createSpace({ name: 'Search' });
    const base = await createBase({ spaceId: space.data.id });
    const t = (
      await createTable(base.data.id, {
        name: 'Search',
        fields: [
          { name: 'Name', type: 'singleLineText' as never },
          {
            name: 'N',
            type: 'number' as never,
            options: { formatting: { type: 'decimal', precision: 1 } } as never,
          },
          { name: 'Done', type: 'checkbox' as never },
        ],
        records: Array.from({ length: 6 }, (_, i) => ({
          fields: { Name: `field ${i}`, N: i, ...(i % 3 === 0 ? { Done: true } : {}) },
        })),
      })
    ).data;
    const found = async (value: string, field: number) =>
      (
        await getRecords(t.id, {
          viewId: t.views[0]?.id,
          search: [value, t.fields[field]?.id, true] as never,
        })
      ).data.records.map((r) => r.fields.Name);
    expect(await found('3', 1)).toEqual(['field 3']);
    expect(await found('3.0', 1)).toEqual(['field 3']);
    expect(await found('3.00', 1)).toEqual([]);
    // Teable leaves a checkbox out of search even when named, and so answers every record
    expect(await found('true', 2)).toEqual(['field 0', 'field 3']);
    // without `hide` nothing is left out: the matches are only marked
    const marked = await getRecords(t.id, {
      viewId: t.views[0]?.id,
      search: ['3', t.fields[1]?.id] as never,
    });
    expect(marked.data.records).toHaveLength(6);
    expect((marked.data.extra as { searchHitIndex?: unknown } | undefined)?.searchHitIndex).toEqual([
      { recordId: t.records[3]?.id, fieldId: t.fields[1]?.id },
    ]);
  });
});
