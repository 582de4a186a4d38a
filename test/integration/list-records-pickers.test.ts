import { describe, expect, it } from 'vitest';
import { invalid, notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { alphaAndBeta, newTable } from '#test/support/workspace.ts';

type Relationship = 'manyMany' | 'manyOne' | 'oneMany' | 'oneOne';

interface Ref {
  id: string;
}

/**
 * Table Alpha (A1, A2, A3) with a link field `fldL` to table Beta (B1..B4), where A1 links B1 (and
 * B2 when the link allows several) and A2 links B3. The pickers are asked on Beta.
 */
const linked = async (relationship: Relationship, isOneWay = false) => {
  const { alpha, beta } = await alphaAndBeta(['B1', 'B2', 'B3', 'B4']);
  const token = alpha.owner.auth;
  const betaId = beta.id as string;
  const link = await call('create-field', {
    token,
    params: { tableId: alpha.tableId },
    body: { type: 'link', name: 'Link', options: { relationship, foreignTableId: betaId, isOneWay } },
  });
  expect(link.status).toBe(201);
  const [a1, a2, a3] = alpha.table.records.map((r: Ref) => r.id) as [string, string, string];
  const [b1, b2, b3, b4] = beta.records.map((r: Ref) => r.id) as [string, string, string, string];
  const many = relationship === 'manyMany' || relationship === 'oneMany';
  const set = async (recordId: string, ids: string[]) => {
    const res = await call('update-record', {
      token,
      params: { tableId: alpha.tableId, recordId },
      body: { record: { fields: { Link: many ? ids.map((id) => ({ id })) : { id: ids[0] } } } },
    });
    expect(res.status).toBe(200);
  };
  // A1 → B2, B1 (cell order B2 first) when several are allowed, else A1 → B1; A2 → B3.
  await set(a1, many ? [b2, b1] : [b1]);
  await set(a2, [b3]);
  const names = async (query: string) => {
    const res = await call('list-records', { token, params: { tableId: betaId }, query });
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body.records.map((r: { name: string }) => r.name) as string[];
  };
  const list = (query: string) => call('list-records', { token, params: { tableId: betaId }, query });
  return {
    alpha,
    token,
    betaId,
    fieldId: link.body.id as string,
    link: link.body,
    a1,
    a2,
    a3,
    b1,
    b2,
    b3,
    b4,
    many,
    names,
    list,
  };
};

const CASES: [Relationship, boolean][] = [
  ['oneOne', false],
  ['oneMany', false],
  ['manyOne', false],
  ['manyMany', false],
  ['oneOne', true],
  ['oneMany', true],
  ['manyOne', true],
  ['manyMany', true],
];

describe('filterLinkCellCandidate', () => {
  it.each(CASES)('%s (one-way %s): what may still go into a cell', async (relationship, oneWay) => {
    const t = await linked(relationship, oneWay);
    const singleThere = relationship === 'oneOne' || relationship === 'oneMany';
    const fld = t.fieldId;
    // Without a record: "one" side leaves out every linked record; "many" side leaves out nothing.
    expect(await t.names(`filterLinkCellCandidate=${fld}`)).toEqual(
      singleThere ? (t.many ? ['B4'] : ['B2', 'B4']) : ['B1', 'B2', 'B3', 'B4'],
    );
    // With A1: also its own cell.
    expect(await t.names(`filterLinkCellCandidate[]=${fld}&filterLinkCellCandidate[]=${t.a1}`)).toEqual(
      singleThere ? (t.many ? ['B4'] : ['B2', 'B4']) : t.many ? ['B3', 'B4'] : ['B2', 'B3', 'B4'],
    );
    // With selectedRecordIds: those are left out as well.
    expect(
      await t.names(
        `filterLinkCellCandidate[]=${fld}&filterLinkCellCandidate[]=${t.a3}&selectedRecordIds=${t.b4}`,
      ),
    ).toEqual(singleThere ? (t.many ? [] : ['B2']) : ['B1', 'B2', 'B3']);
  });
});

describe('filterLinkCellSelected', () => {
  it.each(CASES)('%s (one-way %s): the records in a cell, in cell order', async (relationship, oneWay) => {
    const t = await linked(relationship, oneWay);
    const fld = t.fieldId;
    expect(await t.names(`filterLinkCellSelected[]=${fld}&filterLinkCellSelected[]=${t.a1}`)).toEqual(
      t.many ? ['B2', 'B1'] : ['B1'],
    );
    expect(await t.names(`filterLinkCellSelected[]=${fld}&filterLinkCellSelected[]=${t.a3}`)).toEqual([]);
    // The field alone: every record linked from any record, in the view's order.
    expect(await t.names(`filterLinkCellSelected=${fld}`)).toEqual(
      t.many ? ['B1', 'B2', 'B3'] : ['B1', 'B3'],
    );
  });

  it('ignores the view filter and orderBy for a cell', async () => {
    const t = await linked('manyMany');
    const orderBy = encodeURIComponent(JSON.stringify([{ fieldId: 'Name', order: 'asc' }]));
    expect(
      await t.names(
        `filterLinkCellSelected[]=${t.fieldId}&filterLinkCellSelected[]=${t.a1}&orderBy=${orderBy}`,
      ),
    ).toEqual(['B2', 'B1']);
  });
});

describe('picker errors', () => {
  it('a field that is not a link, a link to another table, an unknown field or record', async () => {
    const t = await linked('manyMany');
    const primary = t.alpha.table.fields[0].id as string;
    expect(await t.list(`filterLinkCellCandidate=${primary}`)).toMatchObject(
      invalid(new RegExp(`^filterLinkCellCandidate: field ${primary} is not a link field`)),
    );
    // The symmetric field lives on Beta and points at Alpha, not at Beta.
    const symmetric = t.link.options.symmetricFieldId as string;
    expect(await t.list(`filterLinkCellSelected=${symmetric}`)).toMatchObject(
      invalid(/does not link to table/),
    );
    expect(await t.list('filterLinkCellCandidate=fld0000000000000000')).toMatchObject(
      notFound(/field fld0000000000000000 not found/),
    );
    expect(
      await t.list(`filterLinkCellSelected[]=${t.fieldId}&filterLinkCellSelected[]=rec0000000000000000`),
    ).toMatchObject(notFound(/Record rec0000000000000000 not found/));
  });
});

describe('pickers on a link of a table to itself', () => {
  it('oneMany: candidates leave out records already linked and the record itself is allowed', async () => {
    const t = await newTable({ records: ['P1', 'P2', 'P3'].map((Name) => ({ fields: { Name } })) });
    const token = t.owner.auth;
    const link = await call('create-field', {
      token,
      params: { tableId: t.tableId },
      body: {
        type: 'link',
        name: 'Children',
        options: { relationship: 'oneMany', foreignTableId: t.tableId },
      },
    });
    expect(link.status).toBe(201);
    const [p1, p2] = t.table.records.map((r: Ref) => r.id) as [string, string, string];
    const set = await call('update-record', {
      token,
      params: { tableId: t.tableId, recordId: p1 },
      body: { record: { fields: { Children: [{ id: p2 }] } } },
    });
    expect(set.status).toBe(200);
    const names = async (query: string) =>
      (await call('list-records', { token, params: { tableId: t.tableId }, query })).body.records.map(
        (r: { name: string }) => r.name,
      );
    expect(await names(`filterLinkCellCandidate[]=${link.body.id}&filterLinkCellCandidate[]=${p1}`)).toEqual([
      'P1',
      'P3',
    ]);
    expect(await names(`filterLinkCellSelected=${link.body.id}`)).toEqual(['P2']);
  });
});
