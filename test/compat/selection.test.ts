/**
 * Grid selections through Teable's own client (`@teable/openapi` 1.10.0): ids, copy, clear,
 * delete, paste and its preview, with the query the client serializes its way.
 */
import {
  clear,
  configApi,
  copy,
  createBase,
  createSpace,
  createTable,
  deleteSelection,
  getFields,
  getIdsFromRanges,
  getRecords,
  paste,
  temporaryPaste,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** A table of two records (Name, Qty) in a new space and base, through the client. */
const newGrid = async (spaceName: string) => {
  const space = await createSpace({ name: spaceName });
  const base = await createBase({ spaceId: space.data.id });
  return createTable(base.data.id, {
    name: 'Cells',
    fields: [
      { type: 'singleLineText' as never, name: 'Name' },
      { type: 'number' as never, name: 'Qty' },
    ],
    records: [{ fields: { Name: 'a', Qty: 1 } }, { fields: { Name: 'b', Qty: 2 } }],
  });
};

describe("selection through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Grid' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it('ids, copy, clear and delete a block', async () => {
    const table = await newGrid('Grid');
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

  it('paste what copy gave, growing the grid, and preview a paste', async () => {
    const table = await newGrid('Paste');
    const tableId = table.data.id;
    const copied = await copy(tableId, {
      ranges: [
        [0, 0],
        [1, 1],
      ],
    });
    const pasted = await paste(tableId, {
      ranges: [
        [0, 1],
        [0, 1],
      ],
      content: `${copied.data.content}\tx`,
      header: copied.data.header,
    });
    expect(pasted.data).toEqual({
      ranges: [
        [0, 1],
        [2, 2],
      ],
    });
    const records = await getRecords(tableId, {});
    expect(records.data.records.map((r) => r.fields)).toEqual([
      { Name: 'a', Qty: 1 },
      { Name: 'a', Qty: 1 },
      { Name: 'b', Qty: 2, Label: 'x' },
    ]);
    expect((await getFields(tableId, {})).data.map((f) => f.name)).toEqual(['Name', 'Qty', 'Label']);

    const qty = table.data.fields[1]?.id as string;
    const preview = await temporaryPaste(tableId, {
      ranges: [
        [1, 0],
        [1, 0],
      ],
      content: [['7'], ['8.5']],
    });
    expect(preview.data).toEqual([{ fields: { [qty]: 7 } }, { fields: { [qty]: 8.5 } }]);
    expect((await getRecords(tableId, {})).data.records.map((r) => r.fields.Qty)).toEqual([1, 1, 2]);
  });
});
