import { describe, expect, it } from 'vitest';
import { randomBase62 } from '#shared/ids.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

interface Ref {
  id: string;
}

/** A user with a space, a base and a table `Deals` made over HTTP, as a client would. */
const dealsTable = async () => {
  const user = await newUser({ name: 'Dana' });
  const token = user.auth;
  const space = await api.request('POST', '/space', { token, body: { name: 'Sales' } });
  expect(space.status).toBe(201);
  const base = await api.request('POST', '/base', { token, body: { spaceId: space.body.id } });
  expect(base.status).toBe(201);
  const table = await api.request('POST', `/base/${base.body.id}/table`, {
    token,
    body: {
      name: 'Deals',
      fields: [
        { name: 'Name', type: 'singleLineText' },
        {
          name: 'Amount',
          type: 'number',
          options: { formatting: { type: 'currency', precision: 2, symbol: '$' } },
        },
        { name: 'Stage', type: 'singleSelect', options: { choices: [{ name: 'open' }] } },
      ],
      records: [],
    },
  });
  expect(table.status).toBe(201);
  return {
    token,
    baseId: base.body.id as string,
    tableId: table.body.id as string,
    viewId: table.body.views[0].id as string,
  };
};

describe('records over HTTP', () => {
  it('creates records with typecast, places them, edits with If-Match and deletes', async () => {
    const t = await dealsTable();
    const recordPath = `/table/${t.tableId}/record`;

    // A second table to link to, written by title.
    const owners = await api.request('POST', `/base/${t.baseId}/table`, {
      token: t.token,
      body: { name: 'Owners', records: [{ fields: { Name: 'Ann' } }, { fields: { Name: 'Bo' } }] },
    });
    expect(owners.status).toBe(201);
    const [ann, bo] = owners.body.records.map((r: Ref) => r.id) as [string, string];
    const link = await api.request('POST', `/table/${t.tableId}/field`, {
      token: t.token,
      body: { type: 'link', options: { relationship: 'manyMany', foreignTableId: owners.body.id } },
    });
    expect(link).toMatchObject({ status: 201, body: { name: 'Owners', type: 'link' } });

    const created = await api.request('POST', recordPath, {
      token: t.token,
      body: {
        typecast: true,
        records: [
          { fields: { Name: 'alpha', Amount: '$1,200.50', Stage: 'open', Owners: 'Ann, Bo' } },
          { fields: { Name: 'beta', Amount: '7', Stage: 'won', Owners: ['Bo', 'Nobody'] } },
          { fields: { Name: 'gamma', Amount: 'n/a' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.records.map((r: { fields: unknown }) => r.fields)).toEqual([
      {
        Name: 'alpha',
        Amount: 1200.5,
        Stage: 'open',
        Owners: [
          { id: ann, title: 'Ann' },
          { id: bo, title: 'Bo' },
        ],
      },
      { Name: 'beta', Amount: 7, Stage: 'won', Owners: [{ id: bo, title: 'Bo' }] },
      { Name: 'gamma' },
    ]);
    const [alpha, beta, gamma] = created.body.records.map((r: Ref) => r.id) as [string, string, string];
    // typecast added the choice `won`; the other side of the link shows the deals.
    const stage = await api.request('GET', `/table/${t.tableId}/field`, { token: t.token });
    expect(
      stage.body
        .find((f: { name: string }) => f.name === 'Stage')
        .options.choices.map((c: { name: string }) => c.name),
    ).toEqual(['open', 'won']);
    const boRecord = await api.request('GET', `/table/${owners.body.id}/record/${bo}`, { token: t.token });
    expect(boRecord.body.fields.Deals).toEqual([
      { id: alpha, title: 'alpha' },
      { id: beta, title: 'beta' },
    ]);

    // Order: move gamma first, then create delta right before beta.
    const moved = await api.request('PUT', `/table/${t.tableId}/view/${t.viewId}/record-order`, {
      token: t.token,
      body: { anchorId: alpha, position: 'before', recordIds: [gamma] },
    });
    expect(moved.status).toBe(200);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([gamma, alpha, beta]);
    const delta = await api.request('POST', recordPath, {
      token: t.token,
      body: {
        records: [{ fields: { Name: 'delta' } }],
        order: { viewId: t.viewId, anchorId: beta, position: 'before' },
      },
    });
    expect(delta.status).toBe(201);
    const deltaId = delta.body.records[0].id as string;
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([gamma, alpha, deltaId, beta]);
    const selfAnchor = await api.request('PUT', `/table/${t.tableId}/view/${t.viewId}/record-order`, {
      token: t.token,
      body: { anchorId: beta, position: 'after', recordIds: [beta] },
    });
    // the anchor among the moved records stays where it was, as in Teable
    expect(selfAnchor.status).toBe(200);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([gamma, alpha, deltaId, beta]);

    // If-Match: the ETag from GET lets one PATCH through; the stale one is a 412 and writes nothing.
    const read = await api.request('GET', `${recordPath}/${alpha}`, { token: t.token });
    expect(read.status).toBe(200);
    const etag = read.headers.get('etag') as string;
    expect(etag).toBe('"1"');
    const patched = await api.request('PATCH', `${recordPath}/${alpha}`, {
      token: t.token,
      headers: { 'if-match': etag },
      body: { record: { fields: { Amount: 1300 } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.fields.Amount).toBe(1300);
    expect(patched.headers.get('etag')).toBe('"2"');
    const stale = await api.request('PATCH', `${recordPath}/${alpha}`, {
      token: t.token,
      headers: { 'if-match': etag },
      body: { record: { fields: { Amount: 1 } } },
    });
    expect(stale).toMatchObject({
      status: 412,
      body: {
        message: `Record ${alpha} changed since the ETag "1"`,
        status: 412,
        code: 'precondition_failed',
      },
    });
    const text = await api.request('GET', `${recordPath}/${alpha}?cellFormat=text`, { token: t.token });
    expect(text.body.fields).toEqual({
      Name: 'alpha',
      Amount: '$1,300.00',
      Stage: 'open',
      Owners: 'Ann, Bo',
    });

    // DELETE: a stale If-Match is a 412; then the record goes, fields keyed by id, on both link sides.
    const staleDelete = await api.request('DELETE', `${recordPath}/${alpha}`, {
      token: t.token,
      headers: { 'if-match': '"1"' },
    });
    expect(staleDelete.status).toBe(412);
    const deleted = await api.request('DELETE', `${recordPath}/${alpha}`, {
      token: t.token,
      headers: { 'if-match': '"2"' },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: alpha, name: 'alpha' });
    expect(deleted.body.fields[link.body.id]).toEqual([
      { id: ann, title: 'Ann' },
      { id: bo, title: 'Bo' },
    ]);
    const gone = await api.request('GET', `${recordPath}/${alpha}`, { token: t.token });
    expect(gone).toMatchObject({ status: 404, body: { status: 404, code: 'not_found' } });
    const annRecord = await api.request('GET', `/table/${owners.body.id}/record/${ann}`, { token: t.token });
    expect(annRecord.body.fields).toEqual({ Name: 'Ann' });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([gamma, deltaId, beta]);
  });

  it('replays a create with the same Idempotency-Key without writing again; another body is a 409', async () => {
    const t = await dealsTable();
    const key = `create-${randomBase62(12)}`;
    const body = { records: [{ fields: { Name: 'once', Amount: 5 } }] };
    const first = await api.request('POST', `/table/${t.tableId}/record`, {
      token: t.token,
      headers: { 'idempotency-key': key },
      body,
    });
    expect(first.status).toBe(201);
    const again = await api.request('POST', `/table/${t.tableId}/record`, {
      token: t.token,
      headers: { 'idempotency-key': key },
      body,
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([first.body.records[0].id]);
    const other = await api.request('POST', `/table/${t.tableId}/record`, {
      token: t.token,
      headers: { 'idempotency-key': key },
      body: { records: [{ fields: { Name: 'twice' } }] },
    });
    expect(other).toMatchObject({ status: 409, body: { status: 409, code: 'conflict' } });
    expect(await viewOrderIds(t.tableId, t.viewId)).toHaveLength(1);

    // A batch PATCH replayed under its key answers the first answer and writes once (ETag "2").
    const id = first.body.records[0].id as string;
    const patch = { records: [{ id, fields: { Amount: 6 } }] };
    const headers = { 'idempotency-key': `patch-${randomBase62(12)}` };
    const p1 = await api.request('PATCH', `/table/${t.tableId}/record`, {
      token: t.token,
      headers,
      body: patch,
    });
    const p2 = await api.request('PATCH', `/table/${t.tableId}/record`, {
      token: t.token,
      headers,
      body: patch,
    });
    expect(p1.status).toBe(200);
    expect(p2.body).toEqual(p1.body);
    expect(p1.body[0].fields).toEqual({ Name: 'once', Amount: 6 });
    const read = await api.request('GET', `/table/${t.tableId}/record/${id}`, { token: t.token });
    expect(read.headers.get('etag')).toBe('"2"');
  });

  it('answers an unknown field key with a 404 error body and writes nothing', async () => {
    const t = await dealsTable();
    const res = await api.request('POST', `/table/${t.tableId}/record`, {
      token: t.token,
      body: { records: [{ fields: { Name: 'x' } }, { fields: { Nope: 1 } }] },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Field name: Nope not found', status: 404, code: 'not_found' });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });

  it('answers 1001 records with a 413 error body and writes nothing', async () => {
    const t = await dealsTable();
    const res = await api.request('POST', `/table/${t.tableId}/record`, {
      token: t.token,
      body: { records: Array.from({ length: 1001 }, (_, i) => ({ fields: { Name: `r${i}` } })) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      message: 'At most 1000 records per call',
      status: 413,
      code: 'payload_too_large',
    });
    expect(await viewOrderIds(t.tableId, t.viewId)).toEqual([]);
  });
});
