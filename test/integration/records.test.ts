import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { call } from '#test/support/invoke.ts';
import {
  createRecords,
  deleteRecords,
  duplicateRecord,
  getRecord,
  updateRecord,
  updateRecords,
} from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

// A table whose keys differ per fieldKeyType: name `Full Name` is dbFieldName `Full_Name`,
// `Score` has the dbFieldName `score_db`, `Seq` is computed (autoNumber).
const FIELDS = [
  { name: 'Full Name', type: 'singleLineText' },
  { name: 'Score', type: 'number', dbFieldName: 'score_db' },
  { name: 'Tags', type: 'multipleSelect', options: { choices: [{ name: 'x' }, { name: 'y' }] } },
  { name: 'Seq', type: 'autoNumber' },
];

type Table = Awaited<ReturnType<typeof newTable>>;
interface Rec {
  id: string;
  name: string;
  autoNumber: number;
  fields: Record<string, unknown>;
}

/** A fresh table with FIELDS and the given records (none by default). */
const table = (records: { fields: Record<string, unknown> }[] = []) => newTable({ fields: FIELDS, records });

/** Field ids of a table by field name. */
const idsOf = (t: Table): Record<string, string> =>
  Object.fromEntries(t.table.fields.map((f: { id: string; name: string }) => [f.name, f.id]));

const idsQuery = (ids: readonly string[]) => ids.map((id) => `recordIds[]=${id}`).join('&');

const notFound = (message: string) => ({ message, status: 404, code: 'not_found' });

const ALL_RIGHTS = { read: true, update: true };
const READ_ONLY = { read: true, update: false };

describe('get one record: GET /table/{tableId}/record/{recordId}', () => {
  it('answers the record keyed by name with an ETag of its version', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 12.5, Tags: ['x', 'y'] } }]);
    const created = t.table.records[0];

    const got = await getRecord(t, created.id);

    expect(got.status).toBe(200);
    expect(got.headers.etag).toBe('"1"');
    expect(got.body).toEqual({
      id: created.id,
      name: 'Ann',
      fields: { 'Full Name': 'Ann', Score: 12.5, Tags: ['x', 'y'], Seq: 1 },
      autoNumber: 1,
      createdTime: created.createdTime,
      lastModifiedTime: created.createdTime,
      createdBy: t.owner.name,
      lastModifiedBy: t.owner.name,
      permissions: { 'Full Name': ALL_RIGHTS, Score: ALL_RIGHTS, Tags: ALL_RIGHTS, Seq: READ_ONLY },
      undeletable: false,
    });
  });

  it.each([
    ['name', ['Full Name', 'Score', 'Tags', 'Seq']],
    ['id', ['Full Name', 'Score', 'Tags', 'Seq']],
    ['dbFieldName', ['Full_Name', 'score_db', 'Tags', 'Seq']],
  ] as const)('keys fields and permissions per fieldKeyType=%s', async (keyType, expected) => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 12.5, Tags: ['x'] } }]);
    const f = idsOf(t);
    const keys = keyType === 'id' ? expected.map((name) => f[name] as string) : expected;

    const got = await getRecord(t, t.table.records[0].id, `fieldKeyType=${keyType}`);

    expect(got.status).toBe(200);
    expect(got.body.fields).toEqual({
      [keys[0] as string]: 'Ann',
      [keys[1] as string]: 12.5,
      [keys[2] as string]: ['x'],
      [keys[3] as string]: 1,
    });
    expect(Object.keys(got.body.permissions)).toEqual(keys);
  });

  it('projects the fields named per fieldKeyType, permissions too', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 3, Tags: ['y'] } }]);
    const f = idsOf(t);
    const recordId = t.table.records[0].id;

    const byName = await getRecord(t, recordId, 'projection[]=Score&projection[]=Tags');
    const byId = await getRecord(t, recordId, `fieldKeyType=id&projection[]=${f.Score}`);
    const byDbName = await getRecord(t, recordId, 'fieldKeyType=dbFieldName&projection=score_db');

    expect(byName.status).toBe(200);
    expect(byName.body.fields).toEqual({ Score: 3, Tags: ['y'] });
    expect(byName.body.permissions).toEqual({ Score: ALL_RIGHTS, Tags: ALL_RIGHTS });
    expect(byName.body.name).toBe('Ann');
    expect(byId.body.fields).toEqual({ [f.Score as string]: 3 });
    expect(byDbName.body.fields).toEqual({ score_db: 3 });
  });

  it('refuses a projection key that is no field of the table (400)', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);

    const got = await getRecord(t, t.table.records[0].id, 'projection[]=Nope');

    expect(got.status).toBe(400);
    expect(got.body).toEqual({
      message: 'projection: field name "Nope" not found',
      status: 400,
      code: 'validation_error',
    });
  });

  it('renders every cell as text with cellFormat=text', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 1234.5, Tags: ['x', 'y'] } }]);

    const got = await getRecord(t, t.table.records[0].id, 'cellFormat=text');

    expect(got.status).toBe(200);
    expect(got.body.fields).toEqual({ 'Full Name': 'Ann', Score: '1234.50', Tags: 'x, y', Seq: '1' });
  });

  it.each([
    ['cellFormat=csv', 'query.cellFormat'],
    ['fieldKeyType=label', 'query.fieldKeyType'],
  ])('refuses the query %s (400)', async (query, path) => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);

    const got = await getRecord(t, t.table.records[0].id, query);

    expect(got.status).toBe(400);
    expect(got.body.code).toBe('validation_error');
    expect(got.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
  });

  it('answers 404 for a record id that does not exist', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);
    const missing = newId('record');

    const got = await getRecord(t, missing);

    expect(got.status).toBe(404);
    expect(got.body).toEqual(notFound(`Record ${missing} not found`));
    expect(got.headers.etag).toBeUndefined();
  });

  it.each(['recShort', 'tbl0123456789abcdef', 'rec0123456789abcdef!'])(
    'answers 400 for the malformed record id %s',
    async (recordId) => {
      const t = await table([{ fields: { 'Full Name': 'Ann' } }]);

      const got = await getRecord(t, recordId);

      expect(got.status).toBe(400);
      expect(got.body.code).toBe('validation_error');
      expect(got.body.details.map((d: { path: string }) => d.path)).toEqual(['path.recordId']);
    },
  );

  it('answers 404 for a record of another table', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'B' } }] },
    });
    const foreign = other.body.records[0].id;

    const got = await getRecord(t, foreign);

    expect(got.status).toBe(404);
    expect(got.body).toEqual(notFound(`Record ${foreign} not found`));
  });
});

describe('update one record: PATCH /table/{tableId}/record/{recordId}', () => {
  it.each([
    ['name', 'Score', 'Full Name'],
    ['id', 'Score', 'Full Name'],
    ['dbFieldName', 'score_db', 'Full_Name'],
  ] as const)('reads and answers keys per fieldKeyType=%s', async (keyType, scoreKey, nameKey) => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 1 } }]);
    const f = idsOf(t);
    const key = (k: string, name: string) => (keyType === 'id' ? (f[name] as string) : k);
    const recordId = t.table.records[0].id;

    const res = await updateRecord(t, recordId, {
      record: { fields: { [key(scoreKey, 'Score')]: 7 } },
      fieldKeyType: keyType,
    });

    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.body.fields).toEqual({
      [key(nameKey, 'Full Name')]: 'Ann',
      [key(scoreKey, 'Score')]: 7,
      [key('Seq', 'Seq')]: 1,
    });
    expect(res.body.id).toBe(recordId);
    expect(res.body.autoNumber).toBe(1);
    expect(res.body.lastModifiedBy).toBe(t.owner.name);
  });

  it('ignores keys of computed fields without error', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);
    const recordId = t.table.records[0].id;

    const res = await updateRecord(t, recordId, { record: { fields: { Seq: 99, 'Full Name': 'Bob' } } });

    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual({ 'Full Name': 'Bob', Seq: 1 });
    expect(res.body.name).toBe('Bob');
    expect(res.body.autoNumber).toBe(1);
  });

  it.each([
    ['name', 'Nope', 'Field name: Nope not found'],
    ['id', 'fld0123456789abcdef', 'Field id: fld0123456789abcdef not found'],
    ['dbFieldName', 'Score', 'Field dbFieldName: Score not found'],
  ] as const)(
    'answers 404 for an unknown key (fieldKeyType=%s) and writes nothing',
    async (keyType, unknown, message) => {
      const t = await table([{ fields: { 'Full Name': 'Ann', Score: 1 } }]);
      const f = idsOf(t);
      const known =
        keyType === 'id' ? (f['Full Name'] as string) : keyType === 'name' ? 'Full Name' : 'Full_Name';
      const recordId = t.table.records[0].id;

      const res = await updateRecord(t, recordId, {
        record: { fields: { [known]: 'Changed', [unknown]: 5 } },
        fieldKeyType: keyType,
      });

      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound(message));
      const after = await getRecord(t, recordId);
      expect(after.headers.etag).toBe('"1"');
      expect(after.body.fields).toEqual({ 'Full Name': 'Ann', Score: 1, Seq: 1 });
    },
  );

  it('clears a cell written as null; the key leaves record.fields', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 4, Tags: ['x'] } }]);
    const recordId = t.table.records[0].id;

    const res = await updateRecord(t, recordId, { record: { fields: { Score: null, Tags: null } } });

    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual({ 'Full Name': 'Ann', Seq: 1 });
    expect((await getRecord(t, recordId)).body.fields).toEqual({ 'Full Name': 'Ann', Seq: 1 });
  });

  it('changes the ETag with every write, also for an empty fields object', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);
    const recordId = t.table.records[0].id;

    const first = await updateRecord(t, recordId, { record: { fields: { Score: 1 } } });
    const second = await updateRecord(t, recordId, { record: { fields: { Score: 2 } } });
    const read = await getRecord(t, recordId);

    expect([first.headers.etag, second.headers.etag, read.headers.etag]).toEqual(['"2"', '"3"', '"3"']);
    expect(read.body.fields.Score).toBe(2);
  });

  it('answers 400 naming the field for a value of the wrong type, and writes nothing', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 1 } }]);
    const recordId = t.table.records[0].id;

    const res = await updateRecord(t, recordId, { record: { fields: { Score: 'many' } } });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toContain('Score');
    expect((await getRecord(t, recordId)).headers.etag).toBe('"1"');
  });

  it.each([
    ['no record', {}],
    ['record without fields', { record: {} }],
    ['fields not an object', { record: { fields: [1] } }],
    ['an unknown fieldKeyType', { record: { fields: {} }, fieldKeyType: 'label' }],
    ['typecast not a boolean', { record: { fields: {} }, typecast: 'yes' }],
  ])('answers 400 for a body with %s', async (_, body) => {
    const t = await table([{ fields: { 'Full Name': 'Ann' } }]);

    const res = await updateRecord(t, t.table.records[0].id, body);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('answers 404 for a record that does not exist', async () => {
    const t = await table();
    const missing = newId('record');

    const res = await updateRecord(t, missing, { record: { fields: { Score: 1 } } });

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Record ${missing} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });
});

describe('delete one record: DELETE /table/{tableId}/record/{recordId}', () => {
  it('answers the deleted record keyed by id; afterwards it is a 404, and so is a second delete', async () => {
    const t = await table([{ fields: { 'Full Name': 'Ann', Score: 2 } }, { fields: { 'Full Name': 'Bo' } }]);
    const f = idsOf(t);
    const [ann, bo] = t.table.records as Rec[];

    const res = await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ann?.id as string },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ann?.id, name: 'Ann', autoNumber: 1, undeletable: false });
    expect(res.body.fields).toEqual({
      [f['Full Name'] as string]: 'Ann',
      [f.Score as string]: 2,
      [f.Seq as string]: 1,
    });
    expect(Object.keys(res.body.permissions)).toEqual(Object.values(f));
    const read = await getRecord(t, ann?.id as string);
    expect(read.status).toBe(404);
    expect(read.body).toEqual(notFound(`Record ${ann?.id} not found`));
    const again = await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: ann?.id as string },
    });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(notFound(`Record ${ann?.id} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([bo?.id]);
  });
});

describe('create records: POST /table/{tableId}/record', () => {
  it('answers 201 with the records in request order, autoNumbers following it', async () => {
    const t = await table();

    const res = await createRecords(t, {
      records: [
        { fields: { 'Full Name': 'c', Score: 3 } },
        { fields: { 'Full Name': 'a', Tags: ['y', 'x'] } },
        { fields: {} },
      ],
    });

    expect(res.status).toBe(201);
    const records = res.body.records as Rec[];
    expect(records.map((r) => [r.name, r.autoNumber, r.fields])).toEqual([
      ['c', 1, { 'Full Name': 'c', Score: 3, Seq: 1 }],
      ['a', 2, { 'Full Name': 'a', Tags: ['y', 'x'], Seq: 2 }],
      ['', 3, { Seq: 3 }],
    ]);
    expect(new Set(records.map((r) => r.id)).size).toBe(3);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(records.map((r) => r.id));
  });

  it('answers keys per fieldKeyType=dbFieldName and reads them so', async () => {
    const t = await table();

    const res = await createRecords(t, {
      records: [{ fields: { Full_Name: 'Ann', score_db: 5 } }],
      fieldKeyType: 'dbFieldName',
    });

    expect(res.status).toBe(201);
    expect(res.body.records[0].fields).toEqual({ Full_Name: 'Ann', score_db: 5, Seq: 1 });
  });

  it('answers 201 {records: []} for no records and creates nothing', async () => {
    const t = await table();

    const res = await createRecords(t, { records: [] });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ records: [] });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it('creates 1000 records in one call', async () => {
    const t = await table();
    const records = Array.from({ length: 1000 }, (_, i) => ({ fields: { 'Full Name': `r${i}`, Score: i } }));

    const res = await createRecords(t, { records });

    expect(res.status).toBe(201);
    const out = res.body.records as Rec[];
    expect(out.map((r) => r.name)).toEqual(records.map((r) => r.fields['Full Name']));
    expect(out.map((r) => r.autoNumber)).toEqual(records.map((_, i) => i + 1));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(out.map((r) => r.id));
  });

  it('answers 413 payload_too_large for 1001 records and creates nothing', async () => {
    const t = await table();
    const records = Array.from({ length: 1001 }, (_, i) => ({ fields: { 'Full Name': `r${i}` } }));

    const res = await createRecords(t, { records });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      message: 'At most 1000 records per call',
      status: 413,
      code: 'payload_too_large',
    });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it.each([
    ['no records', {}],
    ['records not a list', { records: { fields: {} } }],
    ['a record without fields', { records: [{}] }],
    ['fields not an object', { records: [{ fields: 'Ann' }] }],
    ['a null record', { records: [null] }],
    ['an unknown fieldKeyType', { records: [{ fields: {} }], fieldKeyType: 'label' }],
    ['typecast not a boolean', { records: [{ fields: {} }], typecast: 1 }],
    ['an order without position', { records: [{ fields: {} }], order: { viewId: 'x', anchorId: 'y' } }],
  ])('answers 400 for a body with %s and creates nothing', async (_, body) => {
    const t = await table();

    const res = await createRecords(t, body);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it('answers 400 for a body that is not valid JSON', async () => {
    const t = await table();

    const res = await call('create-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      rawBody: '{"records": [',
    });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'The body is not valid JSON',
      status: 400,
      code: 'validation_error',
    });
  });

  it('answers 400 naming the field for a bad value in one record, and creates none of the batch', async () => {
    const t = await table();

    const res = await createRecords(t, {
      records: [{ fields: { 'Full Name': 'ok' } }, { fields: { Tags: ['nope'] } }],
    });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toContain('Tags');
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it('answers 404 for an unknown field key in any record, and creates none of the batch', async () => {
    const t = await table();

    const res = await createRecords(t, {
      records: [{ fields: { 'Full Name': 'ok' } }, { fields: { Nope: 1 } }],
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound('Field name: Nope not found'));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });
});

describe('update records in a batch: PATCH /table/{tableId}/record', () => {
  it('answers a bare array of the records after the update, in request order', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }, { fields: { 'Full Name': 'b' } }]);
    const [a, b] = t.table.records as Rec[];
    const f = idsOf(t);

    const res = await updateRecords(t, {
      records: [
        { id: b?.id, fields: { [f.Score as string]: 2 } },
        { id: a?.id, fields: { [f.Score as string]: 1, [f.Tags as string]: ['x'] } },
      ],
      fieldKeyType: 'id',
    });

    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect((res.body as Rec[]).map((r) => [r.id, r.fields])).toEqual([
      [b?.id, { [f['Full Name'] as string]: 'b', [f.Score as string]: 2, [f.Seq as string]: 2 }],
      [
        a?.id,
        {
          [f['Full Name'] as string]: 'a',
          [f.Score as string]: 1,
          [f.Tags as string]: ['x'],
          [f.Seq as string]: 1,
        },
      ],
    ]);
    expect((await getRecord(t, a?.id as string)).headers.etag).toBe('"2"');
  });

  it('answers 404 for a missing id and leaves the other records of the batch unchanged', async () => {
    const t = await table([
      { fields: { 'Full Name': 'a', Score: 1 } },
      { fields: { 'Full Name': 'b', Score: 2 } },
    ]);
    const [a, b] = t.table.records as Rec[];
    const missing = newId('record');

    const res = await updateRecords(t, {
      records: [
        { id: a?.id, fields: { Score: 10 } },
        { id: missing, fields: { Score: 20 } },
        { id: b?.id, fields: { Score: 30 } },
      ],
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Record ${missing} not found`));
    for (const [rec, score] of [
      [a, 1],
      [b, 2],
    ] as const) {
      const read = await getRecord(t, rec?.id as string);
      expect(read.headers.etag).toBe('"1"');
      expect(read.body.fields.Score).toBe(score);
    }
  });

  it('answers 400 for an id that appears twice and writes nothing', async () => {
    const t = await table([{ fields: { 'Full Name': 'a', Score: 1 } }]);
    const a = t.table.records[0].id;

    const res = await updateRecords(t, {
      records: [
        { id: a, fields: { Score: 2 } },
        { id: a, fields: { Score: 3 } },
      ],
    });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'A record id appears twice in records',
      status: 400,
      code: 'validation_error',
    });
    expect((await getRecord(t, a)).body.fields.Score).toBe(1);
  });

  it('answers 413 for 1001 records', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const records = Array.from({ length: 1001 }, () => ({ id: newId('record'), fields: { Score: 1 } }));

    const res = await updateRecords(t, { records });

    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it.each([
    ['no records', { records: [] }],
    ['a record without id', { records: [{ fields: {} }] }],
    ['a malformed id', { records: [{ id: 'rec1', fields: {} }] }],
    ['a bare array body', [{ id: 'rec0123456789abcdef', fields: {} }]],
  ])('answers 400 for %s', async (_, body) => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);

    const res = await updateRecords(t, body);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });
});

describe('delete records in a batch: DELETE /table/{tableId}/record?recordIds[]=', () => {
  it('answers the deleted records keyed by id, in request order; the others stay', async () => {
    const t = await table([
      { fields: { 'Full Name': 'a' } },
      { fields: { 'Full Name': 'b' } },
      { fields: { 'Full Name': 'c' } },
    ]);
    const [a, b, c] = (t.table.records as Rec[]).map((r) => r.id);
    const f = idsOf(t);

    const res = await deleteRecords(t, idsQuery([c as string, a as string]));

    expect(res.status).toBe(200);
    expect((res.body.records as Rec[]).map((r) => [r.id, r.fields])).toEqual([
      [c, { [f['Full Name'] as string]: 'c', [f.Seq as string]: 3 }],
      [a, { [f['Full Name'] as string]: 'a', [f.Seq as string]: 1 }],
    ]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([b]);
    expect((await getRecord(t, c as string)).status).toBe(404);
  });

  it('answers 404 when any id is missing and deletes nothing', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }, { fields: { 'Full Name': 'b' } }]);
    const ids = (t.table.records as Rec[]).map((r) => r.id);
    const missing = newId('record');

    const res = await deleteRecords(t, idsQuery([ids[0] as string, missing, ids[1] as string]));

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Record ${missing} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(ids);
  });

  it('answers 404 for a record of another table and deletes nothing in either table', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'B' } }] },
    });
    const a = t.table.records[0].id;
    const foreign = other.body.records[0].id;

    const res = await deleteRecords(t, idsQuery([a, foreign]));

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Record ${foreign} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([a]);
    expect(await viewOrderIds(other.body.id, other.body.views[0].id)).toEqual([foreign]);
  });

  // Decision: deleting is a set operation, so an id named twice is deleted and answered once
  // (a batch PATCH naming an id twice is a 400: its two writes would contradict each other).
  it('deletes and answers an id named twice once', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }, { fields: { 'Full Name': 'b' } }]);
    const [a, b] = (t.table.records as Rec[]).map((r) => r.id);

    const res = await deleteRecords(t, idsQuery([a as string, a as string]));

    expect(res.status).toBe(200);
    expect(res.body.records.map((r: Rec) => r.id)).toEqual([a]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([b]);
  });

  it('accepts a single bare recordIds=rec…', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }, { fields: { 'Full Name': 'b' } }]);
    const [a, b] = (t.table.records as Rec[]).map((r) => r.id);

    const res = await deleteRecords(t, `recordIds=${a}`);

    expect(res.status).toBe(200);
    expect(res.body.records.map((r: Rec) => r.id)).toEqual([a]);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([b]);
  });

  it('answers 413 for 1001 ids and deletes nothing', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const a = t.table.records[0].id;
    const ids = [a, ...Array.from({ length: 1000 }, () => newId('record'))];

    const res = await deleteRecords(t, idsQuery(ids));

    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([a]);
  });

  it.each([
    ['no recordIds', ''],
    ['a malformed id', 'recordIds[]=rec1'],
  ])('answers 400 for %s', async (_, query) => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);

    const res = await deleteRecords(t, query);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([t.table.records[0].id]);
  });
});

describe('duplicate a record: POST /table/{tableId}/record/{recordId}/duplicate', () => {
  it('answers 201 {records:[copy]} with a new id, the next autoNumber and the same non-computed cells', async () => {
    const t = await table([
      { fields: { 'Full Name': 'Ann', Score: 4, Tags: ['y'] } },
      { fields: { 'Full Name': 'b' } },
    ]);
    const [ann, b] = t.table.records as Rec[];

    const res = await duplicateRecord(t, ann?.id as string);

    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['records']);
    const [copy] = res.body.records as Rec[];
    expect(copy?.id).not.toBe(ann?.id);
    expect(copy?.id).toMatch(/^rec/);
    expect(copy?.autoNumber).toBe(3);
    expect(copy?.name).toBe('Ann');
    expect(copy?.fields).toEqual({ 'Full Name': 'Ann', Score: 4, Tags: ['y'], Seq: 3 });
    expect((await getRecord(t, copy?.id as string)).body.fields).toEqual(copy?.fields);
    // Without a placement the copy goes to the end.
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([ann?.id, b?.id, copy?.id]);
  });

  it.each(['before', 'after'] as const)('places the copy %s the anchor in the view', async (position) => {
    const t = await table([
      { fields: { 'Full Name': 'r1' } },
      { fields: { 'Full Name': 'r2' } },
      { fields: { 'Full Name': 'r3' } },
    ]);
    const [r1, r2, r3] = (t.table.records as Rec[]).map((r) => r.id);

    const res = await duplicateRecord(t, r3 as string, { viewId: t.viewId, anchorId: r1, position });

    expect(res.status).toBe(201);
    const copy = res.body.records[0].id;
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual(
      position === 'before' ? [copy, r1, r2, r3] : [r1, copy, r2, r3],
    );
  });

  it.each([
    ['viewId only', (t: Table) => ({ viewId: t.viewId })],
    ['anchorId only', (t: Table) => ({ anchorId: t.table.records[0].id })],
    ['position only', () => ({ position: 'after' })],
    ['viewId and anchorId', (t: Table) => ({ viewId: t.viewId, anchorId: t.table.records[0].id })],
    ['anchorId and position', (t: Table) => ({ anchorId: t.table.records[0].id, position: 'before' })],
  ])('answers 400 for %s and copies nothing', async (_, bodyOf) => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);

    const res = await duplicateRecord(t, t.table.records[0].id, bodyOf(t));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'viewId, anchorId and position go together: give all three or none',
      status: 400,
      code: 'validation_error',
    });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([t.table.records[0].id]);
  });

  it('answers 404 for a record that does not exist', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const missing = newId('record');

    const res = await duplicateRecord(t, missing);

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Record ${missing} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([t.table.records[0].id]);
  });

  it('answers 404 for an anchor that is no record of the table', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const missing = newId('record');

    const res = await duplicateRecord(t, t.table.records[0].id, {
      viewId: t.viewId,
      anchorId: missing,
      position: 'after',
    });

    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound(`Anchor ${missing} not found`));
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([t.table.records[0].id]);
  });

  it("copies empty cells as empty: the fields' defaultValue is for new records, not for copies", async () => {
    const t = await newTable({
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Score', type: 'number', options: { defaultValue: 5 } },
        { name: 'Done', type: 'checkbox', options: { defaultValue: true } },
      ],
      records: [{ fields: { Name: 'a' } }],
    });
    const a = t.table.records[0];
    expect(a.fields).toEqual({ Name: 'a', Score: 5, Done: true });
    const cleared = await updateRecord(t, a.id, { record: { fields: { Score: null, Done: null } } });
    expect(cleared.body.fields).toEqual({ Name: 'a' });

    const res = await duplicateRecord(t, a.id);

    expect(res.status).toBe(201);
    expect(res.body.records[0].fields).toEqual({ Name: 'a' });
  });

  // A foreign record of a oneOne/oneMany link belongs to one record here: copying the cell would
  // take the link away from the source. The copy leaves such cells empty; the source keeps them.
  it.each([
    ['oneMany', true],
    ['oneOne', false],
  ] as const)("leaves the source's %s links alone and the copy's cell empty", async (relationship, many) => {
    const t = await newTable({ records: [{ fields: { Name: 'A1' } }] });
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', records: [{ fields: { Name: 'B1' } }] },
    });
    const link = await call('create-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: { type: 'link', name: 'L', options: { relationship, foreignTableId: other.body.id } },
    });
    expect(link.status).toBe(201);
    const a1 = t.table.records[0].id;
    const b1 = other.body.records[0].id;
    const linked = many ? [{ id: b1, title: 'B1' }] : { id: b1, title: 'B1' };
    expect((await updateRecord(t, a1, { record: { fields: { L: linked } } })).status).toBe(200);

    const res = await duplicateRecord(t, a1);

    expect(res.status).toBe(201);
    expect(res.body.records[0].fields).toEqual({ Name: 'A1' });
    expect((await getRecord(t, a1)).body.fields).toEqual({ Name: 'A1', L: linked });
    const back = await call('get-record', {
      token: t.owner.auth,
      params: { tableId: other.body.id, recordId: b1 },
    });
    expect(back.body.fields).toEqual({ Name: 'B1', Table: { id: a1, title: 'A1' } });
  });

  it.each(['manyOne', 'manyMany'] as const)(
    'copies %s links, which the foreign side then lists twice',
    async (relationship) => {
      const t = await newTable({ records: [{ fields: { Name: 'A1' } }] });
      const other = await call('create-table', {
        token: t.owner.auth,
        params: { baseId: t.baseId },
        body: { name: 'Other', records: [{ fields: { Name: 'B1' } }] },
      });
      await call('create-field', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        body: { type: 'link', name: 'L', options: { relationship, foreignTableId: other.body.id } },
      });
      const a1 = t.table.records[0].id;
      const b1 = other.body.records[0].id;
      const linked = relationship === 'manyMany' ? [{ id: b1, title: 'B1' }] : { id: b1, title: 'B1' };
      await updateRecord(t, a1, { record: { fields: { L: linked } } });

      const res = await duplicateRecord(t, a1);

      expect(res.status).toBe(201);
      const copy = res.body.records[0];
      expect(copy.fields).toEqual({ Name: 'A1', L: linked });
      expect((await getRecord(t, a1)).body.fields).toEqual({ Name: 'A1', L: linked });
      const back = await call('get-record', {
        token: t.owner.auth,
        params: { tableId: other.body.id, recordId: b1 },
      });
      expect(back.body.fields.Table).toEqual([
        { id: a1, title: 'A1' },
        { id: copy.id, title: 'A1' },
      ]);
    },
  );

  it('refuses to copy a record whose unique field would repeat (400)', async () => {
    const t = await newTable({
      fields: [{ name: 'Code', type: 'singleLineText', unique: true }],
      records: [{ fields: { Code: 'A-1' } }],
    });

    const res = await duplicateRecord(t, t.table.records[0].id);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.message).toContain('must be unique');
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([t.table.records[0].id]);
  });
});

describe('autoNumber', () => {
  it('is never reused after deletes', async () => {
    const t = await table();
    const first = await createRecords(t, { records: [{ fields: {} }, { fields: {} }, { fields: {} }] });
    const last = first.body.records[2].id;
    expect((await deleteRecords(t, idsQuery([last]))).status).toBe(200);

    const next = await createRecords(t, { records: [{ fields: { 'Full Name': 'n' } }] });

    expect(next.status).toBe(201);
    expect(next.body.records[0].autoNumber).toBe(4);
    expect(next.body.records[0].fields.Seq).toBe(4);
  });

  it('is not reused after a delete of the only record, nor after a duplicate', async () => {
    const t = await table([{ fields: { 'Full Name': 'a' } }]);
    const a = t.table.records[0].id;
    const copy = await duplicateRecord(t, a);
    expect(copy.body.records[0].autoNumber).toBe(2);
    await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: copy.body.records[0].id },
    });

    const next = await createRecords(t, { records: [{ fields: {} }] });

    expect(next.body.records[0].autoNumber).toBe(3);
  });
});
