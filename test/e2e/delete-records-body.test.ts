import { describe, expect, it } from 'vitest';
import { newId } from '#shared/ids.ts';
import { useTestServer } from '#test/support/server.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Issue 10.5: `DELETE /table/{tableId}/record` takes its ids in a JSON body `{recordIds}` as well
 * as in the query (Teable's client), with the same rules; both at once is a 400.
 */

const api = useTestServer();

/** A table of three records, made in process; the calls under test go over HTTP. */
const threeRecords = async () => {
  const t = await newTable({
    fields: [{ name: 'Name', type: 'singleLineText' }],
    records: [{ fields: { Name: 'a' } }, { fields: { Name: 'b' } }, { fields: { Name: 'c' } }],
  });
  const ids = (t.table.records as { id: string }[]).map((r) => r.id) as [string, string, string];
  const listed = async () => {
    const res = await api.request('GET', `/table/${t.tableId}/record`, { token: t.owner.auth });
    return (res.body.records as { id: string }[]).map((r) => r.id).sort();
  };
  return { ...t, ids, listed, path: `/table/${t.tableId}/record` };
};

describe('batch delete with the ids in the JSON body', () => {
  it('deletes the records named in {recordIds} and answers them as they were', async () => {
    const t = await threeRecords();

    const res = await api.request('DELETE', t.path, {
      token: t.owner.auth,
      body: { recordIds: [t.ids[0], t.ids[2]] },
    });

    expect(res.status).toBe(200);
    expect(
      res.body.records.map((r: { id: string; fields: Record<string, unknown> }) => [
        r.id,
        Object.values(r.fields),
      ]),
    ).toEqual([
      [t.ids[0], ['a']],
      [t.ids[2], ['c']],
    ]);
    expect(await t.listed()).toEqual([t.ids[1]]);
  });

  it('answers 404 and deletes nothing when one id of the body is not a record of the table', async () => {
    const t = await threeRecords();

    const res = await api.request('DELETE', t.path, {
      token: t.owner.auth,
      body: { recordIds: [t.ids[0], newId('record')] },
    });

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(await t.listed()).toEqual([...t.ids].sort());
  });

  it('refuses ids in both the query and the body with 400, deleting nothing', async () => {
    const t = await threeRecords();

    const res = await api.request('DELETE', `${t.path}?recordIds[]=${t.ids[0]}`, {
      token: t.owner.auth,
      body: { recordIds: [t.ids[1]] },
    });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: 'Give recordIds in the query or in the JSON body, not both',
      details: [
        { path: 'query.recordIds', message: 'given with body.recordIds' },
        { path: 'body.recordIds', message: 'given with query.recordIds' },
      ],
    });
    expect(await t.listed()).toEqual([...t.ids].sort());
  });

  it('refuses a call with no ids in either place with a 400 naming both forms', async () => {
    const t = await threeRecords();

    const res = await api.request('DELETE', t.path, { token: t.owner.auth });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: 'recordIds is required: in the query (recordIds[]=…) or in a JSON body {"recordIds": [...]}',
      details: [{ path: 'query.recordIds', message: 'required (or body.recordIds)' }],
    });
  });

  it('answers 413 for 1001 ids in the body, as for 1001 records in any call, deleting nothing', async () => {
    const t = await threeRecords();
    const many = [...t.ids, ...Array.from({ length: 998 }, () => newId('record'))];

    const res = await api.request('DELETE', t.path, { token: t.owner.auth, body: { recordIds: many } });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      status: 413,
      code: 'payload_too_large',
      message: 'At most 1000 records per call',
    });
    expect(await t.listed()).toEqual([...t.ids].sort());
  });

  it.each([
    ['recordIds is a string', { recordIds: 'rec' }, 'body.recordIds', /expected array/],
    ['recordIds is an object', { recordIds: { 0: 'x' } }, 'body.recordIds', /expected array/],
    ['recordIds is empty', { recordIds: [] }, 'body.recordIds', />=1/],
    [
      'an id is not a record id',
      { recordIds: ['tbl0000000000000000'] },
      'body.recordIds.0',
      /must be an id starting with rec/,
    ],
    ['an id is a number', { recordIds: [42] }, 'body.recordIds.0', /expected string/],
    ['the body is an array', ['rec'], 'body', /expected object/],
  ])('answers 400 naming the place when %s', async (_, body, path, message) => {
    const t = await threeRecords();

    const res = await api.request('DELETE', t.path, { token: t.owner.auth, body });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.details[0].path).toBe(path);
    expect(res.body.details[0].message).toMatch(message);
    expect(await t.listed()).toEqual([...t.ids].sort());
  });

  it('answers 400 for a body that is not JSON and 415 for one that is not declared JSON', async () => {
    const t = await threeRecords();

    const broken = await api.request('DELETE', t.path, { token: t.owner.auth, body: '{"recordIds": [' });
    const plain = await api.request('DELETE', t.path, {
      token: t.owner.auth,
      body: JSON.stringify({ recordIds: [t.ids[0]] }),
      headers: { 'content-type': 'text/plain' },
    });

    expect(broken.body).toEqual({
      status: 400,
      code: 'validation_error',
      message: 'The body is not valid JSON',
    });
    expect(plain.status).toBe(415);
    expect(plain.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(await t.listed()).toEqual([...t.ids].sort());
  });
});
