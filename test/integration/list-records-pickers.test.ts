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

/**
 * Link picker limits (teable-routes.md, Field): a link's `options.filter` and `filterByViewId`
 * narrow what its candidate picker offers; `filter-link-records` names the records the filter's
 * link items hold. Beta (B1..B4) links Gamma (G1, G2): B1 → G1, B2 → G2, B3 → G1.
 */
describe('link picker limits', () => {
  const world = async () => {
    const { alpha, beta } = await alphaAndBeta(['B1', 'B2', 'B3', 'B4']);
    const token = alpha.owner.auth;
    const gamma = await call('create-table', {
      token,
      params: { baseId: alpha.baseId },
      body: { name: 'Gamma', records: [{ fields: { Name: 'G1' } }, { fields: { Name: 'G2' } }] },
    });
    expect(gamma.status).toBe(201);
    const [g1, g2] = gamma.body.records.map((r: Ref) => r.id) as [string, string];
    const tags = await call('create-field', {
      token,
      params: { tableId: beta.id },
      body: {
        type: 'link',
        name: 'Tags',
        options: { relationship: 'manyMany', foreignTableId: gamma.body.id },
      },
    });
    expect(tags.status).toBe(201);
    const [b1, b2, b3] = beta.records.map((r: Ref) => r.id) as [string, string, string];
    const set = await call('update-records', {
      token,
      params: { tableId: beta.id },
      body: {
        records: [
          { id: b1, fields: { Tags: [{ id: g1 }] } },
          { id: b2, fields: { Tags: [{ id: g2 }] } },
          { id: b3, fields: { Tags: [{ id: g1 }] } },
        ],
      },
    });
    expect(set.status).toBe(200);
    const candidates = async (fieldId: string) => {
      const res = await call('list-records', {
        token,
        params: { tableId: beta.id },
        query: `filterLinkCellCandidate=${fieldId}`,
      });
      expect(res.status).toBe(200);
      return res.body.records.map((r: { name: string }) => r.name) as string[];
    };
    return {
      alpha,
      beta,
      token,
      gammaId: gamma.body.id as string,
      g1,
      g2,
      tagsId: tags.body.id as string,
      candidates,
    };
  };

  it('a link filter is checked against the foreign table, stored resolved, and narrows the candidates', async () => {
    const w = await world();
    const created = await call('create-field', {
      token: w.token,
      params: { tableId: w.alpha.tableId },
      body: {
        type: 'link',
        name: 'Picked',
        options: {
          relationship: 'manyMany',
          foreignTableId: w.beta.id,
          filter: {
            conjunction: 'and',
            filterSet: [{ fieldId: 'Tags', operator: 'hasAnyOf', value: [w.g1] }],
          },
          visibleFieldIds: [w.tagsId],
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.options).toMatchObject({
      filter: { conjunction: 'and', filterSet: [{ fieldId: w.tagsId, operator: 'hasAnyOf', value: [w.g1] }] },
      visibleFieldIds: [w.tagsId],
    });
    expect(await w.candidates(created.body.id)).toEqual(['B1', 'B3']);

    // the records its filter names, with titles, by table
    const named = await call('list-field-filter-link-records', {
      token: w.token,
      params: { tableId: w.alpha.tableId, fieldId: created.body.id },
    });
    expect(named).toMatchObject({
      status: 200,
      body: [{ tableId: w.gammaId, records: [{ id: w.g1, title: 'G1' }] }],
    });

    // a PATCH replaces the filter; null clears it, and every record is a candidate again
    const patched = await call('update-field', {
      token: w.token,
      params: { tableId: w.alpha.tableId, fieldId: created.body.id },
      body: {
        options: {
          filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'is', value: 'B4' }] },
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(await w.candidates(created.body.id)).toEqual(['B4']);
    const cleared = await call('update-field', {
      token: w.token,
      params: { tableId: w.alpha.tableId, fieldId: created.body.id },
      body: { options: { filter: null } },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.options).not.toHaveProperty('filter');
    expect(await w.candidates(created.body.id)).toEqual(['B1', 'B2', 'B3', 'B4']);
    const none = await call('list-field-filter-link-records', {
      token: w.token,
      params: { tableId: w.alpha.tableId, fieldId: created.body.id },
    });
    expect(none).toMatchObject({ status: 200, body: [] });
  });

  it('filterByViewId limits the candidates to what the view shows', async () => {
    const w = await world();
    const view = await call('create-view', {
      token: w.token,
      params: { tableId: w.beta.id },
      body: {
        type: 'grid',
        filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'isNot', value: 'B1' }] },
      },
    });
    expect(view.status).toBe(201);
    const link = await call('create-field', {
      token: w.token,
      params: { tableId: w.alpha.tableId },
      body: {
        type: 'link',
        options: { relationship: 'manyOne', foreignTableId: w.beta.id, filterByViewId: view.body.id },
      },
    });
    expect(link.status).toBe(201);
    expect(await w.candidates(link.body.id)).toEqual(['B2', 'B3', 'B4']);
  });

  it('bad limits are a 400 naming the option', async () => {
    const w = await world();
    const define = (options: Record<string, unknown>) =>
      call('create-field', {
        token: w.token,
        params: { tableId: w.alpha.tableId },
        body: { type: 'link', options: { relationship: 'manyMany', foreignTableId: w.beta.id, ...options } },
      });
    expect(await define({ filter: 'Name = 1' })).toMatchObject(
      invalid('Invalid options for a link field: filter must be a filter object {conjunction, filterSet}'),
    );
    const unknownField = await define({
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Nope', operator: 'is', value: 'x' }] },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toMatch(/^options\.filter\.filterSet\.0\.fieldId: /);
    expect(await define({ filterByViewId: 'viw0000000000000001' })).toMatchObject(
      invalid('options.filterByViewId: view viw0000000000000001 not found in the foreign table'),
    );
    expect(await define({ visibleFieldIds: ['nope'] })).toMatchObject(
      invalid('Invalid options for a link field: visibleFieldIds must be a list of field ids (fld…)'),
    );
    // a field of the table itself is not a field of the foreign table
    expect(await define({ visibleFieldIds: [w.alpha.table.fields[0].id] })).toMatchObject(
      invalid(`options.visibleFieldIds: field ${w.alpha.table.fields[0].id} not found in the foreign table`),
    );
  });

  it('filter-link-records: a field without a picker filter names none; an unknown field is a 404', async () => {
    const w = await world();
    const primary = await call('list-field-filter-link-records', {
      token: w.token,
      params: { tableId: w.beta.id, fieldId: w.beta.fields[0].id },
    });
    expect(primary).toMatchObject({ status: 200, body: [] });
    const unknown = await call('list-field-filter-link-records', {
      token: w.token,
      params: { tableId: w.beta.id, fieldId: 'fld0000000000000001' },
    });
    expect(unknown).toMatchObject(notFound(`Field fld0000000000000001 not found in table ${w.beta.id}`));
  });
});
