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
});
