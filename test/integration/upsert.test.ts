import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Upsert by natural key (issue 30, data-flow.md 8): `performUpsert: {fieldsToMergeOn}` on
 * `POST /table/{tableId}/record`.
 */

const stock = (extra: unknown[] = []) =>
  newTable({
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'singleLineText', name: 'Site' },
      { type: 'number', name: 'Qty' },
      ...extra,
    ],
    records: [
      { fields: { Name: 'Bolt', Site: 'A', Qty: 1 } },
      { fields: { Name: 'Nut', Site: 'A', Qty: 2 } },
      { fields: { Name: 'Nut', Site: 'B', Qty: 3 } },
    ],
  });
type Stock = Awaited<ReturnType<typeof stock>>;

const upsert = (
  t: Stock,
  records: unknown[],
  fieldsToMergeOn: unknown,
  extra: Record<string, unknown> = {},
) =>
  call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: { records, performUpsert: { fieldsToMergeOn }, ...extra },
  });

/** The table's records as `Name/Site=Qty`, sorted. */
const contents = async (t: Stock) => {
  const res = await call('list-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    query: 'take=1000',
  });
  return (res.body.records as { fields: Record<string, unknown> }[])
    .map((r) => `${r.fields.Name}/${r.fields.Site ?? ''}=${r.fields.Qty ?? ''}`)
    .sort();
};

describe('upsert (performUpsert.fieldsToMergeOn)', () => {
  it('creates what matches nothing and updates what matches one, answering 200 in request order', async () => {
    const t = await stock();
    const bolt = (t.table.records as { id: string }[])[0]?.id;

    const res = await upsert(
      t,
      [{ fields: { Name: 'Washer', Qty: 9 } }, { fields: { Name: 'Bolt', Qty: 5 } }],
      ['Name', 'Site'].slice(0, 1),
    );

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.records.map((r: { fields: Record<string, unknown> }) => [r.fields.Name, r.fields.Qty]),
    ).toEqual([
      ['Washer', 9],
      ['Bolt', 5],
    ]);
    expect(res.body.updatedRecords).toEqual([bolt]);
    expect(res.body.createdRecords).toEqual([res.body.records[0].id]);
    // only the given fields of a matched record change
    expect(res.body.records[1].fields.Site).toBe('A');
    expect(await contents(t)).toEqual(['Bolt/A=5', 'Nut/A=2', 'Nut/B=3', 'Washer/=9']);
  });

  it('matches on several fields; exact and case-sensitive; values converted first (typecast)', async () => {
    const t = await stock();

    const res = await upsert(
      t,
      [{ fields: { Name: 'Nut', Site: 'B', Qty: '30' } }, { fields: { Name: 'nut', Site: 'A', Qty: 7 } }],
      ['Name', 'Site'],
      { typecast: true },
    );

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updatedRecords).toHaveLength(1);
    expect(res.body.createdRecords).toHaveLength(1);
    expect(await contents(t)).toEqual(['Bolt/A=1', 'Nut/A=2', 'Nut/B=30', 'nut/A=7']);
  });

  it('a key matching two records is a 422 ambiguous_match naming the request record; nothing is written', async () => {
    const t = await stock();
    const before = await contents(t);

    const res = await upsert(
      t,
      [{ fields: { Name: 'Bolt', Qty: 8 } }, { fields: { Name: 'Nut', Qty: 9 } }],
      ['Name'],
    );

    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 422, code: 'ambiguous_match' });
    expect(res.body.details).toEqual([
      { path: 'records[1]', message: expect.stringMatching(/^matches 2 records: rec/) },
    ]);
    expect(await contents(t)).toEqual(before);
  });

  it('bad fieldsToMergeOn, a record without its key, the same key twice: 400, nothing written', async () => {
    const t = await stock([{ type: 'autoNumber', name: 'Twice' }]);
    const before = await contents(t);
    const one = [{ fields: { Name: 'X', Qty: 1 } }];

    expect(await upsert(t, one, [])).toMatchObject(invalid(/1 to 3 fields/));
    expect(await upsert(t, one, ['Name', 'Site', 'Qty', 'Twice'])).toMatchObject(invalid(/1 to 3 fields/));
    expect(await upsert(t, one, ['Nope'])).toMatchObject(invalid(/no field "Nope"/));
    expect(await upsert(t, one, ['Twice'])).toMatchObject(invalid(/cannot be matched on/));
    expect(await upsert(t, one, ['Name', 'Name'])).toMatchObject(invalid(/named twice/));
    expect(await upsert(t, one, 'Name')).toMatchObject({ status: 400 });
    expect(await upsert(t, [{ fields: { Qty: 1 } }], ['Name'])).toMatchObject(
      invalid(/records\[0\]: give a value/),
    );
    expect(
      await upsert(
        t,
        [{ fields: { Name: 'Y' } }, { fields: { Name: 'Z' } }, { fields: { Name: 'Y' } }],
        ['Name'],
      ),
    ).toMatchObject(invalid(/records\[0\] and records\[2\] have the same key/));
    expect(
      await upsert(t, one, ['Name'], {
        order: {
          viewId: t.viewId,
          anchorId: (t.table.records as { id: string }[])[0]?.id,
          position: 'after',
        },
      }),
    ).toMatchObject(invalid(/order/));
    expect(await contents(t)).toEqual(before);
  });

  it('ten concurrent upserts of one new key leave one record; each answers 200', async () => {
    const t = await stock();

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => upsert(t, [{ fields: { Name: 'Spring', Qty: i } }], ['Name'])),
    );

    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const created = answers.flatMap((a) => a.body.createdRecords);
    const updated = answers.flatMap((a) => a.body.updatedRecords);
    expect(created).toHaveLength(1);
    expect(updated).toHaveLength(9);
    expect(new Set(updated)).toEqual(new Set(created));
    expect((await contents(t)).filter((c) => c.startsWith('Spring/'))).toHaveLength(1);
  });

  it('on a unique field: matched through its claims; a value taken in another case is the unique 400', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Code', unique: true },
        { type: 'number', name: 'Qty' },
      ],
      records: [{ fields: { Code: 'AB-1', Qty: 1 } }],
    });
    const res = await upsert(
      t as Stock,
      [{ fields: { Code: 'AB-1', Qty: 4 } }, { fields: { Code: 'CD-2', Qty: 5 } }],
      ['Code'],
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updatedRecords).toHaveLength(1);
    expect(res.body.createdRecords).toHaveLength(1);

    const cased = await upsert(t as Stock, [{ fields: { Code: 'ab-1', Qty: 6 } }], ['Code']);
    expect(cased.status).toBe(400);
  });

  it('all or nothing: an update that fails after the creates removes the records created', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'singleLineText', name: 'Code', unique: true },
      ],
      records: [{ fields: { Name: 'one', Code: 'x' } }, { fields: { Name: 'two', Code: 'y' } }],
    });

    // 'three' is created, then 'one' would take 'y', which 'two' holds
    const res = await upsert(
      t as Stock,
      [{ fields: { Name: 'three', Code: 'z' } }, { fields: { Name: 'one', Code: 'y' } }],
      ['Name'],
    );

    expect(res.status).toBe(400);
    const list = await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(
      list.body.records
        .map((r: { fields: { Name: string; Code: string } }) => `${r.fields.Name}=${r.fields.Code}`)
        .sort(),
    ).toEqual(['one=x', 'two=y']);
  });
});
