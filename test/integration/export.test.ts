import { describe, expect, it } from 'vitest';
import { DIRECT_BYTES } from '#shared/bulk/export.ts';
import { documentClient } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { drainPurges, runPurgesInProcess } from '#shared/jobs/purge-queue.ts';
import { runPurgeJob } from '#shared/trash/job-runner.ts';
import { notFound } from '#test/support/answers.ts';
import { call } from '#test/support/invoke.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

/**
 * `GET /export/{tableId}` (issue 30, data-flow.md 7): CSV, UTF-8 with BOM, RFC 4180 (CRLF, quotes
 * doubled, fields with commas, quotes or line breaks quoted), cells in their text form; a view's
 * filter, sort and visible fields; a file too large to answer goes to the S3-compatible server and
 * the answer redirects to it.
 */

const csvOf = (res: { body: unknown; headers?: Record<string, string> }) => String(res.body);

const exportOf = (t: { owner: { auth: string }; tableId: string }, query = '', token = t.owner.auth) =>
  call('export-table-csv', { token, params: { tableId: t.tableId }, query });

const table = () =>
  newTable({
    name: 'Stock',
    fields: [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 1 } } },
      { type: 'longText', name: 'Notes' },
      { type: 'checkbox', name: 'Done' },
      { type: 'multipleSelect', name: 'Tags', options: { choices: [{ name: 'a' }, { name: 'b' }] } },
    ],
    records: [
      {
        fields: { Name: 'Bolt, M4', Count: 3, Notes: 'says "hi"\nsecond line', Done: true, Tags: ['a', 'b'] },
      },
      { fields: { Name: 'Nut', Count: 12.5 } },
      { fields: { Name: 'Ünïcødé ✓', Notes: '=SUM(A1)' } },
    ],
  });

describe('GET /export/{tableId}', () => {
  it('answers the table as CSV: BOM, header of field names, RFC 4180 quoting, CRLF, text forms', async () => {
    const t = await table();

    const res = await exportOf(t);

    expect(res.status).toBe(200);
    expect(res.headers?.['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers?.['content-disposition']).toBe("attachment; filename*=UTF-8''Stock.csv");
    expect(csvOf(res)).toBe(
      '\uFEFFName,Count,Notes,Done,Tags\r\n' +
        '"Bolt, M4",3.0,"says ""hi""\nsecond line",true,"a, b"\r\n' +
        'Nut,12.5,,,\r\n' +
        'Ünïcødé ✓,,=SUM(A1),,\r\n',
    );
  });

  it("a view's filter, sort and visible fields, in its column order", async () => {
    const t = await table();
    const fields = t.table.fields as { id: string; name: string }[];
    const id = (name: string) => fields.find((f) => f.name === name)?.id as string;
    const view = await call('create-view', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      body: {
        name: 'Counted',
        type: 'grid',
        filter: {
          conjunction: 'and',
          filterSet: [{ fieldId: id('Count'), operator: 'isNotEmpty', value: null }],
        },
        sort: { sortObjs: [{ fieldId: id('Count'), order: 'desc' }] },
        columnMeta: {
          [id('Notes')]: { hidden: true },
          [id('Tags')]: { hidden: true },
          [id('Done')]: { hidden: true },
        },
      },
    });
    expect(view.status).toBe(201);

    const res = await exportOf(t, `viewId=${view.body.id}`);

    expect(res.status).toBe(200);
    expect(res.headers?.['content-disposition']).toBe(
      `attachment; filename*=UTF-8''${encodeURIComponent('Stock - Counted.csv')}`,
    );
    expect(csvOf(res)).toBe('\uFEFFName,Count\r\nNut,12.5\r\n"Bolt, M4",3.0\r\n');
  });

  it("follows a view's manual order (a record moved), with or without the view named", async () => {
    const t = await newTable({
      name: 'Order',
      fields: [{ type: 'singleLineText', name: 'N' }],
      records: [{ fields: { N: 'a' } }, { fields: { N: 'b' } }, { fields: { N: 'c' } }],
    });
    const [a, , c] = (t.table.records as { id: string }[]).map((r) => r.id);
    const moved = await call('update-record-order', {
      token: t.owner.auth,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { anchorId: a, position: 'before', recordIds: [c] },
    });
    expect(moved.status).toBe(200);

    expect(csvOf(await exportOf(t))).toBe('\uFEFFN\r\nc\r\na\r\nb\r\n');
    expect(csvOf(await exportOf(t, `viewId=${t.viewId}`))).toBe('\uFEFFN\r\nc\r\na\r\nb\r\n');
  });

  it('an empty table is its header alone; a viewer may export; an unknown view is a 404; another user gets a 403 or 404', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'Only' }], records: [] });
    expect(csvOf(await exportOf(t))).toBe('\uFEFFOnly\r\n');
    const viewer = await newMember(t, 'viewer');
    expect((await exportOf(t, '', viewer.auth)).status).toBe(200);
    expect(await exportOf(t, 'viewId=viwAAAAAAAAAAAAAAAA')).toMatchObject(notFound(/view/i));
    const other = await newTable();
    expect([403, 404]).toContain((await exportOf(t, '', other.owner.auth)).status);
  });

  it('a file larger than an answer may carry goes to the bucket: a 302 to a download URL that gives the whole CSV', async () => {
    const notes = 'x'.repeat(40_000);
    const rows = Math.ceil(DIRECT_BYTES / notes.length) + 5;
    const t = await newTable({
      name: 'Big',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'longText', name: 'Notes' },
      ],
      records: [],
    });
    for (let i = 0; i < rows; i += 50)
      await call('create-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        body: {
          records: Array.from({ length: Math.min(50, rows - i) }, (_, j) => ({
            fields: { Name: `r${i + j}`, Notes: notes },
          })),
        },
      });

    const res = await exportOf(t);

    expect(res.status).toBe(302);
    const location = res.headers?.location as string;
    expect(location).toMatch(/\/export\/[A-Za-z0-9_-]{32}\/Big\.csv\?.*X-Amz-Signature=/);
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain('Big.csv');
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(
      new Uint8Array(await file.arrayBuffer()),
    );
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('\uFEFFName,Notes');
    expect(lines).toHaveLength(rows + 2); // header, rows, and the empty text after the last CRLF
    expect(new Set(lines.slice(1, -1).map((l) => l.split(',')[1]))).toEqual(new Set([notes]));
    expect(text.length).toBeGreaterThan(DIRECT_BYTES);
  });
});

describe('GET /export/{tableId} too large for one request', () => {
  const ROWS = 5_000;
  /** A table of ROWS records, and its whole CSV as a request answers it when there is time. */
  const bigTable = async () => {
    const t = await newTable({
      name: 'Many',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'N' },
      ],
      records: [],
    });
    for (let i = 0; i < ROWS; i += 1000)
      await call('create-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        body: {
          records: Array.from({ length: 1000 }, (_, j) => ({ fields: { Name: `r${i + j}`, N: i + j } })),
        },
      });
    const whole = await exportOf(t);
    expect(whole.status).toBe(200);
    return { ...t, csv: csvOf(whole) };
  };

  /** Runs `work` while every read of the table's records takes 800 ms (a slow store), for export calls given 4 s. */
  const whileSlow = async <T>(tableId: string, work: () => Promise<T>): Promise<T> => {
    const records = keys.recordsOf(tableId).pk;
    const name = `slow-${Math.random()}`;
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        const command = (context as { commandName?: string }).commandName;
        if (command === 'BatchGetItemCommand' && JSON.stringify(args.input).includes(records))
          await new Promise((r) => setTimeout(r, 800));
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      return await work();
    } finally {
      documentClient.middlewareStack.remove(name);
    }
  };
  const exportIn4s = (t: { owner: { auth: string }; tableId: string }) =>
    call('export-table-csv', { token: t.owner.auth, params: { tableId: t.tableId }, timeoutMs: 4_000 });

  const download = async (location: string) =>
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(
      new Uint8Array(await (await fetch(location)).arrayBuffer()),
    );

  it('is handed to the worker (503 with Retry-After, no file cut); the retry is redirected to the whole file', async () => {
    const t = await bigTable();

    const { first, again } = await whileSlow(t.tableId, async () => {
      const first = await exportIn4s(t);
      // asked again while the worker writes it: the same answer, nothing started twice
      const again = await exportIn4s(t);
      await drainPurges();
      return { first, again };
    });

    expect(first.status).toBe(503);
    expect(first.body.message).toMatch(/5,000 records .* being written in the background; retry/);
    expect(Number(first.headers?.['retry-after'])).toBeGreaterThanOrEqual(5);
    expect(again.status).toBe(503);
    expect(again.body.message).toMatch(/being written|background/);
    const retry = await exportIn4s(t);
    expect(retry.status).toBe(302);
    const location = retry.headers?.location as string;
    expect(location).toMatch(/\/export\/[A-Za-z0-9_-]{32}\/Many\.csv\?/);
    expect(await download(location)).toBe(t.csv);
    // the retries' file stays the same one for 10 minutes after the hand-over, even after a record changed
    const records = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: 'take=1',
    });
    const edited = await call('update-record', {
      token: t.owner.auth,
      params: { tableId: t.tableId, recordId: records.body.records[0].id },
      body: { record: { fields: { Name: 'edited' } } },
    });
    expect(edited.status).toBe(200);
    const later = await exportIn4s(t);
    expect(later.status).toBe(302);
    expect(new URL(later.headers?.location as string).pathname).toBe(new URL(location).pathname);
  });

  it('a change of the columns makes the next export anew (not the earlier file)', async () => {
    const t = await bigTable();
    await whileSlow(t.tableId, async () => {
      expect((await exportIn4s(t)).status).toBe(503);
      await drainPurges();
    });
    const fields = t.table.fields as { id: string; name: string }[];
    const renamed = await call('update-field', {
      token: t.owner.auth,
      params: { tableId: t.tableId, fieldId: fields[1]?.id as string },
      body: { name: 'Number' },
    });
    expect(renamed.status).toBe(200);

    // with a request's whole time, answered directly, with the new header
    const res = await exportOf(t);

    expect(res.status).toBe(200);
    expect(csvOf(res)).toBe(t.csv.replace('Name,N\r\n', 'Name,Number\r\n'));
  });

  it('an export the worker cannot finish in its time is given up and answered 422 with why, not retried forever', async () => {
    const t = await bigTable();
    // the worker's budget is spent from the start
    runPurgesInProcess((job) => runPurgeJob(job, () => false));
    try {
      await whileSlow(t.tableId, async () => {
        expect((await exportIn4s(t)).status).toBe(503);
        await drainPurges();
      });
    } finally {
      runPurgesInProcess(runPurgeJob);
    }

    const res = await exportIn4s(t);

    expect(res).toMatchObject({
      status: 422,
      body: {
        code: 'export_too_large',
        message: expect.stringMatching(/5,000 records did not finish in the worker's time/),
      },
    });
  });
});
