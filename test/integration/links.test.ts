import { describe, expect, it } from 'vitest';
import { queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { newId } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { call } from '#test/support/invoke.ts';
import { alphaAndBeta, newTable } from '#test/support/workspace.ts';

type Relationship = 'manyMany' | 'manyOne' | 'oneMany' | 'oneOne';

interface Ref {
  id: string;
}

const MIRROR: Record<Relationship, Relationship> = {
  manyMany: 'manyMany',
  manyOne: 'oneMany',
  oneMany: 'manyOne',
  oneOne: 'oneOne',
};

const isMultiple = (r: Relationship) => r === 'manyMany' || r === 'oneMany';

/** The JSON cell of a link of this relationship holding these records (`{id, title}` or a list). */
const cellOf = (r: Relationship, linked: { id: string; title: string }[]) =>
  isMultiple(r) ? linked : linked[0];

/**
 * Table `Alpha` (A1, A2, A3) and table `Beta` (B1, B2, B3) in one base, with a link field from
 * Alpha to Beta of the given relationship, named by default (`Beta`); its other side is `Alpha`.
 */
const linkedTables = async (relationship: Relationship, extra: Record<string, unknown> = {}) => {
  const { alpha, beta } = await alphaAndBeta(['B1', 'B2', 'B3']);
  const token = alpha.owner.auth;
  const betaId = beta.id as string;
  const link = await call('create-field', {
    token,
    params: { tableId: alpha.tableId },
    body: { type: 'link', options: { relationship, foreignTableId: betaId, ...extra } },
  });
  if (link.status !== 201) throw new Error(`create-field: ${link.status} ${JSON.stringify(link.body)}`);
  const [a1, a2, a3] = alpha.table.records.map((r: Ref) => r.id) as [string, string, string];
  const [b1, b2, b3] = beta.records.map((r: Ref) => r.id) as [string, string, string];
  const getA = (recordId: string) =>
    call('get-record', { token, params: { tableId: alpha.tableId, recordId } });
  const getB = (recordId: string) => call('get-record', { token, params: { tableId: betaId, recordId } });
  const patchA = (recordId: string, fields: Record<string, unknown>, typecast = false) =>
    call('update-record', {
      token,
      params: { tableId: alpha.tableId, recordId },
      body: { record: { fields }, typecast },
    });
  const patchB = (recordId: string, fields: Record<string, unknown>) =>
    call('update-record', { token, params: { tableId: betaId, recordId }, body: { record: { fields } } });
  return {
    ...alpha,
    token,
    betaId,
    betaViewId: beta.views[0].id as string,
    alphaPrimaryId: alpha.table.fields[0].id as string,
    betaPrimaryId: beta.fields[0].id as string,
    link: link.body,
    a1,
    a2,
    a3,
    b1,
    b2,
    b3,
    getA,
    getB,
    patchA,
    patchB,
  };
};

const RELATIONSHIPS: Relationship[] = ['manyMany', 'manyOne', 'oneMany', 'oneOne'];

describe('link fields: the symmetric field', () => {
  it.each(RELATIONSHIPS)(
    'a %s link creates its mirrored field in the foreign table',
    async (relationship) => {
      const t = await linkedTables(relationship);
      const foreignFields = await call('list-fields', { token: t.token, params: { tableId: t.betaId } });
      expect(foreignFields.status).toBe(200);
      expect(foreignFields.body.map((f: { name: string }) => f.name)).toEqual([
        'Name',
        'Count',
        'Status',
        'Alpha',
      ]);
      const symmetric = foreignFields.body[3];
      expect(t.link).toMatchObject({
        name: 'Beta',
        type: 'link',
        options: {
          relationship,
          foreignTableId: t.betaId,
          symmetricFieldId: symmetric.id,
          lookupFieldId: t.betaPrimaryId,
        },
      });
      expect(symmetric).toMatchObject({
        name: 'Alpha',
        type: 'link',
        options: {
          relationship: MIRROR[relationship],
          foreignTableId: t.tableId,
          symmetricFieldId: t.link.id,
          lookupFieldId: t.alphaPrimaryId,
        },
      });
      expect(symmetric.options.isOneWay).toBeUndefined();
      // The flag is present only when true, as on every field.
      expect(t.link.isMultipleCellValue).toBe(isMultiple(relationship) ? true : undefined);
      expect(symmetric.isMultipleCellValue).toBe(isMultiple(MIRROR[relationship]) ? true : undefined);
    },
  );

  it.each(RELATIONSHIPS)(
    'writing a %s link updates the other side in the same call',
    async (relationship) => {
      const t = await linkedTables(relationship);
      const written = await t.patchA(t.a1, {
        Beta: isMultiple(relationship) ? [{ id: t.b1 }] : { id: t.b1 },
      });
      expect(written.status).toBe(200);
      expect(written.body.fields.Beta).toEqual(cellOf(relationship, [{ id: t.b1, title: 'B1' }]));
      const other = await t.getB(t.b1);
      expect(other.body.fields.Alpha).toEqual(cellOf(MIRROR[relationship], [{ id: t.a1, title: 'A1' }]));
      expect((await t.getB(t.b2)).body.fields.Alpha).toBeUndefined();
    },
  );

  it.each(RELATIONSHIPS)('removing a %s link updates the other side', async (relationship) => {
    const t = await linkedTables(relationship);
    expect((await t.patchA(t.a1, { Beta: [{ id: t.b1 }] })).status).toBe(200);
    const cleared = await t.patchA(t.a1, { Beta: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.fields.Beta).toBeUndefined();
    expect((await t.getB(t.b1)).body.fields).toEqual({ Name: 'B1' });
  });

  it.each(RELATIONSHIPS)(
    'writing the %s link from the foreign side updates this side',
    async (relationship) => {
      const t = await linkedTables(relationship);
      const written = await t.patchB(t.b2, { Alpha: [{ id: t.a3 }] });
      expect(written.status).toBe(200);
      expect(written.body.fields.Alpha).toEqual(cellOf(MIRROR[relationship], [{ id: t.a3, title: 'A3' }]));
      expect((await t.getA(t.a3)).body.fields.Beta).toEqual(
        cellOf(relationship, [{ id: t.b2, title: 'B2' }]),
      );
    },
  );
});

describe('link fields: cardinality', () => {
  it.each(['manyOne', 'oneOne'] as const)('a %s link refuses two records (400)', async (relationship) => {
    const t = await linkedTables(relationship);
    const res = await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toContain('Beta');
    expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();
    expect((await t.getB(t.b1)).body.fields.Alpha).toBeUndefined();
  });

  it.each(['manyMany', 'oneMany'] as const)(
    'a %s cell refuses the same record twice (400), nothing written',
    async (relationship) => {
      const t = await linkedTables(relationship);
      const res = await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b1 }] });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`the same record twice: ${t.b1}`);
      expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();
      expect((await t.getB(t.b1)).body.fields.Alpha).toBeUndefined();
    },
  );

  it('the single side of a oneMany link (manyOne in the foreign table) refuses two records (400)', async () => {
    const t = await linkedTables('oneMany');
    const res = await t.patchB(t.b1, { Alpha: [{ id: t.a1 }, { id: t.a2 }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Alpha');
  });

  it('manyMany: linking a foreign record from a second record keeps both', async () => {
    const t = await linkedTables('manyMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }] });
    await t.patchA(t.a2, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    expect((await t.getA(t.a1)).body.fields.Beta).toEqual([{ id: t.b1, title: 'B1' }]);
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual([
      { id: t.a1, title: 'A1' },
      { id: t.a2, title: 'A2' },
    ]);
    expect((await t.getB(t.b2)).body.fields.Alpha).toEqual([{ id: t.a2, title: 'A2' }]);
  });

  const linkedElsewhere = (relationship: string, foreignId: string) => ({
    status: 400,
    body: {
      code: 'validation_error',
      message: expect.stringMatching(
        new RegExp(
          `record ${foreignId} is linked from another record already; a ${relationship} link links a record from one record only`,
        ),
      ),
    },
  });

  it('oneMany: linking a foreign record already linked from another record is a 400 (as Teable refuses it); nothing changes', async () => {
    const t = await linkedTables('oneMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    const taken = await t.patchA(t.a2, { Beta: [{ id: t.b1 }] });
    expect(taken).toMatchObject(linkedElsewhere('oneMany', t.b1));
    expect((await t.getA(t.a1)).body.fields.Beta).toEqual([
      { id: t.b1, title: 'B1' },
      { id: t.b2, title: 'B2' },
    ]);
    expect((await t.getA(t.a2)).body.fields.Beta).toBeUndefined();
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual({ id: t.a1, title: 'A1' });
  });

  it('oneMany: setting the single side from the foreign record moves it to the new record', async () => {
    const t = await linkedTables('oneMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    const moved = await t.patchB(t.b1, { Alpha: { id: t.a3 } });
    expect(moved.status).toBe(200);
    expect((await t.getA(t.a1)).body.fields.Beta).toEqual([{ id: t.b2, title: 'B2' }]);
    expect((await t.getA(t.a3)).body.fields.Beta).toEqual([{ id: t.b1, title: 'B1' }]);
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual({ id: t.a3, title: 'A3' });
  });

  it('oneMany: a new record linking a foreign record linked from another record is a 400 and is not created', async () => {
    const t = await linkedTables('oneMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'A4', Beta: [{ id: t.b2 }, { id: t.b3 }] } }] },
    });
    expect(created).toMatchObject(linkedElsewhere('oneMany', t.b2));
    const listed = await call('list-records', { token: t.token, params: { tableId: t.tableId } });
    expect(listed.body.records.map((r: { name: string }) => r.name)).toEqual(['A1', 'A2', 'A3']);
    expect((await t.getB(t.b3)).body.fields.Alpha).toBeUndefined();
  });

  it('oneMany: a record released and taken in one batch moves; two records of a batch taking one is a 400', async () => {
    const t = await linkedTables('oneMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }] });
    const batch = (records: { id: string; fields: Record<string, unknown> }[]) =>
      call('update-records', { token: t.token, params: { tableId: t.tableId }, body: { records } });

    const moved = await batch([
      { id: t.a2, fields: { Beta: [{ id: t.b1 }] } },
      { id: t.a1, fields: { Beta: null } },
    ]);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual({ id: t.a2, title: 'A2' });
    expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();

    const twice = await batch([
      { id: t.a1, fields: { Beta: [{ id: t.b2 }] } },
      { id: t.a3, fields: { Beta: [{ id: t.b2 }] } },
    ]);
    expect(twice).toMatchObject(linkedElsewhere('oneMany', t.b2));
    expect((await t.getB(t.b2)).body.fields.Alpha).toBeUndefined();
  });

  it('oneOne: linking a foreign record already linked from another record is a 400; from either side', async () => {
    const t = await linkedTables('oneOne');
    await t.patchA(t.a1, { Beta: { id: t.b1 } });
    await t.patchA(t.a2, { Beta: { id: t.b2 } });

    expect(await t.patchA(t.a2, { Beta: { id: t.b1 } })).toMatchObject(linkedElsewhere('oneOne', t.b1));
    expect(await t.patchB(t.b3, { Alpha: { id: t.a1 } })).toMatchObject(linkedElsewhere('oneOne', t.a1));

    expect((await t.getA(t.a1)).body.fields.Beta).toEqual({ id: t.b1, title: 'B1' });
    expect((await t.getA(t.a2)).body.fields.Beta).toEqual({ id: t.b2, title: 'B2' });
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual({ id: t.a1, title: 'A1' });
    expect((await t.getB(t.b3)).body.fields.Alpha).toBeUndefined();
    // the record's own link, written again, is no conflict
    expect((await t.patchA(t.a1, { Beta: { id: t.b1 } })).status).toBe(200);
  });

  it('oneOne: two records of one batch linking the same foreign record is a 400; nothing is written', async () => {
    const t = await linkedTables('oneOne');
    const res = await call('update-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: t.a1, fields: { Beta: { id: t.b1 } } },
          { id: t.a2, fields: { Beta: { id: t.b1 } } },
        ],
      },
    });
    expect(res).toMatchObject(linkedElsewhere('oneOne', t.b1));
    expect((await t.getB(t.b1)).body.fields.Alpha).toBeUndefined();
    expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();
  });

  it.each(['oneOne', 'oneMany'] as const)(
    'a one-way %s link keeps the rule too (read from the table), and lets a record be moved in one batch',
    async (relationship) => {
      const t = await linkedTables(relationship, { isOneWay: true });
      const one = (id: string) => (relationship === 'oneOne' ? { id } : [{ id }]);
      expect((await t.patchA(t.a1, { Beta: one(t.b1) })).status).toBe(200);

      expect(await t.patchA(t.a2, { Beta: one(t.b1) })).toMatchObject(linkedElsewhere(relationship, t.b1));
      const twice = await call('update-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: {
          records: [
            { id: t.a2, fields: { Beta: one(t.b2) } },
            { id: t.a3, fields: { Beta: one(t.b2) } },
          ],
        },
      });
      expect(twice).toMatchObject(linkedElsewhere(relationship, t.b2));
      const moved = await call('update-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: {
          records: [
            { id: t.a1, fields: { Beta: null } },
            { id: t.a2, fields: { Beta: one(t.b1) } },
          ],
        },
      });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect((await t.getA(t.a2)).body.fields.Beta).toEqual(
        relationship === 'oneOne' ? { id: t.b1, title: 'B1' } : [{ id: t.b1, title: 'B1' }],
      );
      expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();
    },
  );
});

describe('link fields: titles, typecast and validation', () => {
  it('titles follow the foreign primary field', async () => {
    const t = await linkedTables('manyMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    expect((await t.patchB(t.b1, { Name: 'B1 renamed' })).status).toBe(200);
    const a1 = await t.getA(t.a1);
    expect(a1.body.fields.Beta).toEqual([
      { id: t.b1, title: 'B1 renamed' },
      { id: t.b2, title: 'B2' },
    ]);
    const asText = await call('get-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.a1 },
      query: 'cellFormat=text',
    });
    expect(asText.body.fields.Beta).toBe('B1 renamed, B2');
    // The other side's titles follow this side's primary field.
    await t.patchA(t.a1, { Name: 'A1 renamed' });
    expect((await t.getB(t.b2)).body.fields.Alpha).toEqual([{ id: t.a1, title: 'A1 renamed' }]);
  });

  it('titles are the foreign primary field as it formats itself (a number with precision 1 shows 1.0)', async () => {
    const t = await linkedTables('manyMany');
    const converted = await call('convert-field', {
      token: t.token,
      params: { tableId: t.betaId, fieldId: t.betaPrimaryId },
      body: { type: 'number', options: { formatting: { type: 'decimal', precision: 1 } } },
    });
    expect(converted.status, JSON.stringify(converted.body)).toBe(200);
    await t.patchB(t.b1, { Name: 1 });
    await t.patchB(t.b2, { Name: 2.25 });

    const linked = await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });

    expect(linked.body.fields.Beta).toEqual([
      { id: t.b1, title: '1.0' },
      { id: t.b2, title: '2.3' },
    ]);
    expect((await t.getA(t.a1)).body.fields.Beta).toEqual(linked.body.fields.Beta);
  });

  it('typecast resolves titles in comma-separated text to ids, on both sides', async () => {
    const t = await linkedTables('manyMany');
    const res = await t.patchA(t.a1, { Beta: 'B1, B2' }, true);
    expect(res.status).toBe(200);
    expect(res.body.fields.Beta).toEqual([
      { id: t.b1, title: 'B1' },
      { id: t.b2, title: 'B2' },
    ]);
    expect((await t.getB(t.b2)).body.fields.Alpha).toEqual([{ id: t.a1, title: 'A1' }]);
  });

  it('typecast of a list of titles drops unknown titles and never creates foreign records', async () => {
    const t = await linkedTables('manyMany');
    const res = await t.patchA(t.a1, { Beta: ['B1', 'No such record'] }, true);
    expect(res.status).toBe(200);
    expect(res.body.fields.Beta).toEqual([{ id: t.b1, title: 'B1' }]);
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'A4', Beta: 'Nobody, Nothing' } }], typecast: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.records[0].fields).toEqual({ Name: 'A4' });
    expect(await viewOrderIds(t.betaId, t.betaViewId)).toEqual([t.b1, t.b2, t.b3]);
  });

  it('typecast on a single-valued link takes the first title', async () => {
    const t = await linkedTables('manyOne');
    const res = await t.patchA(t.a1, { Beta: 'B3' }, true);
    expect(res.status).toBe(200);
    expect(res.body.fields.Beta).toEqual({ id: t.b3, title: 'B3' });
    expect((await t.getB(t.b3)).body.fields.Alpha).toEqual([{ id: t.a1, title: 'A1' }]);
  });

  it.each([
    ['a record of this table', 'own'],
    ['an id of no record', 'none'],
  ])('a link to %s is a 400 naming the field, nothing written', async (_, which) => {
    const t = await linkedTables('manyMany');
    const stranger = which === 'own' ? t.a2 : newId('record');
    const res = await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: stranger }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.message).toContain(`Field "Beta" (${t.link.id})`);
    expect(res.body.message).toContain(stranger);
    expect((await t.getA(t.a1)).body.fields.Beta).toBeUndefined();
    expect((await t.getB(t.b1)).body.fields.Alpha).toBeUndefined();
  });
});

describe('link fields: deletes', () => {
  it('deleting a record removes it from the other side', async () => {
    const t = await linkedTables('manyMany');
    await t.patchA(t.a1, { Beta: [{ id: t.b1 }, { id: t.b2 }] });
    await t.patchA(t.a2, { Beta: [{ id: t.b1 }] });
    const removed = await call('delete-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.a1 },
    });
    expect(removed.status).toBe(200);
    expect((await t.getB(t.b1)).body.fields.Alpha).toEqual([{ id: t.a2, title: 'A2' }]);
    expect((await t.getB(t.b2)).body.fields.Alpha).toBeUndefined();
    // And from the foreign side: deleting B1 empties A2's link.
    const gone = await call('delete-records', {
      token: t.token,
      params: { tableId: t.betaId },
      query: `recordIds[]=${t.b1}`,
    });
    expect(gone.status).toBe(200);
    expect((await t.getA(t.a2)).body.fields).toEqual({ Name: 'A2' });
  });

  it('deleting the link field deletes its symmetric field', async () => {
    const t = await linkedTables('manyOne');
    const symmetricId = t.link.options.symmetricFieldId as string;
    const res = await call('delete-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: t.link.id },
    });
    expect(res.status).toBe(200);
    const foreignFields = await call('list-fields', { token: t.token, params: { tableId: t.betaId } });
    expect(foreignFields.body.map((f: { name: string }) => f.name)).toEqual(['Name', 'Count', 'Status']);
    const symmetric = await call('get-field', {
      token: t.token,
      params: { tableId: t.betaId, fieldId: symmetricId },
    });
    expect(symmetric.status).toBe(404);
  });
});

describe('link fields: variants', () => {
  it('a one-way link creates no symmetric field and leaves the foreign records alone', async () => {
    const t = await linkedTables('manyMany', { isOneWay: true });
    expect(t.link.options).toEqual({
      relationship: 'manyMany',
      foreignTableId: t.betaId,
      isOneWay: true,
      lookupFieldId: t.betaPrimaryId,
      // Teable's storage names: a junction of its own, a self key no other field names
      fkHostTableName: `${t.baseId}.junction_${t.link.id}`,
      selfKeyName: expect.stringMatching(/^__fk_rad[0-9A-Za-z]{16}$/),
      foreignKeyName: `__fk_${t.link.id}`,
    });
    const foreignFields = await call('list-fields', { token: t.token, params: { tableId: t.betaId } });
    expect(foreignFields.body.map((f: { name: string }) => f.name)).toEqual(['Name', 'Count', 'Status']);
    const res = await t.patchA(t.a1, { Beta: [{ id: t.b1 }] });
    expect(res.body.fields.Beta).toEqual([{ id: t.b1, title: 'B1' }]);
    expect((await t.getB(t.b1)).body.fields).toEqual({ Name: 'B1' });
  });

  it('a self-link puts its symmetric field in the same table and keeps both sides', async () => {
    const t = await newTable({
      name: 'People',
      records: [{ fields: { Name: 'P1' } }, { fields: { Name: 'P2' } }, { fields: { Name: 'P3' } }],
    });
    const token = t.owner.auth;
    const link = await call('create-field', {
      token,
      params: { tableId: t.tableId },
      body: { type: 'link', options: { relationship: 'oneMany', foreignTableId: t.tableId } },
    });
    expect(link.status).toBe(201);
    const fields = await call('list-fields', { token, params: { tableId: t.tableId } });
    expect(fields.body.map((f: { name: string }) => f.name)).toEqual([
      'Name',
      'Count',
      'Status',
      'People',
      'People 2',
    ]);
    const symmetric = fields.body[4];
    expect(link.body.options).toEqual({
      relationship: 'oneMany',
      foreignTableId: t.tableId,
      symmetricFieldId: symmetric.id,
      lookupFieldId: t.table.fields[0].id,
      // Teable's names: a one-many link is kept in its many-one side's table, keyed by that side
      fkHostTableName: 'People',
      selfKeyName: `__fk_${symmetric.id}`,
      foreignKeyName: '__id',
    });
    expect(symmetric.options).toEqual({
      relationship: 'manyOne',
      foreignTableId: t.tableId,
      symmetricFieldId: link.body.id,
      lookupFieldId: t.table.fields[0].id,
      fkHostTableName: 'People',
      selfKeyName: '__id',
      foreignKeyName: `__fk_${symmetric.id}`,
    });
    const [p1, p2, p3] = t.table.records.map((r: Ref) => r.id) as [string, string, string];
    const get = (recordId: string) => call('get-record', { token, params: { tableId: t.tableId, recordId } });
    const res = await call('update-record', {
      token,
      params: { tableId: t.tableId, recordId: p1 },
      body: { record: { fields: { People: [{ id: p2 }, { id: p3 }] } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual({
      Name: 'P1',
      People: [
        { id: p2, title: 'P2' },
        { id: p3, title: 'P3' },
      ],
    });
    expect((await get(p2)).body.fields).toEqual({ Name: 'P2', 'People 2': { id: p1, title: 'P1' } });
    expect((await get(p3)).body.fields).toEqual({ Name: 'P3', 'People 2': { id: p1, title: 'P1' } });
  });

  it('a self-link to the record itself, and between records of one batch, keeps both sides', async () => {
    const t = await newTable({
      name: 'Nodes',
      records: [{ fields: { Name: 'N1' } }, { fields: { Name: 'N2' } }],
    });
    const token = t.owner.auth;
    const link = await call('create-field', {
      token,
      params: { tableId: t.tableId },
      body: { type: 'link', name: 'Next', options: { relationship: 'manyMany', foreignTableId: t.tableId } },
    });
    expect(link.status).toBe(201);
    const [n1, n2] = t.table.records.map((r: Ref) => r.id) as [string, string];
    const get = (recordId: string) => call('get-record', { token, params: { tableId: t.tableId, recordId } });
    const own = await call('update-record', {
      token,
      params: { tableId: t.tableId, recordId: n1 },
      body: { record: { fields: { Next: [{ id: n1 }] } } },
    });
    expect(own.status).toBe(200);
    expect(own.body.fields).toEqual({
      Name: 'N1',
      Next: [{ id: n1, title: 'N1' }],
      Nodes: [{ id: n1, title: 'N1' }],
    });
    const batch = await call('update-records', {
      token,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: n1, fields: { Next: [{ id: n2 }] } },
          { id: n2, fields: { Name: 'N2 renamed' } },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect((await get(n1)).body.fields).toEqual({ Name: 'N1', Next: [{ id: n2, title: 'N2 renamed' }] });
    expect((await get(n2)).body.fields).toEqual({
      Name: 'N2 renamed',
      Nodes: [{ id: n1, title: 'N1' }],
    });
  });

  it('a foreign table in another base is a 400 and creates nothing', async () => {
    const t = await newTable({ name: 'Here' });
    const otherBase = await call('create-base', { token: t.owner.auth, body: { spaceId: t.spaceId } });
    const there = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: otherBase.body.id },
      body: { name: 'There' },
    });
    expect(there.status).toBe(201);
    const res = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'link', options: { relationship: 'manyMany', foreignTableId: there.body.id } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    // the same answer as for a table that does not exist: nothing tells another base's ids apart
    const missingId = `tbl${'0'.repeat(16)}`;
    const missing = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'link', options: { relationship: 'manyMany', foreignTableId: missingId } },
    });
    expect(res.body.message).toBe(`Field "Link": foreign table ${there.body.id} not found in this base`);
    expect(missing.body).toEqual({
      ...res.body,
      message: res.body.message.replace(there.body.id, missingId),
    });
    const hereFields = await call('list-fields', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(hereFields.body).toHaveLength(3);
    const thereFields = await call('list-fields', {
      token: t.owner.auth,
      params: { tableId: there.body.id },
    });
    expect(thereFields.body).toHaveLength(3);
  });
});

describe('link fields: large batches', () => {
  it('100 new records each linking 2 foreign records (a chunked commit) keep both sides exact', async () => {
    const t = await linkedTables('manyMany');
    const foreign = await call('create-records', {
      token: t.token,
      params: { tableId: t.betaId },
      body: { records: Array.from({ length: 100 }, (_, i) => ({ fields: { Name: `F${i}` } })) },
    });
    expect(foreign.status).toBe(201);
    const f = foreign.body.records.map((r: Ref) => r.id) as string[];
    // Record i links F[i] and F[i+1]: every foreign record is linked from two new records (F0: one).
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: Array.from({ length: 100 }, (_, i) => ({
          fields: { Name: `N${i}`, Beta: [{ id: f[i] }, { id: f[(i + 1) % 100] }] },
        })),
      },
    });
    expect(created.status).toBe(201);
    const n = created.body.records.map((r: Ref) => r.id) as string[];
    created.body.records.forEach((r: { fields: Record<string, unknown> }, i: number) => {
      expect(r.fields.Beta).toEqual([
        { id: f[i], title: `F${i}` },
        { id: f[(i + 1) % 100], title: `F${(i + 1) % 100}` },
      ]);
    });
    // The journal of the chunked commit is gone once it applied.
    expect(await queryAll(keys.journalsOf(t.tableId))).toEqual([]);
    for (let j = 0; j < 100; j++) {
      const back = await t.getB(f[j] as string);
      // In write order: N[j-1] then N[j]; F0 is linked by N0 first, by N99 last.
      const from = j === 0 ? [0, 99] : [j - 1, j];
      expect(back.body.fields.Alpha).toEqual(from.map((i) => ({ id: n[i], title: `N${i}` })));
    }
    // Deleting all 100 in one call takes them out of every foreign record.
    const removed = await call('delete-records', {
      token: t.token,
      params: { tableId: t.tableId },
      query: n.map((id) => `recordIds[]=${id}`).join('&'),
    });
    expect(removed.status).toBe(200);
    for (const id of f) expect((await t.getB(id)).body.fields.Alpha).toBeUndefined();
  });
});
