import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { randomBase62 } from '#shared/ids.ts';
import { seedRecords } from '#test/bench/seed.ts';
import { newUser } from '#test/support/fixtures.ts';
import { newBaseOverHttp, useTestServer } from '#test/support/server.ts';

const api = useTestServer();

/** A raw GET (no automatic decompression): status, headers and body bytes. */
const rawGet = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });

/** A table with a long text field and 1000 records whose Notes are `notes(i)`, made over HTTP and seeded. */
const wideTable = async (notes: (i: number) => string) => {
  const user = await newUser();
  const token = user.auth;
  const baseId = await newBaseOverHttp(api, token, 'Wide');
  const table = await api.request('POST', `/base/${baseId}/table`, {
    token,
    body: {
      name: 'Wide',
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Notes', type: 'longText' },
      ],
      records: [],
    },
  });
  expect(table.status).toBe(201);
  const [name, note] = table.body.fields.map((f: { id: string }) => f.id) as [string, string];
  await seedRecords(table.body.id, 1000, (i) => ({ [name]: `row ${i}`, [note]: notes(i) }));
  return { token, url: `${api.base}/table/${table.body.id}/record` };
};

describe('list records over HTTP: response size', () => {
  it('gzips a 1000-record page when the caller accepts it, and not otherwise', async () => {
    const t = await wideTable(
      (i) => `Line ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(60)}`,
    );
    const zipped = await rawGet(`${t.url}?take=1000`, {
      authorization: t.token,
      'accept-encoding': 'gzip, deflate',
    });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const answer = JSON.parse(gunzipSync(zipped.body).toString('utf8'));
    expect(answer.records).toHaveLength(1000);
    expect(answer.records[999].name).toBe('row 999');
    expect(zipped.body.length).toBeLessThan(Buffer.byteLength(JSON.stringify(answer)) / 5);

    const plain = await rawGet(`${t.url}?take=1000`, { authorization: t.token });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString('utf8'))).toEqual(answer);

    // A small answer is not worth compressing.
    const small = await rawGet(`${t.url}?take=1&projection=Name`, {
      authorization: t.token,
      'accept-encoding': 'gzip',
    });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8')).records).toHaveLength(1);
  });

  it('answers 413 asking for a lower take when even the compressed page passes 6 MB', async () => {
    const t = await wideTable(() => randomBase62(8000));
    for (const headers of [{ 'accept-encoding': 'gzip' }, {}] as Record<string, string>[]) {
      const res = await rawGet(`${t.url}?take=1000`, { authorization: t.token, ...headers });
      expect(res.status).toBe(413);
      expect(res.headers['content-encoding']).toBeUndefined();
      const body = JSON.parse(res.body.toString('utf8'));
      expect(body).toMatchObject({ status: 413, code: 'payload_too_large' });
      expect(body.message).toMatch(/lower `take`/);
    }
    const fits = await rawGet(`${t.url}?take=200`, { authorization: t.token, 'accept-encoding': 'gzip' });
    expect(fits.status).toBe(200);
    expect(JSON.parse(gunzipSync(fits.body).toString('utf8')).records).toHaveLength(200);
  });
});
