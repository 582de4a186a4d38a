import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10.5: the two forms of `DELETE /table/{tableId}/record` (ids in the query, ids in a JSON
 * body) follow the same rules. In process, so the query form is not cut short by API Gateway's
 * 10 KB request line: each list is sent both ways, to twin tables, and must get the same answer.
 */

type Ids = [string, string];
const twoRecords = async () => {
  const t = await newTable({
    fields: [{ name: 'Name', type: 'singleLineText' }],
    records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }],
  });
  return { ...t, ids: (t.table.records as { id: string }[]).map((r) => r.id) as Ids };
};

/** A message or cells with the two tables' own ids blanked out, so the twins compare. */
const withoutIds = (value: unknown) =>
  JSON.stringify(value).replace(/\b(rec|tbl|fld)[0-9A-Za-z]{16}\b/g, '$1…');

const remaining = async (t: Awaited<ReturnType<typeof twoRecords>>) => {
  const res = await call('list-records', { token: t.owner.auth, params: { tableId: t.tableId } });
  return (res.body.records as { id: string }[]).length;
};

describe('batch delete: query form and body form', () => {
  it.each<[string, (ids: Ids) => string[], number, string | undefined]>([
    ['both records', (ids) => ids, 200, undefined],
    ['one record twice', (ids) => [ids[0], ids[0]], 200, undefined],
    ['an id not in the table', (ids) => [ids[0], newId('record')], 404, 'not_found'],
    ['an id of another kind', (ids) => [ids[0], newId('table')], 400, 'validation_error'],
    ['a text that is no id', (ids) => [ids[0], 'x'], 400, 'validation_error'],
    [
      '1001 ids',
      (ids) => [...ids, ...Array.from({ length: 999 }, () => newId('record'))],
      413,
      'payload_too_large',
    ],
  ])('%s: the same answer either way', async (_, list, status, code) => {
    const [viaQuery, viaBody] = await Promise.all([twoRecords(), twoRecords()]);

    const q = await call('delete-records', {
      token: viaQuery.owner.auth,
      params: { tableId: viaQuery.tableId },
      query: list(viaQuery.ids)
        .map((id) => `recordIds[]=${encodeURIComponent(id)}`)
        .join('&'),
    });
    const b = await call('delete-records', {
      token: viaBody.owner.auth,
      params: { tableId: viaBody.tableId },
      body: { recordIds: list(viaBody.ids) },
    });

    expect(q.status).toBe(status);
    expect(b.status).toBe(status);
    expect(b.body.code).toBe(code);
    expect(q.body.code).toBe(code);
    // The same message, but for where the list was (query.recordIds / body.recordIds).
    if (status >= 400)
      expect(withoutIds(b.body.message.replaceAll('body.', 'query.'))).toBe(withoutIds(q.body.message));
    else
      expect(withoutIds(b.body.records.map((r: { fields: unknown }) => r.fields))).toBe(
        withoutIds(q.body.records.map((r: { fields: unknown }) => r.fields)),
      );
    expect(await remaining(viaBody)).toBe(await remaining(viaQuery));
  });
});
