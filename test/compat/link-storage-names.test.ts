/**
 * A link's storage names through Teable's own client (`@teable/openapi` 1.10.0), as Teable's
 * link cases read them (`link-api.e2e-spec.ts`: *create table with link field*, *create link
 * fields*, *change db table name*): `fkHostTableName`, `selfKeyName` and `foreignKeyName` in
 * Teable's naming, the same host on both sides with the keys swapped, and a table's new database
 * name reaching the links and lookups that name it. Names only here: nothing stores by them.
 */
import {
  configApi,
  convertField,
  createBase,
  createField,
  createSpace,
  createTable,
  getField,
  getFields,
  getTableById,
  type ITableFullVo,
  updateDbTableName,
  updateField,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

const newBase = async () => {
  const space = await createSpace({ name: 'Storage names' });
  return (await createBase({ spaceId: space.data.id })).data.id;
};

const text = { type: 'singleLineText' as never, name: 'text field' };
const number = { type: 'number' as never, name: 'Number field' };

/** A table with a text and a number field (and `extra`), its fields read back. */
const table = async (baseId: string, name: string, extra: Record<string, unknown>[] = []) => {
  const created = (await createTable(baseId, { name, fields: [text, number, ...(extra as never[])] })).data;
  return created;
};

const fieldsOf = async (tableId: string) => (await getFields(tableId)).data;
interface LinkNames {
  relationship: string;
  fkHostTableName: string;
  selfKeyName: string;
  foreignKeyName: string;
  symmetricFieldId?: string;
}
const optionsOf = (field: { options?: unknown }) => field.options as LinkNames;

describe("a link's storage names through Teable's client", () => {
  beforeAll(async () => {
    const user = await newUser({ name: 'Names' });
    configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
  });

  it("a new table with a many-one link: kept in that table, under the link's key; the other side swaps the keys", async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2: ITableFullVo = await table(baseId, 'table2', [
      { name: 'link field', type: 'link', options: { relationship: 'manyOne', foreignTableId: t1.id } },
    ]);
    const [link] = t2.fields.slice(2);
    const [other] = (await fieldsOf(t1.id)).slice(2);
    expect(optionsOf(link as never)).toMatchObject({
      relationship: 'manyOne',
      fkHostTableName: t2.dbTableName,
      selfKeyName: '__id',
      foreignKeyName: `__fk_${link?.id}`,
      symmetricFieldId: other?.id,
    });
    expect(optionsOf(other as never)).toMatchObject({
      relationship: 'oneMany',
      fkHostTableName: t2.dbTableName,
      selfKeyName: `__fk_${link?.id}`,
      foreignKeyName: '__id',
      symmetricFieldId: link?.id,
    });
  });

  it('a many-many link: one junction named after the link and its other side, in the base', async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2 = await table(baseId, 'table2', [
      { name: 'link field', type: 'link', options: { relationship: 'manyMany', foreignTableId: t1.id } },
    ]);
    const link = t2.fields[2] as { id: string; options: unknown };
    const other = (await fieldsOf(t1.id))[2] as { id: string; options: unknown };
    const junction = `${baseId}.junction_${link.id}_${other.id}`;
    expect(optionsOf(link)).toMatchObject({
      fkHostTableName: junction,
      selfKeyName: `__fk_${other.id}`,
      foreignKeyName: `__fk_${link.id}`,
    });
    expect(optionsOf(other)).toMatchObject({
      fkHostTableName: junction,
      selfKeyName: `__fk_${link.id}`,
      foreignKeyName: `__fk_${other.id}`,
    });
  });

  it('a one-many link: kept in the foreign table, where its many-one side is', async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2 = await table(baseId, 'table2', [
      { name: 'link field', type: 'link', options: { relationship: 'oneMany', foreignTableId: t1.id } },
    ]);
    const link = t2.fields[2] as { id: string; options: unknown };
    const other = (await fieldsOf(t1.id))[2] as { id: string; options: unknown };
    expect(optionsOf(other)).toMatchObject({
      relationship: 'manyOne',
      fkHostTableName: t1.dbTableName,
      selfKeyName: '__id',
      foreignKeyName: `__fk_${other.id}`,
    });
    expect(optionsOf(link)).toMatchObject({
      relationship: 'oneMany',
      fkHostTableName: t1.dbTableName,
      selfKeyName: `__fk_${other.id}`,
      foreignKeyName: '__id',
    });
  });

  it('links made on existing tables: two-way many-many (also to its own table), one-way many-many, two-way one-one', async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2 = await table(baseId, 'table2');
    const made = async (tableId: string, options: Record<string, unknown>) =>
      (await createField(tableId, { type: 'link' as never, options: options as never })).data;

    const many = await made(t1.id, { relationship: 'manyMany', foreignTableId: t2.id });
    const manyOther = (await fieldsOf(t2.id))[2] as { id: string; options: unknown };
    expect(optionsOf(many)).toMatchObject({
      fkHostTableName: `${baseId}.junction_${many.id}_${manyOther.id}`,
      selfKeyName: `__fk_${manyOther.id}`,
      foreignKeyName: `__fk_${many.id}`,
      symmetricFieldId: manyOther.id,
    });

    const self = await made(t1.id, { relationship: 'manyMany', foreignTableId: t1.id });
    const selfOther = (await fieldsOf(t1.id)).find((f) => f.id === optionsOf(self).symmetricFieldId);
    expect(optionsOf(selfOther as never)).toMatchObject({
      fkHostTableName: `${baseId}.junction_${self.id}_${selfOther?.id}`,
      selfKeyName: `__fk_${self.id}`,
      foreignKeyName: `__fk_${selfOther?.id}`,
    });

    const oneWay = await made(t1.id, { relationship: 'manyMany', foreignTableId: t2.id, isOneWay: true });
    expect(optionsOf(oneWay)).toMatchObject({
      isOneWay: true,
      fkHostTableName: `${baseId}.junction_${oneWay.id}`,
      foreignKeyName: `__fk_${oneWay.id}`,
    });
    expect(optionsOf(oneWay).selfKeyName).toContain('rad');
    expect(optionsOf(oneWay).symmetricFieldId).toBeUndefined();

    const one = await made(t1.id, { relationship: 'oneOne', foreignTableId: t2.id });
    const oneOther = (await fieldsOf(t2.id)).find((f) => f.id === optionsOf(one).symmetricFieldId);
    expect(optionsOf(one)).toMatchObject({
      fkHostTableName: t1.dbTableName,
      selfKeyName: '__id',
      foreignKeyName: `__fk_${one.id}`,
    });
    expect(optionsOf(oneOther as never)).toMatchObject({
      fkHostTableName: t1.dbTableName,
      selfKeyName: `__fk_${one.id}`,
      foreignKeyName: '__id',
    });
  });

  it("a table's new database name reaches the links kept in it and the lookups through them", async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2 = await table(baseId, 'table2');
    const link = (
      await createField(t2.id, {
        type: 'link' as never,
        name: 'link field',
        options: { relationship: 'oneMany', foreignTableId: t1.id } as never,
      })
    ).data;
    const other = (await fieldsOf(t1.id))[2] as { id: string; options: unknown };
    expect(optionsOf(link).fkHostTableName).toBe(t1.dbTableName);
    expect(optionsOf(other).fkHostTableName).toBe(t1.dbTableName);
    const lookup = (
      await createField(t2.id, {
        type: 'singleLineText' as never,
        isLookup: true,
        lookupOptions: {
          foreignTableId: t1.id,
          lookupFieldId: t1.fields[0]?.id,
          linkFieldId: link.id,
        } as never,
      })
    ).data;

    await updateDbTableName(baseId, t1.id, { dbTableName: 'newAwesomeName' });

    expect((await getTableById(baseId, t1.id)).data.dbTableName).toBe('newAwesomeName');
    for (const [tableId, fieldId] of [
      [t1.id, other.id],
      [t2.id, link.id],
    ] as const)
      expect(optionsOf((await getField(tableId, fieldId)).data).fkHostTableName).toBe('newAwesomeName');
    expect((await getField(t2.id, lookup.id)).data.lookupOptions).toMatchObject({
      fkHostTableName: 'newAwesomeName',
      selfKeyName: `__fk_${other.id}`,
      foreignKeyName: '__id',
    });
    // a junction's name does not follow a table's
    const many = (
      await createField(t2.id, {
        type: 'link' as never,
        options: { relationship: 'manyMany', foreignTableId: t1.id } as never,
      })
    ).data;
    await updateDbTableName(baseId, t2.id, { dbTableName: 'second' });
    expect(optionsOf((await getField(t2.id, many.id)).data).fkHostTableName).toMatch(
      new RegExp(`^${baseId}\\.junction_${many.id}_fld`),
    );
  });

  it('names stay through a rename of the field and follow a change of relationship', async () => {
    const baseId = await newBase();
    const t1 = await table(baseId, 'table1');
    const t2 = await table(baseId, 'table2');
    const oneWay = (
      await createField(t1.id, {
        type: 'link' as never,
        options: { relationship: 'manyMany', foreignTableId: t2.id, isOneWay: true } as never,
      })
    ).data;
    await updateField(t1.id, oneWay.id, { name: 'Renamed' });
    expect(optionsOf((await getField(t1.id, oneWay.id)).data)).toEqual(
      expect.objectContaining({ selfKeyName: optionsOf(oneWay).selfKeyName }),
    );

    const link = (
      await createField(t1.id, {
        type: 'link' as never,
        name: 'To two',
        options: { relationship: 'manyMany', foreignTableId: t2.id } as never,
      })
    ).data;
    const sideId = optionsOf(link).symmetricFieldId as string;
    await convertField(t1.id, link.id, {
      type: 'link' as never,
      options: { relationship: 'manyOne', foreignTableId: t2.id } as never,
    });
    expect(optionsOf((await getField(t1.id, link.id)).data)).toMatchObject({
      relationship: 'manyOne',
      symmetricFieldId: sideId,
      fkHostTableName: t1.dbTableName,
      selfKeyName: '__id',
      foreignKeyName: `__fk_${link.id}`,
    });
    expect(optionsOf((await getField(t2.id, sideId)).data)).toMatchObject({
      relationship: 'oneMany',
      fkHostTableName: t1.dbTableName,
      selfKeyName: `__fk_${link.id}`,
      foreignKeyName: '__id',
    });
  });
});
