/**
 * Grid selections through Teable's own client (`@teable/openapi` 1.10.0): ids, copy, clear and
 * delete, with the query the client serializes its way.
 */
import {
  clear,
  configApi,
  copy,
  createBase,
  createSpace,
  createTable,
  deleteSelection,
  getIdsFromRanges,
  getRecords,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe("selection through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Grid' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('ids, copy, clear and delete a block', async () => {
    const space = await createSpace({ name: 'Grid' });
    const base = await createBase({ spaceId: space.data.id });
    const table = await createTable(base.data.id, {
      name: 'Cells',
      fields: [
        { type: 'singleLineText' as never, name: 'Name' },
        { type: 'number' as never, name: 'Qty' },
      ],
      records: [{ fields: { Name: 'a', Qty: 1 } }, { fields: { Name: 'b', Qty: 2 } }],
    });
    const tableId = table.data.id;
    const block = {
      ranges: [
        [0, 0],
        [1, 1],
      ] as [number, number][],
    };
    const got = await getIdsFromRanges(tableId, { ...block, returnType: 'all' as never });
    expect(got.data.recordIds).toEqual(table.data.records.map((r) => r.id));
    expect(got.data.fieldIds).toEqual(table.data.fields.map((f) => f.id));
    expect((await copy(tableId, block)).data.content).toBe('a\t1.00\nb\t2.00');
    await clear(tableId, {
      ranges: [
        [1, 0],
        [1, 0],
      ],
    });
    const records = await getRecords(tableId, {});
    expect(records.data.records.map((r) => r.fields.Qty)).toEqual([undefined, 2]);
    const deleted = await deleteSelection(tableId, { ranges: [[1, 1]], type: 'rows' as never }); // rows 1..1
    expect(deleted.data.ids).toEqual([table.data.records[1]?.id]);
  });
});
