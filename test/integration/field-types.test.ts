import { describe, expect, it } from 'vitest';
import { queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { type Field, ISO, id } from '#test/support/answers.ts';
import { pngOf, signAndPut, uploadFile } from '#test/support/attachments.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallResult, call } from '#test/support/invoke.ts';
import { newWorkspace } from '#test/support/workspace.ts';

type User = Awaited<ReturnType<typeof newUser>>;
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A value of a matrix row, fixed or built from the table's users. */
type Given<T extends Json> = T | ((t: TypesTable) => T);

/** One field of every writable and computed type (fields.md "Types"). */
const FIELDS = [
  { type: 'singleLineText', name: 'Title' },
  { type: 'longText', name: 'Notes' },
  { type: 'number', name: 'Dec', options: { formatting: { type: 'decimal', precision: 2 } } },
  { type: 'number', name: 'Pct', options: { formatting: { type: 'percent', precision: 2 } } },
  { type: 'number', name: 'Cur', options: { formatting: { type: 'currency', precision: 2, symbol: '$' } } },
  { type: 'number', name: 'Int', options: { formatting: { type: 'decimal', precision: 0 } } },
  { type: 'rating', name: 'Stars', options: { max: 5 } },
  { type: 'checkbox', name: 'Done' },
  { type: 'singleSelect', name: 'Pick', options: { choices: [{ name: 'a' }, { name: 'b' }] } },
  {
    type: 'multipleSelect',
    name: 'Tags',
    options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c, d' }] },
  },
  { type: 'date', name: 'Day' },
  {
    type: 'date',
    name: 'When',
    options: { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Europe/Berlin' } },
  },
  {
    type: 'date',
    name: 'US',
    options: { formatting: { date: 'MM/DD/YYYY', time: 'hh:mm A', timeZone: 'America/New_York' } },
  },
  {
    type: 'date',
    name: 'EU',
    options: { formatting: { date: 'DD/MM/YYYY', time: 'None', timeZone: 'UTC' } },
  },
  { type: 'user', name: 'Who' },
  { type: 'user', name: 'Team', options: { isMultiple: true } },
  { type: 'attachment', name: 'Files' },
  { type: 'autoNumber', name: 'No' },
  {
    type: 'createdTime',
    name: 'Created',
    options: { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'UTC' } },
  },
  { type: 'lastModifiedTime', name: 'Modified' },
  { type: 'createdBy', name: 'Creator' },
  { type: 'lastModifiedBy', name: 'Editor' },
];
const COMPUTED = ['No', 'Created', 'Modified', 'Creator', 'Editor'];

/** A workspace with a second collaborator (an editor) and a table of `FIELDS` without records. */
const typesTable = async (fields: Record<string, unknown>[] = FIELDS) => {
  const ws = await newWorkspace();
  const member = await newUser();
  const added = await call('add-collaborators', {
    token: ws.owner.auth,
    params: { spaceId: ws.spaceId },
    body: { collaborators: [{ principalId: member.id, principalType: 'user' }], role: 'editor' },
  });
  expect(added.status).toBe(201);
  const res = await call('create-table', {
    token: ws.owner.auth,
    params: { baseId: ws.baseId },
    body: { name: 'Types', fields, records: [] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const byName = Object.fromEntries((res.body.fields as Field[]).map((f) => [f.name, f]));
  return {
    ...ws,
    member,
    tableId: res.body.id as string,
    table: res.body,
    field: (name: string) => byName[name] as Field,
  };
};
type TypesTable = Awaited<ReturnType<typeof typesTable>>;

const resolve = <T extends Json>(given: Given<T>, t: TypesTable): T =>
  typeof given === 'function' ? (given as (t: TypesTable) => T)(t) : given;

/** A user cell as answered (avatarUrl null: no avatars are stored). */
const refOf = (user: User) => ({ id: user.id, title: user.name, email: user.email, avatarUrl: null });

const createRecords = (
  t: TypesTable,
  records: Record<string, unknown>[],
  options: Record<string, unknown> = {},
  token = t.owner.auth,
) =>
  call('create-records', {
    token,
    params: { tableId: t.tableId },
    body: { records: records.map((fields) => ({ fields })), ...options },
  });

const createOne = async (
  t: TypesTable,
  fields: Record<string, unknown>,
  options: Record<string, unknown> = {},
) => {
  const res = await createRecords(t, [fields], options);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.records[0];
};

const getRecord = (
  t: TypesTable,
  recordId: string,
  query?: string,
  token = t.owner.auth,
): Promise<CallResult> => call('get-record', { token, params: { tableId: t.tableId, recordId }, query });

const readRecord = async (t: TypesTable, recordId: string, query?: string) => {
  const res = await getRecord(t, recordId, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const updateRecord = (t: TypesTable, recordId: string, body: Record<string, unknown>, token = t.owner.auth) =>
  call('update-record', { token, params: { tableId: t.tableId, recordId }, body });

/** How many records the table holds, read straight from DynamoDB. */
const storedRecords = async (t: TypesTable) => (await queryAll(keys.recordsOf(t.tableId))).length;

/** The writable (non-computed) keys of a record's fields. */
const writtenKeys = (fields: Record<string, unknown>) =>
  Object.keys(fields).filter((k) => !COMPUTED.includes(k));

describe('valid values without typecast: JSON cell and text rendering', () => {
  const VALID: [string, Given<Json>, Given<Json>, Given<string>][] = [
    ['Title', 'hello', 'hello', 'hello'],
    ['Title', 'tab\tand\nbreak', 'tab and break', 'tab and break'],
    ['Title', 'crlf\r\nline', 'crlf line', 'crlf line'],
    ['Notes', 'line 1\nline 2', 'line 1\nline 2', 'line 1\nline 2'],
    ['Dec', 12.5, 12.5, '12.50'],
    ['Dec', -3, -3, '-3.00'],
    ['Dec', 0, 0, '0.00'],
    ['Dec', 1 / 3, 1 / 3, '0.33'],
    ['Dec', 1234567.891, 1234567.891, '1234567.89'],
    ['Pct', 12.5, 12.5, '1250.00%'],
    ['Pct', 0.125, 0.125, '12.50%'],
    ['Cur', 12.5, 12.5, '$12.50'],
    ['Cur', -1234.5, -1234.5, '-$1,234.50'],
    ['Cur', 1234567.891, 1234567.891, '$1,234,567.89'],
    ['Int', 2.5, 2.5, '3'],
    ['Stars', 3, 3, '3'],
    ['Stars', 5, 5, '5'],
    ['Done', true, true, 'true'],
    ['Pick', 'a', 'a', 'a'],
    ['Tags', ['a', 'b'], ['a', 'b'], 'a, b'],
    ['Tags', ['b', 'a', 'b'], ['b', 'a'], 'b, a'],
    ['Tags', ['c, d', 'a'], ['c, d', 'a'], '"c, d", a'],
    ['Day', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-03-01'],
    ['Day', '2026-03-01T10:00:00+05:00', '2026-03-01T05:00:00.000Z', '2026-03-01'],
    ['Day', '2026-03-01T23:30:00-02:00', '2026-03-02T01:30:00.000Z', '2026-03-02'],
    ['When', '2026-03-01T13:05:00.000Z', '2026-03-01T13:05:00.000Z', '2026-03-01 14:05'],
    ['When', '2026-07-01T12:05:00Z', '2026-07-01T12:05:00.000Z', '2026-07-01 14:05'],
    ['When', '2026-02-28T23:30:00Z', '2026-02-28T23:30:00.000Z', '2026-03-01 00:30'],
    ['US', '2026-03-01T19:05:00.000Z', '2026-03-01T19:05:00.000Z', '03/01/2026 02:05 PM'],
    ['US', '2026-03-01T04:00:00.000Z', '2026-03-01T04:00:00.000Z', '02/28/2026 11:00 PM'],
    ['Who', (t) => ({ id: t.member.id }), (t) => refOf(t.member), (t) => t.member.name],
    ['Who', (t) => t.owner.id, (t) => refOf(t.owner), (t) => t.owner.name],
    [
      'Team',
      (t) => [{ id: t.owner.id }, { id: t.member.id }],
      (t) => [refOf(t.owner), refOf(t.member)],
      (t) => `${t.owner.name}, ${t.member.name}`,
    ],
    ['Team', (t) => [{ id: t.member.id }], (t) => [refOf(t.member)], (t) => t.member.name],
  ];

  it.each(VALID)('%s: %j', async (name, given, json, text) => {
    const t = await typesTable();
    const value = resolve(given, t);

    const created = await createOne(t, { [name]: value });

    expect(created.fields[name]).toEqual(resolve(json, t));
    expect(writtenKeys(created.fields)).toEqual([name]);
    const asJson = await readRecord(t, created.id, `projection[]=${name}`);
    const asText = await readRecord(t, created.id, `projection[]=${name}&cellFormat=text`);
    expect(asJson.fields).toEqual({ [name]: resolve(json, t) });
    expect(asText.fields).toEqual({ [name]: resolve(text, t) });
  });

  it("stores attachments of the base's uploads with an id each, answering path, size, mimetype and a download URL", async () => {
    const t = await typesTable();
    const png = await uploadFile(t.owner.auth, t.baseId, pngOf(4, 3), 'image/png', 'a.png');
    const txt = await uploadFile(
      t.owner.auth,
      t.baseId,
      new TextEncoder().encode('hello'),
      'text/plain',
      'b.txt',
    );
    const files = [
      // what the caller says of path, size and type is not what is stored: the upload's facts are
      { name: 'a.png', token: png.token, size: 1, mimetype: 'text/html', path: 'elsewhere' },
      { name: 'b.txt', token: txt.token, id: 'actKeepMyIdPlease1' },
    ];

    const created = await createOne(t, { Files: files });

    const url = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/attachments\/table\/.+X-Amz-Signature=/);
    const expected = [
      {
        id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/),
        name: 'a.png',
        token: png.token,
        path: png.path,
        size: png.size,
        mimetype: 'image/png',
        width: 4,
        height: 3,
        presignedUrl: url,
        // an image answers both thumbnail URLs (this one is smaller than either: itself)
        smThumbnailUrl: url,
        lgThumbnailUrl: url,
      },
      {
        id: 'actKeepMyIdPlease1',
        name: 'b.txt',
        token: txt.token,
        path: txt.path,
        size: 5,
        mimetype: 'text/plain',
        presignedUrl: url,
      },
    ];
    expect(created.fields.Files).toEqual(expected);
    expect((await readRecord(t, created.id)).fields.Files).toEqual(expected);
    expect((await readRecord(t, created.id, 'cellFormat=text')).fields.Files).toBe(
      `a.png (${png.token}),b.txt (${txt.token})`,
    );
    // the URL downloads the bytes
    const download = await fetch(created.fields.Files[1].presignedUrl);
    expect(await download.text()).toBe('hello');
  });

  it('refuses a token uploaded to another base, one not yet confirmed, and one never uploaded; writes nothing', async () => {
    const t = await typesTable();
    const other = await typesTable();
    const elsewhere = await uploadFile(other.owner.auth, other.baseId);
    const unconfirmed = await signAndPut(t.owner.auth, t.baseId, new TextEncoder().encode('x'), 'text/plain');

    for (const token of [elsewhere.token, unconfirmed.token, 'y'.repeat(32)]) {
      const res = await createRecords(t, [{ Title: 'fine' }, { Files: [{ name: 'f', token }] }]);
      expect(res.body).toEqual({
        status: 400,
        code: 'validation_error',
        message: `Field "Files" (${t.field('Files').id}): item 0: no uploaded file ${token} in this base (upload it first: POST /attachments/signature, then notify)`,
      });
    }
    expect(await storedRecords(t)).toBe(0);
  });

  it('clears a cell with null and with "" for text and single select', async () => {
    const t = await typesTable();
    const record = await createOne(t, { Title: 'x', Notes: 'y', Dec: 1, Pick: 'a', Tags: ['a'], Done: true });

    const res = await updateRecord(t, record.id, {
      record: { fields: { Title: '', Notes: null, Dec: null, Pick: '', Tags: null, Done: null } },
    });

    expect(res.status).toBe(200);
    expect(writtenKeys(res.body.fields)).toEqual([]);
    expect(res.body.name).toBe('');
  });
});

describe('invalid values without typecast: a 400 naming the field, nothing written', () => {
  const INVALID: [string, Given<Json>, string][] = [
    ['Title', 5, 'expected text'],
    ['Title', ['a'], 'expected text'],
    ['Notes', { text: 'x' }, 'expected text'],
    ['Dec', '12', 'expected a number'],
    ['Dec', true, 'expected a number'],
    ['Stars', 6, 'expected an integer from 1 to 5'],
    ['Stars', 0, 'expected an integer from 1 to 5'],
    ['Stars', 2.5, 'expected an integer from 1 to 5'],
    ['Stars', '3', 'expected an integer from 1 to 5'],
    ['Done', false, 'expected true or null'],
    ['Done', 'true', 'expected true or null'],
    ['Pick', 'zzz', '"zzz" is not a choice'],
    ['Pick', ['a'], 'expected a choice name'],
    ['Tags', 'a', 'expected a non-empty list of choice names'],
    ['Tags', [], 'expected a non-empty list of choice names'],
    ['Tags', ['a', 'zzz'], '"zzz" is not a choice'],
    ['Day', '2026-03-01', 'expected an ISO 8601 time with an offset, like 2026-03-01T00:00:00.000Z'],
    [
      'Day',
      '2026-02-30T00:00:00Z',
      'expected an ISO 8601 time with an offset, like 2026-03-01T00:00:00.000Z',
    ],
    ['Day', 1772323200000, 'expected an ISO 8601 time with an offset, like 2026-03-01T00:00:00.000Z'],
    ['Who', { id: 'usrNotACollaborato' }, 'usrNotACollaborato is not a collaborator of this space'],
    ['Who', (t) => ({ email: t.member.email }), 'expected {id} of a collaborator'],
    ['Who', (t) => [{ id: t.owner.id }, { id: t.member.id }], 'expected {id} of a collaborator'],
    ['Team', [], 'expected a non-empty list of {id} of collaborators'],
    ['Files', [], 'expected a non-empty list of {token, name?, id?}'],
    ['Files', [{ name: 'a.png' }], 'item 0: expected {token, name?, id?} with a text token'],
    [
      'Files',
      [{ name: 'a', token: 't', size: -1 }],
      'item 0: expected {token, name?, id?} with a text token',
    ],
  ];

  it.each(INVALID)('%s rejects %j', async (name, given, message) => {
    const t = await typesTable();

    const res = await createRecords(t, [{ Title: 'fine' }, { [name]: resolve(given, t) }]);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: `Field "${name}" (${t.field(name).id}): ${message}`,
    });
    expect(await storedRecords(t)).toBe(0);
  });

  it('an invalid value in an update leaves the record as it was', async () => {
    const t = await typesTable();
    const record = await createOne(t, { Title: 'before', Dec: 1 });
    const before = await readRecord(t, record.id);

    const res = await updateRecord(t, record.id, { record: { fields: { Title: 'after', Dec: 'two' } } });

    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`Field "Dec" (${t.field('Dec').id}): expected a number`);
    expect(await readRecord(t, record.id)).toEqual(before);
  });
});

describe('typecast', () => {
  const TYPECAST: [string, Given<Json>, Given<Json> | undefined, Given<string> | undefined][] = [
    ['Title', 42, '42', '42'],
    ['Title', true, 'true', 'true'],
    ['Title', ['a', 'b'], 'a, b', 'a, b'],
    ['Title', 'two\nlines', 'two lines', 'two lines'],
    ['Title', '', undefined, undefined],
    ['Notes', 7, '7', '7'],
    ['Dec', '1,234.5 USD', 1234.5, '1234.50'],
    ['Dec', '12%', 0.12, '0.12'],
    ['Dec', '-$1,234.50', -1234.5, '-1234.50'],
    ['Dec', '+7', 7, '7.00'],
    ['Dec', [8], 8, '8.00'],
    ['Dec', 'n/a', undefined, undefined],
    ['Dec', '', undefined, undefined],
    ['Pct', '12.5%', 0.125, '12.50%'],
    ['Cur', '$1,234.50', 1234.5, '$1,234.50'],
    ['Stars', '3.6', 4, '4'],
    ['Stars', 2.5, 3, '3'],
    ['Stars', 9, 5, '5'],
    ['Stars', '100%', 1, '1'],
    ['Stars', 0.4, undefined, undefined],
    ['Stars', -2, undefined, undefined],
    ['Done', 'yes', true, 'true'],
    ['Done', 'true', true, 'true'],
    ['Done', 1, true, 'true'],
    ['Done', 'x', true, 'true'],
    ['Done', 'false', undefined, undefined],
    ['Done', 'FALSE', undefined, undefined],
    ['Done', 'no', undefined, undefined],
    ['Done', '0', undefined, undefined],
    ['Done', 0, undefined, undefined],
    ['Done', false, undefined, undefined],
    ['Done', '', undefined, undefined],
    ['Pick', 'b', 'b', 'b'],
    ['Pick', ['b', 'a'], 'b', 'b'],
    ['Pick', { name: 'a' }, 'a', 'a'],
    ['Pick', '  a  ', 'a', 'a'],
    ['Tags', 'a, b', ['a', 'b'], 'a, b'],
    ['Tags', 'c, d', ['c, d'], '"c, d"'],
    ['Tags', '"c, d", a', ['c, d', 'a'], '"c, d", a'],
    ['Tags', 'b', ['b'], 'b'],
    ['Tags', ' , ', undefined, undefined],
    ['Day', '2026-03-01', '2026-03-01T00:00:00.000Z', '2026-03-01'],
    ['Day', Date.UTC(2026, 2, 1, 12), '2026-03-01T12:00:00.000Z', '2026-03-01'],
    ['Day', 'not a date', undefined, undefined],
    ['When', '2026-03-01 14:05', '2026-03-01T13:05:00.000Z', '2026-03-01 14:05'],
    ['When', '2026-07-01 14:05', '2026-07-01T12:05:00.000Z', '2026-07-01 14:05'],
    ['When', 'March 1, 2026', '2026-02-28T23:00:00.000Z', '2026-03-01 00:00'],
    ['When', '2026-03-01T14:05:00Z', '2026-03-01T14:05:00.000Z', '2026-03-01 15:05'],
    ['US', '03/01/2026 2:05 PM', '2026-03-01T19:05:00.000Z', '03/01/2026 02:05 PM'],
    ['EU', '01/03/2026', '2026-03-01T00:00:00.000Z', '01/03/2026'],
    ['EU', '02/13/2026', '2026-02-13T00:00:00.000Z', '13/02/2026'],
    ['Who', (t) => t.member.email.toUpperCase(), (t) => refOf(t.member), (t) => t.member.name],
    ['Who', (t) => t.member.name.toLowerCase(), (t) => refOf(t.member), (t) => t.member.name],
    ['Who', (t) => t.member.id, (t) => refOf(t.member), (t) => t.member.name],
    ['Who', 'nobody at all', undefined, undefined],
    [
      'Team',
      (t) => `${t.owner.email}, ${t.member.name}`,
      (t) => [refOf(t.owner), refOf(t.member)],
      (t) => `${t.owner.name}, ${t.member.name}`,
    ],
    ['Team', (t) => [t.member.email, 'nobody'], (t) => [refOf(t.member)], (t) => t.member.name],
  ];

  it.each(TYPECAST)('%s: %j', async (name, given, json, text) => {
    const t = await typesTable();

    const created = await createOne(t, { [name]: resolve(given, t) }, { typecast: true });

    const expectedJson = json === undefined ? {} : { [name]: resolve(json, t) };
    const expectedText = text === undefined ? {} : { [name]: resolve(text, t) };
    expect(writtenKeys(created.fields)).toEqual(Object.keys(expectedJson));
    expect((await readRecord(t, created.id, `projection[]=${name}`)).fields).toEqual(expectedJson);
    expect((await readRecord(t, created.id, `projection[]=${name}&cellFormat=text`)).fields).toEqual(
      expectedText,
    );
  });

  it('a user name shared by two collaborators matches nobody; their emails still do', async () => {
    const t = await typesTable();
    const twin = await newUser({ name: t.member.name });
    await call('add-collaborators', {
      token: t.owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: twin.id, principalType: 'user' }], role: 'viewer' },
    });

    const byName = await createOne(t, { Who: t.member.name }, { typecast: true });
    const byEmail = await createOne(t, { Who: twin.email }, { typecast: true });

    expect(byName.fields.Who).toBeUndefined();
    expect(byEmail.fields.Who).toEqual(refOf(twin));
  });

  it('an unknown single select name adds a choice, visible in the field afterwards', async () => {
    const t = await typesTable();
    const before = t.field('Pick');

    const created = await createOne(t, { Pick: 'brand new' }, { typecast: true });

    expect(created.fields.Pick).toBe('brand new');
    const field = await call('get-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: before.id },
    });
    expect(field.body.options.choices).toEqual([
      ...(before.options.choices as unknown[]),
      { id: id('cho'), name: 'brand new', color: 'grayLight2' },
    ]);
    const strict = await createOne(t, { Pick: 'brand new' });
    expect(strict.fields.Pick).toBe('brand new');
  });

  it('unknown multiple select names are added once for a whole batch', async () => {
    const t = await typesTable();

    const res = await createRecords(t, [{ Tags: 'x, a' }, { Tags: ['y', 'x'] }], { typecast: true });

    expect(res.status).toBe(201);
    expect(res.body.records.map((r: { fields: Record<string, unknown> }) => r.fields.Tags)).toEqual([
      ['x', 'a'],
      ['y', 'x'],
    ]);
    const field = await call('get-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: t.field('Tags').id },
    });
    expect(field.body.options.choices.map((c: { name: string }) => c.name)).toEqual([
      'a',
      'b',
      'c, d',
      'x',
      'y',
    ]);
  });

  it('a batch that fails adds no choice', async () => {
    const t = await typesTable();

    const res = await createRecords(t, [{ Pick: 'new' }, { Nope: 1 }], { typecast: true });

    expect(res.status).toBe(404);
    const field = await call('get-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: t.field('Pick').id },
    });
    expect(field.body.options.choices.map((c: { name: string }) => c.name)).toEqual(['a', 'b']);
  });

  it('typecast: a single attachment or a token becomes a list; items without a token of this base are dropped', async () => {
    const t = await typesTable();
    const file = await uploadFile(
      t.owner.auth,
      t.baseId,
      new TextEncoder().encode('abc'),
      'text/plain',
      'up.txt',
    );

    const one = await createOne(t, { Files: { name: 'a.txt', token: file.token } }, { typecast: true });
    const byToken = await createOne(t, { Files: file.token }, { typecast: true });
    const mixed = await createOne(
      t,
      { Files: [{ name: 'b' }, { name: 'c', token: 'k' }, { name: 'd', token: file.token }] },
      { typecast: true },
    );

    const item = {
      token: file.token,
      path: file.path,
      size: 3,
      mimetype: 'text/plain',
      presignedUrl: expect.any(String),
    };
    expect(one.fields.Files).toEqual([{ id: expect.any(String), name: 'a.txt', ...item }]);
    expect(byToken.fields.Files).toEqual([{ id: expect.any(String), name: 'up.txt', ...item }]);
    expect(mixed.fields.Files.map((f: { name: string }) => f.name)).toEqual(['d']);
  });
});

describe('computed fields', () => {
  it('ignores writes to computed fields and answers their values', async () => {
    const t = await typesTable();

    const created = await createOne(t, {
      Title: 'stamped',
      No: 99,
      Created: '2000-01-01T00:00:00.000Z',
      Modified: 'whenever',
      Creator: { id: t.member.id },
      Editor: 'me',
    });

    expect(created.autoNumber).toBe(1);
    expect(created.fields).toEqual({
      Title: 'stamped',
      No: 1,
      Created: created.createdTime,
      Modified: created.lastModifiedTime,
      Creator: refOf(t.owner),
      Editor: refOf(t.owner),
    });
    const text = await readRecord(t, created.id, 'cellFormat=text');
    expect(text.fields).toEqual({
      Title: 'stamped',
      No: '1',
      Created: `${created.createdTime.slice(0, 10)} ${created.createdTime.slice(11, 16)}`,
      Modified: created.lastModifiedTime.slice(0, 10),
      Creator: t.owner.name,
      Editor: t.owner.name,
    });
  });

  it('lastModifiedBy, lastModifiedTime and the last-modified fields follow an update by another user', async () => {
    const t = await typesTable();
    const created = await createOne(t, { Title: 'v1' });
    await new Promise((r) => setTimeout(r, 5));

    const res = await updateRecord(
      t,
      created.id,
      { record: { fields: { Title: 'v2', No: 5 } } },
      t.member.auth,
    );

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'v2',
      autoNumber: 1,
      createdTime: created.createdTime,
      createdBy: t.owner.name,
      lastModifiedBy: t.member.name,
    });
    expect(res.body.lastModifiedTime > created.lastModifiedTime).toBe(true);
    expect(res.body.fields).toEqual({
      Title: 'v2',
      No: 1,
      Created: created.createdTime,
      Modified: res.body.lastModifiedTime,
      Creator: refOf(t.owner),
      Editor: refOf(t.member),
    });
  });

  it('numbers records in creation order across calls', async () => {
    const t = await typesTable();

    const first = await createRecords(t, [{}, {}]);
    const second = await createRecords(t, [{}]);

    expect(first.body.records.map((r: { fields: { No: number } }) => r.fields.No)).toEqual([1, 2]);
    expect(second.body.records[0].fields.No).toBe(3);
  });
});

describe('defaultValue', () => {
  const DEFAULTS = [
    { type: 'singleLineText', name: 'Title', options: { defaultValue: 'untitled' } },
    { type: 'number', name: 'Qty', options: { defaultValue: 7 } },
    { type: 'checkbox', name: 'Done', options: { defaultValue: true } },
    {
      type: 'singleSelect',
      name: 'Pick',
      options: { choices: [{ name: 'a' }, { name: 'b' }], defaultValue: 'b' },
    },
    {
      type: 'multipleSelect',
      name: 'Tags',
      options: { choices: [{ name: 'a' }, { name: 'b' }], defaultValue: ['a'] },
    },
    { type: 'date', name: 'Day', options: { defaultValue: 'now' } },
    { type: 'user', name: 'Who', options: { defaultValue: 'me' } },
    { type: 'longText', name: 'Notes' },
  ];

  it('fills empty cells on create with the defaults ("now" and "me" resolved)', async () => {
    const t = await typesTable(DEFAULTS);

    const byOwner = await createOne(t, {});
    const byMember = await createRecords(t, [{ Notes: 'x' }], {}, t.member.auth);

    expect(byOwner.fields).toEqual({
      Title: 'untitled',
      Qty: 7,
      Done: true,
      Pick: 'b',
      Tags: ['a'],
      Day: byOwner.createdTime,
      Who: refOf(t.owner),
    });
    expect(byOwner.name).toBe('untitled');
    expect(byMember.body.records[0].fields.Who).toEqual(refOf(t.member));
    expect(byMember.body.records[0].fields.Notes).toBe('x');
  });

  it('a given value wins over the default; null counts as empty', async () => {
    const t = await typesTable(DEFAULTS);

    const record = await createOne(t, { Title: 'mine', Qty: 0, Pick: 'a', Tags: null, Who: null });

    expect(record.fields).toMatchObject({
      Title: 'mine',
      Qty: 0,
      Pick: 'a',
      Tags: ['a'],
      Who: refOf(t.owner),
    });
  });

  it('an update does not bring the default back', async () => {
    const t = await typesTable(DEFAULTS);
    const record = await createOne(t, {});

    const res = await updateRecord(t, record.id, { record: { fields: { Qty: null, Title: null } } });

    expect(res.body.fields.Qty).toBeUndefined();
    expect(res.body.fields.Title).toBeUndefined();
    expect(res.body.name).toBe('');
  });
});

describe('notNull and unique', () => {
  const CONSTRAINED = [
    { type: 'singleLineText', name: 'Title' },
    { type: 'singleLineText', name: 'Code', notNull: true, unique: true },
    { type: 'number', name: 'Qty', notNull: true, options: { defaultValue: 1 } },
    { type: 'number', name: 'Serial', unique: true },
  ];

  it.each([
    ['missing', { Title: 'x' }],
    ['null', { Code: null }],
    ['empty text', { Code: '' }],
    ['typecast to nothing', { Code: [] }],
  ])('answers 400 for a notNull field left %s, writing nothing', async (_, fields) => {
    const t = await typesTable(CONSTRAINED);

    const res = await createRecords(t, [{ Code: 'ok' }, fields], { typecast: true });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: `Field "Code" (${t.field('Code').id}) must not be empty`,
    });
    expect(await storedRecords(t)).toBe(0);
  });

  it('a default satisfies notNull; clearing a notNull cell in an update is a 400', async () => {
    const t = await typesTable(CONSTRAINED);
    const record = await createOne(t, { Code: 'c1' });

    const cleared = await updateRecord(t, record.id, { record: { fields: { Qty: null } } });
    const other = await updateRecord(t, record.id, { record: { fields: { Title: 'only this' } } });

    expect(record.fields).toEqual({ Code: 'c1', Qty: 1 });
    expect(cleared.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: `Field "Qty" (${t.field('Qty').id}) must not be empty`,
    });
    expect(other.status).toBe(200);
    expect(other.body.fields).toEqual({ Title: 'only this', Code: 'c1', Qty: 1 });
  });

  it.each([['abc'], ['ABC'], [' Abc ']])(
    'answers 400 for the duplicate text %j (case-insensitive)',
    async (dup) => {
      const t = await typesTable(CONSTRAINED);
      await createOne(t, { Code: 'Abc' });

      const res = await createRecords(t, [{ Code: dup }]);

      expect(res.body).toEqual({
        status: 400,
        code: 'validation_error',
        message: `Field "Code" (${t.field('Code').id}) must be unique: the value is already used`,
      });
      expect(await storedRecords(t)).toBe(1);
    },
  );

  it('answers 400 for a value repeated inside one request', async () => {
    const t = await typesTable(CONSTRAINED);

    const res = await createRecords(t, [{ Code: 'x' }, { Code: 'X' }]);

    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: `Field "Code" (${t.field('Code').id}) must be unique: a value repeats in this request`,
    });
    expect(await storedRecords(t)).toBe(0);
  });

  it('answers 400 for a duplicate number', async () => {
    const t = await typesTable(CONSTRAINED);
    await createOne(t, { Code: 'a', Serial: 1 });

    const res = await createRecords(t, [{ Code: 'b', Serial: 1 }]);

    expect(res.body.message).toBe(
      `Field "Serial" (${t.field('Serial').id}) must be unique: the value is already used`,
    );
  });

  it('a value given up by an update, a clear or a deletion is free again', async () => {
    const t = await typesTable(CONSTRAINED);
    const first = await createOne(t, { Code: 'one', Serial: 1 });
    const second = await createOne(t, { Code: 'two', Serial: 2 });

    const ownCase = await updateRecord(t, first.id, { record: { fields: { Code: 'ONE' } } });
    const taken = await updateRecord(t, second.id, { record: { fields: { Code: 'one' } } });
    const moved = await updateRecord(t, first.id, { record: { fields: { Code: 'uno', Serial: null } } });
    const reuse = await updateRecord(t, second.id, { record: { fields: { Code: 'one', Serial: 1 } } });
    const deleted = await call('delete-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: first.id },
    });
    const afterDelete = await createOne(t, { Code: 'UNO' });

    expect(ownCase.status).toBe(200);
    expect(ownCase.body.fields.Code).toBe('ONE');
    expect(taken.status).toBe(400);
    expect(moved.status).toBe(200);
    expect(reuse.status).toBe(200);
    expect(reuse.body.fields).toMatchObject({ Code: 'one', Serial: 1 });
    expect(deleted.status).toBe(200);
    expect(afterDelete.fields.Code).toBe('UNO');
  });
});

describe('fieldKeyType', () => {
  const KEYED = [
    { type: 'singleLineText', name: 'Full name', dbFieldName: 'full_name' },
    { type: 'number', name: 'Age', dbFieldName: 'age_years' },
  ];

  it('keys bodies and answers by name, id or dbFieldName', async () => {
    const t = await typesTable(KEYED);
    const nameId = t.field('Full name').id;
    const ageId = t.field('Age').id;

    const byName = await createRecords(t, [{ 'Full name': 'Ada', Age: 36 }]);
    const byId = await createRecords(t, [{ [nameId]: 'Bob', [ageId]: 40 }], { fieldKeyType: 'id' });
    const byDb = await createRecords(t, [{ full_name: 'Cy', age_years: 5 }], { fieldKeyType: 'dbFieldName' });

    expect(byName.body.records[0].fields).toEqual({ 'Full name': 'Ada', Age: 36 });
    expect(byId.body.records[0].fields).toEqual({ [nameId]: 'Bob', [ageId]: 40 });
    expect(Object.keys(byId.body.records[0].permissions)).toEqual([nameId, ageId]);
    expect(byDb.body.records[0].fields).toEqual({ full_name: 'Cy', age_years: 5 });
    expect(Object.keys(byDb.body.records[0].permissions)).toEqual(['full_name', 'age_years']);
    const recordId = byName.body.records[0].id;
    expect((await readRecord(t, recordId)).fields).toEqual({ 'Full name': 'Ada', Age: 36 });
    expect((await readRecord(t, recordId, 'fieldKeyType=id')).fields).toEqual({
      [nameId]: 'Ada',
      [ageId]: 36,
    });
    expect((await readRecord(t, recordId, 'fieldKeyType=dbFieldName')).fields).toEqual({
      full_name: 'Ada',
      age_years: 36,
    });
  });

  it('keys an update body and its answer by the same fieldKeyType', async () => {
    const t = await typesTable(KEYED);
    const record = await createOne(t, { 'Full name': 'Ada' });

    const res = await updateRecord(t, record.id, {
      fieldKeyType: 'dbFieldName',
      record: { fields: { age_years: 37 } },
    });

    expect(res.status).toBe(200);
    expect(res.body.fields).toEqual({ full_name: 'Ada', age_years: 37 });
  });

  it.each([
    ['name', 'age_years', 'Field name: age_years not found'],
    ['id', 'Age', 'Field id: Age not found'],
    ['dbFieldName', 'Full name', 'Field dbFieldName: Full name not found'],
  ])('with fieldKeyType %s the key %j is a 404', async (fieldKeyType, key, message) => {
    const t = await typesTable(KEYED);

    const res = await createRecords(t, [{ [key]: 1 }], { fieldKeyType });

    expect(res).toMatchObject({ status: 404, body: { status: 404, code: 'not_found', message } });
  });

  it('answers 400 for an unknown fieldKeyType', async () => {
    const t = await typesTable(KEYED);
    const record = await createOne(t, {});

    const write = await createRecords(t, [{}], { fieldKeyType: 'label' });
    const read = await getRecord(t, record.id, 'fieldKeyType=label');

    expect(write).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(read).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(read.body.message).toContain('fieldKeyType');
  });
});

describe('unknown field keys in writes', () => {
  it('a create naming an unknown field is a 404 and writes nothing', async () => {
    const t = await typesTable();

    const res = await createRecords(t, [{ Title: 'fine' }, { Title: 'x', Nope: 1 }]);

    expect(res).toMatchObject({
      status: 404,
      body: { status: 404, code: 'not_found', message: 'Field name: Nope not found' },
    });
    expect(await storedRecords(t)).toBe(0);
  });

  it('an update naming an unknown field is a 404 and changes nothing', async () => {
    const t = await typesTable();
    const record = await createOne(t, { Title: 'before' });
    const before = await readRecord(t, record.id);

    const res = await updateRecord(t, record.id, { record: { fields: { Title: 'after', Nope: 1 } } });

    expect(res.body).toEqual({ status: 404, code: 'not_found', message: 'Field name: Nope not found' });
    expect(await readRecord(t, record.id)).toEqual(before);
  });
});

describe('GET record: projection and cellFormat', () => {
  it('answers only the projected fields, with their permissions', async () => {
    const t = await typesTable();
    const record = await createOne(t, { Title: 't', Dec: 1, Done: true });

    const byName = await readRecord(t, record.id, 'projection[]=Title&projection[]=Dec&projection[]=Notes');
    const byId = await readRecord(t, record.id, `fieldKeyType=id&projection[]=${t.field('Done').id}`);
    const bare = await readRecord(t, record.id, 'projection=Title');

    expect(byName.fields).toEqual({ Title: 't', Dec: 1 });
    expect(byName.permissions).toEqual({
      Title: { read: true, update: true },
      Dec: { read: true, update: true },
      Notes: { read: true, update: true },
    });
    expect(byName.name).toBe('t');
    expect(byId.fields).toEqual({ [t.field('Done').id]: true });
    expect(bare.fields).toEqual({ Title: 't' });
  });

  it('answers 400 for a projection naming an unknown field', async () => {
    const t = await typesTable();
    const record = await createOne(t, {});

    const res = await getRecord(t, record.id, 'projection[]=Title&projection[]=Nope');

    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: 'projection: field name "Nope" not found',
    });
  });

  it('answers 400 for an unknown cellFormat', async () => {
    const t = await typesTable();
    const record = await createOne(t, {});

    const res = await getRecord(t, record.id, 'cellFormat=csv');

    expect(res).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(res.body.message).toContain('cellFormat');
  });
});

describe('the record envelope', () => {
  it.each([
    [{ type: 'singleLineText', name: 'P' }, 'plain', 'plain'],
    [
      { type: 'number', name: 'P', options: { formatting: { type: 'currency', precision: 2 } } },
      12.5,
      '$12.50',
    ],
    [
      {
        type: 'date',
        name: 'P',
        options: { formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Europe/Berlin' } },
      },
      '2026-03-01T13:05:00Z',
      '2026-03-01 14:05',
    ],
    [
      { type: 'multipleSelect', name: 'P', options: { choices: [{ name: 'a' }, { name: 'b' }] } },
      ['b', 'a'],
      'b, a',
    ],
    [{ type: 'rating', name: 'P' }, 4, '4'],
    [{ type: 'singleLineText', name: 'P' }, null, ''],
  ])('name is the primary field as text: %j with %j', async (primary, value, name) => {
    const t = await typesTable([primary, { type: 'longText', name: 'Other' }]);

    const record = await createOne(t, { P: value, Other: 'x' });

    expect(record.name).toBe(name);
    expect((await readRecord(t, record.id)).name).toBe(name);
  });

  it('name of an autoNumber or createdBy primary field', async () => {
    const byNumber = await typesTable([{ type: 'autoNumber', name: 'P' }]);
    const byCreator = await typesTable([{ type: 'createdBy', name: 'P' }]);

    expect((await createOne(byNumber, {})).name).toBe('1');
    expect((await createOne(byCreator, {})).name).toBe(byCreator.owner.name);
  });

  it('answers the envelope with permissions per key for the owner', async () => {
    const t = await typesTable([
      { type: 'singleLineText', name: 'Title' },
      { type: 'number', name: 'N' },
      { type: 'autoNumber', name: 'No' },
      { type: 'createdBy', name: 'Creator' },
    ]);

    const record = await createOne(t, { Title: 'x' });
    const got = await getRecord(t, record.id);

    expect(record).toEqual({
      id: id('rec'),
      name: 'x',
      fields: { Title: 'x', No: 1, Creator: refOf(t.owner) },
      autoNumber: 1,
      createdTime: expect.stringMatching(ISO),
      lastModifiedTime: record.createdTime,
      createdBy: t.owner.name,
      lastModifiedBy: t.owner.name,
      permissions: {
        Title: { read: true, update: true },
        N: { read: true, update: true },
        No: { read: true, update: false },
        Creator: { read: true, update: false },
      },
      undeletable: false,
    });
    expect(got.body).toEqual(record);
    expect(got.headers.etag).toBe('"1"');
  });

  it('a viewer gets no update permission and an undeletable record', async () => {
    const t = await typesTable([{ type: 'singleLineText', name: 'Title' }]);
    const viewer = await newUser();
    await call('add-collaborators', {
      token: t.owner.auth,
      params: { spaceId: t.spaceId },
      body: { collaborators: [{ principalId: viewer.id, principalType: 'user' }], role: 'viewer' },
    });
    const record = await createOne(t, { Title: 'x' });

    const res = await getRecord(t, record.id, undefined, viewer.auth);

    expect(res.body.permissions).toEqual({ Title: { read: true, update: false } });
    expect(res.body.undeletable).toBe(true);
  });

  it.each([
    [['record|read'], false, true],
    [['record|read', 'record|update'], true, true],
    [['record|read', 'record|delete'], false, false],
    [['record|read', 'record|update', 'record|delete'], true, false],
  ])('a token with %j: update %s, undeletable %s', async (scopes, update, undeletable) => {
    const t = await typesTable([
      { type: 'singleLineText', name: 'Title' },
      { type: 'autoNumber', name: 'No' },
    ]);
    const record = await createOne(t, { Title: 'x' });
    const token = await call('create-access-token', {
      token: t.owner.auth,
      body: { name: 'limited', scopes, expiredTime: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(token.status).toBe(201);

    const res = await getRecord(t, record.id, undefined, `Bearer ${token.body.token}`);

    expect(res.status).toBe(200);
    expect(res.body.permissions).toEqual({
      Title: { read: true, update },
      No: { read: true, update: false },
    });
    expect(res.body.undeletable).toBe(undeletable);
  });
});
