/**
 * Grouped listings through Teable's own client (`@teable/openapi` 1.10.0): collapsing a header
 * hides its sub-headers, counts and records, while `allGroupHeaderRefs` keeps every header,
 * those inside the collapsed group included (listing.md 4.3).
 */
import { configApi, createBase, createSpace, createTable, getRecords } from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe("grouped listings through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Groups' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('a collapsed header hides what is inside it, and allGroupHeaderRefs still lists every header', async () => {
    const space = await createSpace({ name: 'Groups' });
    const base = await createBase({ spaceId: space.data.id });
    const rows: [string, number][] = [
      ['light', 1],
      ['light', 2],
      ['light', 2],
      ['heavy', 1],
      ['heavy', 3],
    ];
    const table = await createTable(base.data.id, {
      name: 'Groups',
      fields: [
        { type: 'singleLineText' as never, name: 'Name' },
        { type: 'singleLineText' as never, name: 'Kind' },
        {
          type: 'number' as never,
          name: 'Size',
          options: { formatting: { type: 'decimal', precision: 0 } } as never,
        },
      ],
      records: rows.map(([Kind, Size], i) => ({ fields: { Name: `r${i}`, Kind, Size } })),
    });
    const [, kind, size] = table.data.fields.map((f) => f.id) as [string, string, string];
    const groupBy = [
      { fieldId: kind, order: 'asc' as never },
      { fieldId: size, order: 'asc' as never },
    ];
    const open = (await getRecords(table.data.id, { groupBy })).data;
    const headers = (open.extra?.groupPoints ?? []).filter((p) => p.type === 0) as {
      id: string;
      depth: number;
      value: unknown;
    }[];
    expect(headers.map((h) => [h.depth, h.value])).toEqual([
      [0, 'heavy'],
      [1, 1],
      [1, 3],
      [0, 'light'],
      [1, 1],
      [1, 2],
    ]);
    expect(open.extra?.allGroupHeaderRefs).toEqual(headers.map((h) => ({ id: h.id, depth: h.depth })));
    const light = headers[3] as { id: string };

    const collapsed = (await getRecords(table.data.id, { groupBy, collapsedGroupIds: [light.id] })).data;

    expect(collapsed.records.map((r) => r.name)).toEqual(['r3', 'r4']);
    expect(
      collapsed.extra?.groupPoints?.filter((p) => p.type === 0).map((p) => (p as { id: string }).id),
    ).toEqual(headers.slice(0, 4).map((h) => h.id));
    expect(collapsed.extra?.allGroupHeaderRefs).toEqual(open.extra?.allGroupHeaderRefs);
  });
});
