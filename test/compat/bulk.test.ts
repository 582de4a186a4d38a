/**
 * Bulk data in and out (issue 30) through Teable's own client (`@teable/openapi` 1.10.0), pointed at
 * the local server: `exportCsvFromTable` for a small table (the CSV itself) and for one whose CSV is
 * too large to answer (axios follows the redirect to the S3-compatible server); `analyzeFile`,
 * `importTableFromFile` and `inplaceImportTableFromFile` with a CSV uploaded as the client uploads
 * (getSignature, PUT, notify), the import's rows written by the worker (in this process).
 */
import {
  analyzeFile,
  analyzeVoSchema,
  configApi,
  createBase,
  createRecords,
  createSpace,
  createTable,
  exportCsvFromTable,
  getRecords,
  getSignature,
  importTableFromFile,
  inplaceImportTableFromFile,
  notify,
  SUPPORTEDTYPE,
  tableVoSchema,
  UploadType,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_BYTES } from '#shared/bulk/export.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

beforeAll(async () => {
  const user = await newUser({ name: 'Compat bulk' });
  configApi({ token: user.token, endpoint: api.base.replace(/\/api$/, '') });
});

const newBase = async () => {
  const space = await createSpace({ name: 'Bulk' });
  return (await createBase({ spaceId: space.data.id })).data.id;
};

describe("exportCsvFromTable through Teable's client", () => {
  it('answers the CSV of a small table', async () => {
    const table = await createTable(await newBase(), {
      name: 'Parts',
      fields: [
        { name: 'Name', type: 'singleLineText' as never },
        { name: 'Qty', type: 'number' as never },
      ],
      records: [{ fields: { Name: 'Bolt', Qty: 4 } }, { fields: { Name: 'Nut, hex' } }],
    });

    const res = await exportCsvFromTable(table.data.id);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    // axios decodes the text and drops the byte order mark (the bytes carry it: test/integration/export.test.ts)
    expect(res.data).toBe('Name,Qty\r\nBolt,4.00\r\n"Nut, hex",\r\n');
  });

  it('follows the redirect of a large export to the whole file', async () => {
    const table = await createTable(await newBase(), {
      name: 'Long',
      fields: [
        { name: 'Name', type: 'singleLineText' as never },
        { name: 'Text', type: 'longText' as never },
      ],
      records: [],
    });
    const text = 'y'.repeat(50_000);
    const rows = Math.ceil(DIRECT_BYTES / text.length) + 3;
    for (let i = 0; i < rows; i += 40)
      await createRecords(table.data.id, {
        records: Array.from({ length: Math.min(40, rows - i) }, (_, j) => ({
          fields: { Name: `n${i + j}`, Text: text },
        })),
      });

    const res = await exportCsvFromTable(table.data.id);

    expect(res.status).toBe(200);
    const csv = String(res.data);
    expect(csv.startsWith('Name,Text\r\n')).toBe(true);
    expect(csv.split('\r\n')).toHaveLength(rows + 2);
  });
});

/** A CSV uploaded as Teable's client uploads it; answers the notify answer. */
const uploadCsv = async (baseId: string, text: string) => {
  const bytes = new TextEncoder().encode(text);
  const signature = await getSignature({
    type: UploadType.Import,
    contentType: 'text/csv',
    contentLength: bytes.length,
    baseId,
  });
  await fetch(signature.data.url, {
    method: signature.data.uploadMethod,
    headers: signature.data.requestHeaders as Record<string, string>,
    body: bytes,
  });
  return (await notify(signature.data.token, undefined, 'people.csv')).data;
};

describe("import through Teable's client", () => {
  it('analyzeFile, importTableFromFile, then inplaceImportTableFromFile appends', async () => {
    const baseId = await newBase();
    const file = await uploadCsv(baseId, 'Name,Age\nAda,36\nAlan,41\n');

    const analyzed = await analyzeFile({ attachmentUrl: file.presignedUrl, fileType: SUPPORTEDTYPE.CSV });
    expect(analyzeVoSchema.parse(analyzed.data)).toEqual(analyzed.data);
    const [key, sheet] = Object.entries(analyzed.data.worksheets)[0] as [
      string,
      { name: string; columns: { type: string; name: string }[] },
    ];
    expect(sheet.columns).toEqual([
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Age' },
    ]);

    const imported = await importTableFromFile(baseId, {
      worksheets: {
        [key]: {
          name: sheet.name,
          columns: sheet.columns.map((c, i) => ({ ...c, type: c.type as never, sourceColumnIndex: i })),
          useFirstRowAsHeader: true,
          importData: true,
        },
      },
      attachmentUrl: file.presignedUrl,
      fileType: SUPPORTEDTYPE.CSV,
      tz: 'UTC',
    });
    const table = imported.data[0];
    expect(tableVoSchema.parse(table)).toBeTruthy();
    await drainPurges();
    const tableId = table?.id as string;
    const names = async () =>
      (await getRecords(tableId, { fieldKeyType: 'name' as never })).data.records.map((r) => [
        r.fields.Name,
        r.fields.Age,
      ]);
    expect(await names()).toEqual([
      ['Ada', 36],
      ['Alan', 41],
    ]);

    const more = await uploadCsv(baseId, 'Grace,85\n');
    const fields = table?.fields as { id: string; name: string }[];
    await inplaceImportTableFromFile(baseId, tableId, {
      attachmentUrl: more.presignedUrl,
      fileType: SUPPORTEDTYPE.CSV,
      insertConfig: {
        sourceWorkSheetKey: key,
        excludeFirstRow: false,
        sourceColumnMap: Object.fromEntries(fields.map((f, i) => [f.id, i])),
      },
    });
    await drainPurges();
    expect(await names()).toEqual([
      ['Ada', 36],
      ['Alan', 41],
      ['Grace', 85],
    ]);
  });
});
