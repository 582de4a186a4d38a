import { describe, expect, it } from 'vitest';
import { invalid } from '#test/support/answers.ts';
import { uploadFile } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Attachment cells in listings, history and the feed (issue 29 item 7; listing.md, fields.md,
 * data-flow.md 2–3): filters isEmpty / isNotEmpty only, search and `cellFormat=text` by the items'
 * `name (token)`, sorting by the cell's JSON text; a change of the cell is in the record's history
 * and the base's feed with the items (no download URLs: those are signed per answer).
 */

const poller = useStreamPoller();

const setUp = async () => {
  const t = await newTable({
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'attachment', name: 'Files' },
    ],
    records: [],
  });
  const report = await uploadFile(
    t.owner.auth,
    t.baseId,
    new TextEncoder().encode('q3'),
    'text/plain',
    'report.txt',
  );
  const photo = await uploadFile(
    t.owner.auth,
    t.baseId,
    new TextEncoder().encode('x'),
    'text/plain',
    'zebra.txt',
  );
  const created = await call('create-records', {
    token: t.owner.auth,
    params: { tableId: t.tableId },
    body: {
      records: [
        { fields: { Name: 'with report', Files: [{ token: report.token }] } },
        { fields: { Name: 'empty' } },
        { fields: { Name: 'with zebra', Files: [{ token: photo.token }] } },
      ],
    },
  });
  expect(created.status).toBe(201);
  const filesId = (t.table.fields as { id: string; name: string }[]).find((f) => f.name === 'Files')
    ?.id as string;
  return {
    t,
    report,
    photo,
    filesId,
    ids: created.body.records.map((r: { id: string }) => r.id) as string[],
  };
};

const names = (res: { body: { records: { fields: { Name?: string } }[] } }) =>
  res.body.records.map((r) => r.fields.Name);

describe('attachment cells', () => {
  it('filter isEmpty / isNotEmpty; any other operator is a 400', async () => {
    const { t, filesId } = await setUp();
    const list = (filter: unknown) =>
      call('list-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        query: `filter=${encodeURIComponent(JSON.stringify(filter))}`,
      });
    const where = (operator: string, value: unknown = null) => ({
      conjunction: 'and',
      filterSet: [{ fieldId: filesId, operator, value }],
    });

    expect(names(await list(where('isNotEmpty')))).toEqual(['with report', 'with zebra']);
    expect(names(await list(where('isEmpty')))).toEqual(['empty']);
    const refused = await list(where('is', 'report.txt'));
    expect(refused.status).toBe(400);
    expect(refused).toMatchObject(invalid(/operator/));
  });

  it('search finds a record by a file name; cellFormat=text answers name (token)', async () => {
    const { t, filesId, report } = await setUp();
    const found = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `search[]=zebra&search[]=${filesId}&search[]=true`,
    });
    expect(names(found)).toEqual(['with zebra']);

    const text = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: 'cellFormat=text',
    });
    expect(text.body.records[0].fields.Files).toBe(`report.txt (${report.token})`);
  });

  it('sorts by the cell (empty first ascending), without error', async () => {
    const { t, filesId } = await setUp();
    const sorted = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `orderBy=${encodeURIComponent(JSON.stringify([{ fieldId: filesId, order: 'asc' }]))}`,
    });
    expect(sorted.status).toBe(200);
    expect(names(sorted)[0]).toBe('empty');
    expect(names(sorted).slice(1).sort()).toEqual(['with report', 'with zebra']);
  });

  it("a changed cell is in the record's history and the base's feed, with its items", async () => {
    const { t, filesId, ids, report, photo } = await setUp();
    const recordId = ids[0] as string;
    const updated = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId },
      body: { record: { fields: { Files: [{ token: report.token }, { token: photo.token }] } } },
    });
    expect(updated.status).toBe(200);
    await poller.caughtUp();

    const history = await call('get-record-history', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId },
    });
    const entry = history.body.historyList.find((h: { fieldId: string }) => h.fieldId === filesId);
    expect(entry.before.meta).toMatchObject({ name: 'Files', type: 'attachment' });
    expect(entry.before.data.map((a: { token: string }) => a.token)).toEqual([report.token]);
    expect(entry.after.data.map((a: { token: string; name: string }) => [a.token, a.name])).toEqual([
      [report.token, 'report.txt'],
      [photo.token, 'zebra.txt'],
    ]);
    expect(entry.after.data[1]).toMatchObject({ path: photo.path, size: 1, mimetype: 'text/plain' });

    const feed = await call('list-changes', { token: t.owner.auth, params: { baseId: t.baseId } });
    const change = feed.body.changes.find(
      (c: { type: string; recordId?: string }) => c.type === 'record.updated' && c.recordId === recordId,
    );
    expect(change.after[filesId].map((a: { token: string }) => a.token)).toEqual([report.token, photo.token]);
    expect(change.before[filesId].map((a: { token: string }) => a.token)).toEqual([report.token]);
  });
});
