/**
 * Links between two bases through Teable's own client (`@teable/openapi` 1.10.0), as Teable's case
 * *cross base link* makes them: a link names the foreign table's base in `options.baseId`, its
 * other side names this one; cells, titles and lookups work across; a conversion keeps the bases;
 * a caller who cannot reach the other base learns nothing of it and nothing is written.
 */
import {
  addSpaceCollaborator,
  configApi,
  convertField,
  createBase,
  createField,
  createSpace,
  createTable,
  getField,
  getFields,
  getRecord,
  updateRecord,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();
const endpoint = () => api.base.replace(/\/api$/, '');

interface LinkOpts {
  baseId?: string;
  symmetricFieldId?: string;
  relationship: string;
}
const optionsOf = (f: { options?: unknown }) => f.options as LinkOpts;

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { status?: number }) => error.status,
  );

/** Two bases of one owner, a table in each. */
const twoBases = async () => {
  const space = await createSpace({ name: 'Cross' });
  const base1 = (await createBase({ spaceId: space.data.id, name: 'one' })).data.id;
  const base2 = (await createBase({ spaceId: space.data.id, name: 'two' })).data.id;
  const text = [{ name: 'Name', type: 'singleLineText' as never }];
  const t1 = (
    await createTable(base1, { name: 'table1', fields: text, records: [{ fields: { Name: 'a1' } }] })
  ).data;
  const t2 = (
    await createTable(base2, {
      name: 'table2',
      fields: text,
      records: [{ fields: { Name: 'b1' } }, { fields: { Name: 'b2' } }],
    })
  ).data;
  return { base1, base2, t1, t2 };
};

describe("links between bases through Teable's client", () => {
  let owner: { token: string };
  beforeAll(async () => {
    owner = await newUser({ name: 'Cross' });
    configApi({ token: owner.token, endpoint: endpoint() });
  });

  it('a link names the other base on each side; cells and lookups work across; a conversion keeps the bases', async () => {
    const { base1, base2, t1, t2 } = await twoBases();
    const link = (
      await createField(t1.id, {
        name: 'link field',
        type: 'link' as never,
        options: { baseId: base2, relationship: 'manyOne', foreignTableId: t2.id } as never,
      })
    ).data;
    expect(optionsOf(link).baseId).toBe(base2);
    const side = (await getField(t2.id, optionsOf(link).symmetricFieldId as string)).data;
    expect(optionsOf(side).baseId).toBe(base1);

    const [a1] = t1.records.map((r) => r.id) as [string];
    const [b1] = t2.records.map((r) => r.id) as [string];
    await updateRecord(t1.id, a1, {
      fieldKeyType: 'id' as never,
      record: { fields: { [link.id]: { id: b1 } } },
    });
    const lookup = (
      await createField(t1.id, {
        type: 'singleLineText' as never,
        isLookup: true,
        lookupOptions: {
          foreignTableId: t2.id,
          linkFieldId: link.id,
          lookupFieldId: t2.fields[0]?.id,
        } as never,
      })
    ).data;
    const here = (await getRecord(t1.id, a1, { fieldKeyType: 'id' as never })).data.fields;
    expect(here[link.id]).toEqual({ id: b1, title: 'b1' });
    expect(here[lookup.id]).toBe('b1');
    // the other base's record names this one back
    const there = (await getRecord(t2.id, b1, { fieldKeyType: 'id' as never })).data.fields;
    expect(there[side.id]).toEqual([{ id: a1, title: 'a1' }]);

    await convertField(t1.id, link.id, {
      type: 'link' as never,
      options: { baseId: base2, relationship: 'oneMany', foreignTableId: t2.id } as never,
    });
    const converted = (await getField(t1.id, link.id)).data;
    expect(optionsOf(converted)).toMatchObject({ baseId: base2, relationship: 'oneMany' });
    const sideAfter = (await getField(t2.id, optionsOf(converted).symmetricFieldId as string)).data;
    expect(optionsOf(sideAfter)).toMatchObject({ baseId: base1, relationship: 'manyOne' });
  });

  it('a link within one base names no base; a table of another base is reached only when that base is named', async () => {
    const { base1, t1, t2 } = await twoBases();
    const same = (
      await createTable(base1, { name: 'same', fields: [{ name: 'Name', type: 'singleLineText' as never }] })
    ).data;
    const local = (
      await createField(t1.id, {
        type: 'link' as never,
        options: { baseId: base1, relationship: 'manyMany', foreignTableId: same.id } as never,
      })
    ).data;
    expect(optionsOf(local).baseId).toBeUndefined();
    const unnamed = createField(t1.id, {
      type: 'link' as never,
      options: { relationship: 'manyOne', foreignTableId: t2.id } as never,
    });
    expect(await statusOf(unnamed)).toBe(400);
    const misnamed = createField(t1.id, {
      type: 'link' as never,
      options: { baseId: base1, relationship: 'manyOne', foreignTableId: t2.id } as never,
    });
    expect(await statusOf(misnamed)).toBe(400);
    expect((await getFields(t2.id)).data.map((f) => f.name)).toEqual(['Name']);
  });

  it('a caller who cannot reach the other base gets the answer of a table that is not there, and nothing is written', async () => {
    const { base2, t2 } = await twoBases();
    const stranger = await newUser({ name: 'Stranger' });
    configApi({ token: stranger.token, endpoint: endpoint() });
    try {
      const space = await createSpace({ name: 'Own' });
      const base = (await createBase({ spaceId: space.data.id })).data.id;
      const mine = (
        await createTable(base, { name: 'mine', fields: [{ name: 'Name', type: 'singleLineText' as never }] })
      ).data;
      const attempt = createField(mine.id, {
        type: 'link' as never,
        options: { baseId: base2, relationship: 'manyOne', foreignTableId: t2.id } as never,
      });
      expect(await statusOf(attempt)).toBe(400);
      expect((await getFields(mine.id)).data.map((f) => f.name)).toEqual(['Name']);
    } finally {
      configApi({ token: owner.token, endpoint: endpoint() });
    }
    expect((await getFields(t2.id)).data.map((f) => f.name)).toEqual(['Name']);
  });

  it('a member who may only read the other base is refused (403), and nothing is written', async () => {
    const member = await newUser({ name: 'Member' });
    const text = [{ name: 'Name', type: 'singleLineText' as never }];
    const mine = await createSpace({ name: 'Edits here' });
    const theirs = await createSpace({ name: 'Reads there' });
    const base1 = (await createBase({ spaceId: mine.data.id })).data.id;
    const base2 = (await createBase({ spaceId: theirs.data.id })).data.id;
    const t1 = (await createTable(base1, { name: 'here', fields: text })).data;
    const t2 = (await createTable(base2, { name: 'there', fields: text })).data;
    const invite = (spaceId: string, role: string) =>
      addSpaceCollaborator(spaceId, {
        collaborators: [{ principalId: member.id, principalType: 'user' }],
        role,
      } as never);
    await invite(mine.data.id, 'editor');
    await invite(theirs.data.id, 'viewer');
    configApi({ token: member.token, endpoint: endpoint() });
    try {
      const attempt = createField(t1.id, {
        type: 'link' as never,
        options: { baseId: base2, relationship: 'manyOne', foreignTableId: t2.id } as never,
      });
      expect(await statusOf(attempt)).toBe(403);
    } finally {
      configApi({ token: owner.token, endpoint: endpoint() });
    }
    expect((await getFields(t1.id)).data.map((f) => f.name)).toEqual(['Name']);
    expect((await getFields(t2.id)).data.map((f) => f.name)).toEqual(['Name']);
  });
});
