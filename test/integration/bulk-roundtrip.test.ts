import { describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { uploadFile } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * The round trip (issue 30): a table exported as CSV and that CSV imported into a new table with
 * the same field types give the same cells, for every field type with a text form that reads back
 * (text, long text, number, checkbox, date, single select, rating) — over generated values with
 * commas, quotes, line breaks, spaces, unicode and empty cells (a fixed seed, so a failure repeats).
 * And (hardening item 17) a round trip through the analysis — export, analyze, import with the
 * columns it proposes — keeps what a person sees: numbers' values and precision, checkboxes checked
 * and unchecked.
 */

const FIELDS = [
  { type: 'singleLineText', name: 'Text' },
  { type: 'longText', name: 'Long' },
  { type: 'number', name: 'Number' },
  { type: 'checkbox', name: 'Check' },
  { type: 'date', name: 'Date' },
  { type: 'singleSelect', name: 'Select' },
  { type: 'rating', name: 'Rating' },
];

/** mulberry32: a small seeded generator. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const PIECES = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'ünï ✓', 'tab\there', '=1+1', '0042', 'x'];

const recordsOf = (n: number, next: () => number) =>
  Array.from({ length: n }, () => {
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
    const maybe = <T>(value: T) => (next() < 0.2 ? undefined : value);
    return {
      fields: {
        Text: maybe(`${pick(PIECES).replace('\n', ' ')} ${Math.floor(next() * 100)}`.trim()),
        Long: maybe(`${pick(PIECES)}\n${pick(PIECES)}`),
        Number: maybe(Math.round((next() - 0.5) * 1e6) / 100),
        Check: next() < 0.5 ? true : undefined,
        Date: maybe(
          new Date(
            Date.UTC(2000 + Math.floor(next() * 30), Math.floor(next() * 12), 1 + Math.floor(next() * 28)),
          ).toISOString(),
        ),
        Select: maybe(pick(['red', 'green', 'blue, light'])),
        Rating: maybe(1 + Math.floor(next() * 5)),
      },
    };
  });

const csvOf = async (t: { owner: { auth: string } }, tableId: string) =>
  String((await call('export-table-csv', { token: t.owner.auth, params: { tableId } })).body);

type Owner = { owner: { auth: string } };
interface FieldVo {
  name: string;
  type: string;
  options: Record<string, unknown>;
}

const fieldsOf = async (t: Owner, tableId: string): Promise<FieldVo[]> =>
  (await call('list-fields', { token: t.owner.auth, params: { tableId } })).body as FieldVo[];

/** The records' cells by field name, in the default order. */
const cellsOf = async (t: Owner, tableId: string) =>
  (
    (await call('list-records', { token: t.owner.auth, params: { tableId }, query: 'fieldKeyType=name' }))
      .body as { records: { fields: Record<string, unknown> }[] }
  ).records.map((r) => r.fields);

/** Imports `csv` into a new table of the base with `columns`; answers the copy's id once the job is done. */
const importCsv = async (
  t: Owner & { baseId: string },
  csv: string,
  columns: Record<string, unknown>[],
): Promise<string> => {
  const file = await uploadFile(
    t.owner.auth,
    t.baseId,
    new TextEncoder().encode(csv),
    'text/csv',
    'source.csv',
  );
  const imported = await call('import-table-from-file', {
    token: t.owner.auth,
    params: { baseId: t.baseId },
    body: {
      worksheets: {
        'Import Table': { name: 'Copy', columns, useFirstRowAsHeader: true, importData: true },
      },
      attachmentUrl: file.presignedUrl,
      fileType: 'csv',
    },
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  await drainPurges();
  const copyId = imported.body[0].id as string;
  const job = await call('get-job', { token: t.owner.auth, params: { kind: 'import', resourceId: copyId } });
  expect(job.body).toMatchObject({ state: 'done', errorCount: 0 });
  return copyId;
};

describe('export then import', () => {
  it('gives the same cells for every field type with a text form', async () => {
    const t = await newTable({
      name: 'Source',
      fields: FIELDS.map((f) =>
        f.type === 'singleSelect'
          ? { ...f, options: { choices: [{ name: 'red' }, { name: 'green' }, { name: 'blue, light' }] } }
          : f,
      ),
      records: recordsOf(60, random(29)),
      typecast: true,
    });
    const exported = await csvOf(t, t.tableId);
    const file = await uploadFile(
      t.owner.auth,
      t.baseId,
      new TextEncoder().encode(exported),
      'text/csv',
      'source.csv',
    );

    const imported = await call('import-table-from-file', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: {
        worksheets: {
          'Import Table': {
            name: 'Copy',
            columns: FIELDS.map((f, i) => ({ ...f, sourceColumnIndex: i })),
            useFirstRowAsHeader: true,
            importData: true,
          },
        },
        attachmentUrl: file.presignedUrl,
        fileType: 'csv',
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    await drainPurges();
    const copyId = imported.body[0].id as string;
    const job = await call('get-job', {
      token: t.owner.auth,
      params: { kind: 'import', resourceId: copyId },
    });
    expect(job.body).toMatchObject({ state: 'done', progress: { rowsDone: 60 }, errorCount: 0 });

    expect(await csvOf(t, copyId)).toBe(exported);
  });

  it('through the analysis: integers, 1 and 3 decimals, checked and unchecked checkboxes keep their values and their displayed form', async () => {
    const decimal = (precision: number) => ({ formatting: { type: 'decimal', precision } });
    const t = await newTable({
      name: 'Measures',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Count', options: decimal(0) },
        { type: 'number', name: 'Weight', options: decimal(1) },
        { type: 'number', name: 'Ratio', options: decimal(3) },
        { type: 'number', name: 'Price' },
        { type: 'checkbox', name: 'Done' },
      ],
      records: [
        { fields: { Name: 'a', Count: 1, Weight: 2.5, Ratio: 0.125, Price: 3, Done: true } },
        { fields: { Name: 'b', Count: 20, Weight: 10, Ratio: 1, Price: 4.5 } },
        { fields: { Name: 'c', Count: -3, Weight: 0.1, Ratio: -2.5, Price: 1234.56, Done: true } },
        { fields: { Name: 'd', Count: 0 } },
      ],
    });
    const exported = await csvOf(t, t.tableId);
    const file = await uploadFile(
      t.owner.auth,
      t.baseId,
      new TextEncoder().encode(exported),
      'text/csv',
      'measures.csv',
    );

    const analyzed = await call('analyze-import-file', {
      token: t.owner.auth,
      query: `attachmentUrl=${encodeURIComponent(file.presignedUrl)}&fileType=csv`,
    });
    expect(analyzed.status, JSON.stringify(analyzed.body)).toBe(200);
    const columns = analyzed.body.worksheets['Import Table'].columns as Record<string, unknown>[];
    const copyId = await importCsv(
      t,
      exported,
      columns.map((c, i) => ({ ...c, sourceColumnIndex: i })),
    );

    // what the export shows: integers bare, each column's decimals, an unchecked box empty as Teable writes it
    expect(exported).toBe(
      '\uFEFFName,Count,Weight,Ratio,Price,Done\r\n' +
        'a,1,2.5,0.125,3.00,true\r\n' +
        'b,20,10.0,1.000,4.50,\r\n' +
        'c,-3,0.1,-2.500,1234.56,true\r\n' +
        'd,0,,,,\r\n',
    );
    // the analysis answers Teable's {type, name}; the import takes each number column's precision from the file
    expect(columns).toEqual([
      { name: 'Name', type: 'singleLineText' },
      { name: 'Count', type: 'number' },
      { name: 'Weight', type: 'number' },
      { name: 'Ratio', type: 'number' },
      { name: 'Price', type: 'number' },
      { name: 'Done', type: 'checkbox' },
    ]);
    const [source, copy] = await Promise.all([fieldsOf(t, t.tableId), fieldsOf(t, copyId)]);
    expect(copy.map(({ name, type, options }) => ({ name, type, options }))).toEqual(
      source.map(({ name, type, options }) => ({ name, type, options })),
    );
    expect(await cellsOf(t, copyId)).toEqual(await cellsOf(t, t.tableId));
    expect(await csvOf(t, copyId)).toBe(exported);
  });

  it("a column's own options (ours: Teable's columns have none) are taken as they are, not inferred", async () => {
    const t = await newTable({
      name: 'Counts',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 0 } } },
      ],
      records: [{ fields: { Name: 'a', Count: 7 } }, { fields: { Name: 'b', Count: 12 } }],
    });
    const exported = await csvOf(t, t.tableId);
    const currency = { formatting: { type: 'currency', precision: 1, symbol: '€' } };

    const copyId = await importCsv(t, exported, [
      { name: 'Name', type: 'singleLineText', sourceColumnIndex: 0 },
      { name: 'Count', type: 'number', sourceColumnIndex: 1, options: currency },
    ]);

    expect((await fieldsOf(t, copyId)).map((f) => f.options.formatting)).toEqual([
      undefined,
      currency.formatting,
    ]);
    expect(await cellsOf(t, copyId)).toEqual([
      { Name: 'a', Count: 7 },
      { Name: 'b', Count: 12 },
    ]);
  });
});
