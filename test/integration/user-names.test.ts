/**
 * `PATCH /user/name`: user cells follow (teable-routes.md, Tokens and users). A background job
 * rewrites the stale name in user cells and creator / editor stamps of every table of the user's
 * spaces, and what reads them recomputes; edit times stay.
 */
import { describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { renamedRecord, renamedRefs } from '#shared/records/user-names.ts';
import type { Field } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

const ref = (id: string, title: string) => ({ id, title, email: `${id}@x.test` });

describe('renaming refs (pure)', () => {
  it('renames the user in one ref or a list, and answers undefined when nothing is stale', () => {
    expect(renamedRefs(ref('usrA', 'Old'), 'usrA', 'New')).toEqual(ref('usrA', 'New'));
    expect(renamedRefs([ref('usrB', 'B'), ref('usrA', 'Old')], 'usrA', 'New')).toEqual([
      ref('usrB', 'B'),
      ref('usrA', 'New'),
    ]);
    expect(renamedRefs(ref('usrA', 'New'), 'usrA', 'New')).toBeUndefined();
    expect(renamedRefs([ref('usrB', 'B')], 'usrA', 'New')).toBeUndefined();
    expect(renamedRefs(undefined, 'usrA', 'New')).toBeUndefined();
    expect(renamedRefs('text', 'usrA', 'New')).toBeUndefined();
  });

  it('names the cells that changed, with the createdBy and lastModifiedBy fields of a stamp', () => {
    const fields = [
      { id: 'fldU', type: 'user' },
      { id: 'fldC', type: 'createdBy' },
      { id: 'fldM', type: 'lastModifiedBy' },
      { id: 'fldL', type: 'user', isLookup: true },
    ] as never[];
    const item = {
      id: 'rec1',
      fldU: ref('usrA', 'Old'),
      fldL: [ref('usrA', 'Old')],
      cb: ref('usrA', 'Old'),
      mb: ref('usrB', 'B'),
    } as never;
    const out = renamedRecord(item, fields, 'usrA', 'New');
    expect(out?.changed).toEqual(new Set(['fldU', 'cb', 'fldC']));
    expect(out?.item).toMatchObject({
      fldU: ref('usrA', 'New'),
      cb: ref('usrA', 'New'),
      fldL: [ref('usrA', 'Old')],
    });
    expect(renamedRecord(out?.item as never, fields, 'usrA', 'New')).toBeUndefined();
  });
});

describe('PATCH /user/name: user cells follow', () => {
  it('rewrites user cells, stamps, lookups elsewhere and formulas over them; edit times stay', async () => {
    const t = await newTable({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Owner', type: 'user' },
        { name: 'Made by', type: 'createdBy' },
      ],
      records: [],
    });
    const token = t.owner.auth;
    const helper = await newMember({ owner: t.owner, spaceId: t.spaceId }, 'editor');
    const fields = t.table.fields as Field[];
    const owner = fields.find((f) => f.name === 'Owner') as Field;
    const formula = await call('create-field', {
      token,
      params: { tableId: t.tableId },
      body: { type: 'formula', name: 'Who', options: { expression: `"by " & {${owner.id}}` } },
    });
    expect(formula.status, JSON.stringify(formula.body)).toBe(201);
    const created = await call('create-records', {
      token,
      params: { tableId: t.tableId },
      body: {
        records: [
          { fields: { Name: 'mine', Owner: { id: t.owner.id } } },
          { fields: { Name: 'theirs', Owner: { id: helper.id } } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // a table that looks the owner up through a link
    const other = await call('create-table', {
      token,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'o' } }] },
    });
    const link = await call('create-field', {
      token,
      params: { tableId: other.body.id },
      body: { type: 'link', name: 'Items', options: { relationship: 'manyMany', foreignTableId: t.tableId } },
    });
    await call('update-record', {
      token,
      params: { tableId: other.body.id, recordId: other.body.records[0].id },
      body: {
        record: { fields: { Items: created.body.records.map((r: { id: string }) => ({ id: r.id })) } },
      },
    });
    const lookup = await call('create-field', {
      token,
      params: { tableId: other.body.id },
      body: {
        type: 'user',
        isLookup: true,
        name: 'Owners',
        lookupOptions: { foreignTableId: t.tableId, linkFieldId: link.body.id, lookupFieldId: owner.id },
      },
    });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(201);
    const before = await call('list-records', { token, params: { tableId: t.tableId } });

    expect((await call('rename-user', { token, body: { name: 'Renamed Owner' } })).status).toBe(200);
    await drainPurges();

    const after = await call('list-records', { token, params: { tableId: t.tableId } });
    const [mine, theirs] = after.body.records as {
      fields: Record<string, unknown>;
      lastModifiedTime: string;
    }[];
    expect(mine?.fields.Owner).toMatchObject({ id: t.owner.id, title: 'Renamed Owner' });
    expect(mine?.fields['Made by']).toMatchObject({ id: t.owner.id, title: 'Renamed Owner' });
    expect(mine?.fields.Who).toBe('by Renamed Owner');
    expect(theirs?.fields.Owner).toMatchObject({
      id: helper.id,
      title: before.body.records[1].fields.Owner.title,
    });
    expect(theirs?.fields['Made by']).toMatchObject({ title: 'Renamed Owner' });
    expect(after.body.records.map((r: { lastModifiedTime: string }) => r.lastModifiedTime)).toEqual(
      before.body.records.map((r: { lastModifiedTime: string }) => r.lastModifiedTime),
    );
    const looked = await call('list-records', { token, params: { tableId: other.body.id } });
    expect(looked.body.records[0].fields.Owners.map((u: { title: string }) => u.title)).toEqual([
      'Renamed Owner',
      before.body.records[1].fields.Owner.title,
    ]);
    // filter and search read the new name
    const found = await call('list-records', {
      token,
      params: { tableId: t.tableId },
      query: 'search[]=Renamed&search[]=Owner&search[]=true',
    });
    expect(found.body.records.map((r: { name: string }) => r.name)).toEqual(['mine']);
  });
});
