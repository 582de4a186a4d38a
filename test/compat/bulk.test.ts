/**
 * Bulk data out (issue 30) through Teable's own client (`@teable/openapi` 1.10.0): its
 * `exportCsvFromTable`, pointed at the local server, for a small table (the CSV itself) and for one
 * whose CSV is too large to answer (axios follows the redirect to the S3-compatible server).
 */
import {
  configApi,
  createBase,
  createRecords,
  createSpace,
  createTable,
  exportCsvFromTable,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_BYTES } from '#shared/bulk/export.ts';
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
