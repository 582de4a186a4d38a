/**
 * Link rules and field names through Teable's own client (`@teable/openapi` 1.10.0): a link cell
 * naming one record twice, and a oneOne / oneMany link to a record another record links already,
 * are refused with a 400 as Teable refuses them; a new field, lookup or rollup under a taken name
 * gets the next free one, while a rename to a taken name is a 400.
 */
import {
  configApi,
  convertField,
  createBase,
  createField,
  createSpace,
  createTable,
  getFields,
  getRecord,
  getRecords,
  updateField,
  updateRecord,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** Tables A (a1, a2) and B (b1, b2) in a new base. */
const twoTables = async () => {
  const space = await createSpace({ name: 'Links' });
  const base = await createBase({ spaceId: space.data.id });
  const table = (name: string, rows: string[]) =>
    createTable(base.data.id, {
      name,
      fields: [{ type: 'singleLineText' as never, name: 'Name' }],
      records: rows.map((Name) => ({ fields: { Name } })),
    });
  const a = (await table('A', ['a1', 'a2'])).data;
  const b = (await table('B', ['b1', 'b2'])).data;
  return { a, b, aIds: a.records.map((r) => r.id), bIds: b.records.map((r) => r.id) };
};

const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { status?: number }) => error.status,
  );

describe("link rules and names through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Links' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it.each(['oneOne', 'oneMany'])(
    'a %s link refuses a record another record links already, and a cell naming a record twice',
    async (relationship) => {
      const { a, b, aIds, bIds } = await twoTables();
      const [a1, a2] = aIds as [string, string];
      const [b1] = bIds as [string, string];
      const link = await createField(a.id, {
        type: 'link' as never,
        name: 'To B',
        options: { relationship, foreignTableId: b.id } as never,
      });
      const cell = relationship === 'oneOne' ? { id: b1 } : [{ id: b1 }];
      const write = (recordId: string, value: unknown) =>
        updateRecord(a.id, recordId, {
          record: { fields: { [link.data.id]: value } },
          fieldKeyType: 'id' as never,
        });

      expect(await status(write(a1, cell))).toBe(200);
      expect(await status(write(a2, cell))).toBe(400);
      if (relationship === 'oneMany') expect(await status(write(a2, [{ id: b1 }, { id: b1 }]))).toBe(400);
      const kept = await getRecord(a.id, a1, { fieldKeyType: 'id' as never });
      expect(kept.data.fields[link.data.id]).toEqual(
        relationship === 'oneOne' ? { id: b1, title: 'b1' } : [{ id: b1, title: 'b1' }],
      );
      expect(
        (await getRecord(a.id, a2, { fieldKeyType: 'id' as never })).data.fields[link.data.id],
      ).toBeUndefined();
    },
  );

  it('a new field, lookup or rollup under a taken name gets the next free one; a rename to a taken name is a 400', async () => {
    const { a, b } = await twoTables();
    const link = await createField(a.id, {
      type: 'link' as never,
      options: { relationship: 'manyMany', foreignTableId: b.id } as never,
    });
    const bName = b.fields[0]?.id as string;
    const lookupOptions = { foreignTableId: b.id, linkFieldId: link.data.id, lookupFieldId: bName };

    const text = await createField(a.id, { type: 'singleLineText' as never, name: 'Name' });
    const lookup = await createField(a.id, {
      type: 'singleLineText' as never,
      isLookup: true,
      name: 'Name',
      lookupOptions,
    } as never);
    const rollup = await createField(a.id, {
      type: 'rollup' as never,
      name: 'Name 2',
      options: { expression: 'countall({values})' } as never,
      lookupOptions,
    } as never);
    const unnamed = [
      await createField(a.id, { type: 'singleLineText' as never, isLookup: true, lookupOptions } as never),
      await createField(a.id, { type: 'singleLineText' as never, isLookup: true, lookupOptions } as never),
    ];

    expect([text, lookup, rollup].map((f) => f.data.name)).toEqual(['Name 2', 'Name 3', 'Name 4']);
    expect(unnamed.map((f) => f.data.name)).toEqual(['Name (from B)', 'Name (from B) 2']);
    expect(await status(updateField(a.id, text.data.id, { name: 'Name' }))).toBe(400);
  });

  it("a link's titles are the foreign primary cells as displayed; a record whose primary is empty has none (Teable's 'correct formatted title')", async () => {
    const { a, b, aIds, bIds } = await twoTables();
    const [b1, b2] = bIds as [string, string];
    const link = (
      await createField(b.id, {
        type: 'link' as never,
        options: { relationship: 'manyOne', foreignTableId: a.id } as never,
      })
    ).data;
    const primary = (await getFields(b.id)).data[0] as { id: string };
    await convertField(b.id, primary.id, {
      type: 'number' as never,
      options: { formatting: { type: 'decimal', precision: 1 } } as never,
    });
    const put = (tableId: string, recordId: string, fieldId: string, value: unknown) =>
      updateRecord(tableId, recordId, {
        fieldKeyType: 'id' as never,
        record: { fields: { [fieldId]: value } },
      });
    await put(b.id, b1, primary.id, 1);
    await put(b.id, b2, primary.id, null);
    const back = (await getFields(a.id)).data.find(
      (f) => f.id === (link.options as { symmetricFieldId: string }).symmetricFieldId,
    ) as { id: string; name: string };
    await put(a.id, aIds[0] as string, back.id, [{ id: b1 }, { id: b2 }]);
    const listed = (await getRecords(a.id)).data.records[0]?.fields[back.name];
    expect(listed).toEqual([{ id: b1, title: '1.0' }, { id: b2 }]);
  });
});
