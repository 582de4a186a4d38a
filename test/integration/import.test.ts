import { describe, expect, it } from 'vitest';
import { IMPORT_CHUNK, PACE_LAG_MS, paceImportsAt, runImport } from '#shared/bulk/import.ts';
import { reportCaptureLag } from '#shared/changes/capture-lag.ts';
import { config } from '#shared/config.ts';
import { ConflictError } from '#shared/core/errors.ts';
import { documentClient, transact } from '#shared/db/client.ts';
import { injectChunkFault, JOURNAL_STALE_MS, LEASE_MS, recoverInterrupted } from '#shared/db/commit.ts';
import { readAttachment } from '#shared/entities/attachments.ts';
import { appendChanges } from '#shared/entities/change-log.ts';
import { startImportOp } from '#shared/entities/import-jobs.ts';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { invalid, notFound } from '#test/support/answers.ts';
import { pngOf, uploadFile } from '#test/support/attachments.ts';
import { call } from '#test/support/invoke.ts';
import { newTable, newWorkspace } from '#test/support/workspace.ts';

/**
 * CSV import (issue 30, data-flow.md 7): analyze, import into a new table, append through a column
 * map; run by the worker (in this process, awaited with `drainPurges`); files that cannot be read
 * fail the import before any row is written; values typecast cannot take are reported.
 */

type Caller = { auth: string };
const utf8 = (text: string) => new TextEncoder().encode(text);
const upload = async (ws: { owner: Caller; baseId: string }, bytes: Uint8Array, name = 'data.csv') =>
  (await uploadFile(ws.owner.auth, ws.baseId, bytes, 'text/csv', name)).token;

const analyze = (caller: Caller, token: string, fileType = 'csv') =>
  call('analyze-import-file', { token: caller.auth, query: `attachmentUrl=${token}&fileType=${fileType}` });

const importNew = (
  ws: { owner: Caller; baseId: string },
  token: string,
  columns: { type: string; name: string; sourceColumnIndex: number }[],
  useFirstRowAsHeader = true,
) =>
  call('import-table-from-file', {
    token: ws.owner.auth,
    params: { baseId: ws.baseId },
    body: {
      worksheets: { 'Import Table': { name: 'Imported', columns, useFirstRowAsHeader, importData: true } },
      attachmentUrl: token,
      fileType: 'csv',
      tz: 'UTC',
    },
  });

const job = (caller: Caller, tableId: string) =>
  call('get-job', { token: caller.auth, params: { kind: 'import', resourceId: tableId } });

/** Every record's cells as text, page by page (a chunk is as large as a page). */
const rowsOf = async (caller: Caller, tableId: string) => {
  const rows: Record<string, string>[] = [];
  for (;;) {
    const res = await call('list-records', {
      token: caller.auth,
      params: { tableId },
      query: `take=1000&skip=${rows.length}&cellFormat=text`,
    });
    const page = (res.body.records as { fields: Record<string, string> }[]).map((r) => r.fields);
    rows.push(...page);
    if (page.length < 1000) return rows;
  }
};

/** An import's job written as the route writes it, not sent (the test runs it with `runImport`). */
const startByHand = async (t: Awaited<ReturnType<typeof newTable>>, token: string) => {
  const file = await readAttachment(token);
  const fieldId = (t.table.fields as { id: string }[])[0]?.id as string;
  await transact(
    [
      startImportOp(
        {
          tableId: t.tableId,
          baseId: t.baseId,
          userId: t.owner.id,
          userName: 'Owner',
          userEmail: 'owner@example.com',
          token,
          path: file?.path as string,
          fileType: 'csv',
          columns: [{ fieldId, index: 0 }],
          skipFirst: true,
        },
        new Date(),
      ),
    ],
    () => new ConflictError('exists'),
  );
  return fieldId;
};

const PRODUCTS =
  'Name,Price,Added,Active,Notes\r\nBolt,1.50,2024-01-02,true,"line one\nline two"\r\nNut,"1,200",2024-02-03,false,plain\r\n';

describe('CSV import', () => {
  it('analyze proposes names and types from the head of the file', async () => {
    const ws = await newWorkspace();
    const rows = Array.from({ length: 30 }, (_, i) => `r${i},${i % 3 === 0 ? 'red' : 'blue'},${i}`).join(
      '\n',
    );
    const token = await upload(ws, utf8(`Name,Color,Count\n${rows}\n`), 'colors.csv');

    const res = await analyze(ws.owner, token);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      worksheets: {
        'Import Table': {
          name: 'colors',
          columns: [
            { type: 'singleLineText', name: 'Name' },
            { type: 'singleSelect', name: 'Color' },
            { type: 'number', name: 'Count' },
          ],
        },
      },
    });
    const types = await analyze(ws.owner, await upload(ws, utf8(PRODUCTS)));
    expect(types.body.worksheets['Import Table'].columns.map((c: { type: string }) => c.type)).toEqual([
      'singleLineText',
      'number',
      'date',
      'checkbox',
      'longText',
    ]);
  });

  it('imports into a new table: answered at once, rows written by the worker, progress and report readable', async () => {
    const ws = await newWorkspace();
    const token = await upload(ws, utf8(`${PRODUCTS}Washer,abc,2024-03-04,true,bad price\r\n`));
    // analyze would make Price text (it holds "abc"): the caller chooses number
    const columns = [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Price' },
      { type: 'date', name: 'Added' },
      { type: 'checkbox', name: 'Active' },
      { type: 'longText', name: 'Notes' },
    ].map((c, i) => ({ ...c, sourceColumnIndex: i }));

    const res = await importNew(ws, token, columns);

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toHaveLength(1);
    const table = res.body[0];
    expect(table.fields.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['Name', 'singleLineText'],
      ['Price', 'number'],
      ['Added', 'date'],
      ['Active', 'checkbox'],
      ['Notes', 'longText'],
    ]);
    await drainPurges();
    const rows = await rowsOf(ws.owner, table.id);
    expect(rows.map((r) => [r.Name, r.Price, r.Active ?? '', r.Notes ?? ''])).toEqual([
      ['Bolt', '1.50', 'true', 'line one\nline two'],
      ['Nut', '1200.00', '', 'plain'],
      ['Washer', undefined, 'true', 'bad price'],
    ]);
    const status = await job(ws.owner, table.id);
    expect(status.body).toMatchObject({
      kind: 'import',
      state: 'done',
      progress: { rowsDone: 3, rowsTotal: 3 },
      errorCount: 1,
      errors: [{ row: 4, column: 'Price', reason: '"abc" is not a number' }],
    });
  });

  it('appends through a column map (a column skipped, the header excluded), reporting a row too wide', async () => {
    const t = await newTable({
      fields: [
        { type: 'singleLineText', name: 'Title' },
        { type: 'number', name: 'Qty' },
      ],
      records: [{ fields: { Title: 'kept', Qty: 1 } }],
    });
    const token = await upload(t, utf8('qty,ignored,title\n5,x,five\n6,y,six,extra\n'));
    const fields = t.table.fields as { id: string; name: string }[];
    const id = (name: string) => fields.find((f) => f.name === name)?.id as string;

    const res = await call('inplace-import-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
      body: {
        attachmentUrl: token,
        fileType: 'csv',
        insertConfig: {
          sourceWorkSheetKey: 'Import Table',
          excludeFirstRow: true,
          sourceColumnMap: { [id('Title')]: 2, [id('Qty')]: 0 },
        },
      },
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await drainPurges();
    const rows = await rowsOf(t.owner, t.tableId);
    expect(rows.map((r) => `${r.Title}=${r.Qty}`)).toEqual(['kept=1.00', 'five=5.00', 'six=6.00']);
    expect((await job(t.owner, t.tableId)).body).toMatchObject({
      state: 'done',
      progress: { rowsDone: 2, rowsTotal: 2 },
      errors: [{ row: 3, reason: expect.stringContaining('4 cells') }],
    });
  });

  it('files that cannot be read fail the import before any row is written, saying why', async () => {
    const ws = await newWorkspace();
    const cases: [string, Uint8Array, RegExp][] = [
      ['latin-1', new Uint8Array([0x4e, 0x61, 0x6d, 0x65, 0x0a, 0x43, 0x61, 0x66, 0xe9, 0x0a]), /not UTF-8/],
      ['a quote never closed', utf8('A,B\n1,"open\n2,3\n'), /quoted field is never closed/],
      ['a 5 MB line', utf8(`A\n${'x'.repeat(5 * 1024 * 1024)}\n`), /longer than 1 MB/],
      [
        '2,000 columns',
        utf8(`${Array.from({ length: 2000 }, (_, i) => `c${i}`).join(',')}\n`),
        /2000 columns/,
      ],
      ['blank lines only', utf8('\n\n\n'), /no rows/],
    ];
    for (const [what, bytes, reason] of cases) {
      const token = await upload(ws, bytes);
      const analyzed = await analyze(ws.owner, token);
      expect(analyzed, what).toMatchObject(invalid(reason));
      const res = await importNew(ws, token, [{ type: 'singleLineText', name: 'A', sourceColumnIndex: 0 }]);
      expect(res.status, what).toBe(201);
      await drainPurges();
      const tableId = res.body[0].id as string;
      expect((await job(ws.owner, tableId)).body, what).toMatchObject({
        state: 'failed',
        failure: expect.stringMatching(reason),
      });
      expect(await rowsOf(ws.owner, tableId), what).toEqual([]);
    }
  });

  it('refuses what is no CSV upload of the caller: an image, Excel, a URL elsewhere, another user’s file', async () => {
    const ws = await newWorkspace();
    const png = (await uploadFile(ws.owner.auth, ws.baseId, pngOf(2, 2), 'image/png', 'a.png')).token;
    expect(await analyze(ws.owner, png)).toMatchObject(invalid(/image\/png, not CSV/));
    const csv = await upload(ws, utf8('A\n1\n'));
    expect(await analyze(ws.owner, csv, 'excel')).toMatchObject(invalid(/Excel/));
    expect(await analyze(ws.owner, 'https://example.com/data.csv')).toMatchObject(
      invalid(/uploaded to this service/),
    );
    const other = await newWorkspace();
    expect(await analyze(other.owner, csv)).toMatchObject(notFound(/Attachment/));
    // the notify answer's presignedUrl names the file too
    const stored = await readAttachment(csv);
    const url = `http://127.0.0.1:1/attachments/${stored?.path}?X-Amz-Signature=x`;
    expect((await analyze(ws.owner, encodeURIComponent(url))).status).toBe(200);
  });

  it('waits while the change capture is more than PACE_LAG_MS behind: nothing written until it catches up, then every row', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
    const rows = IMPORT_CHUNK + 3;
    const token = await upload(
      t,
      utf8(`N\n${Array.from({ length: rows }, (_, i) => `row${i}`).join('\n')}\n`),
    );
    await startByHand(t, token);
    let lag = PACE_LAG_MS + 1;
    reportCaptureLag(() => lag);
    try {
      // the budget is asked while it waits: spent after a few asks, the run stops having written nothing
      let asked = 0;
      expect(await runImport(t.tableId, () => ++asked < 4)).toBe(false);
      expect(asked).toBe(4);
      expect(await rowsOf(t.owner, t.tableId)).toEqual([]);
      // caught up after the first chunk's wait: the rest follows
      let waits = 0;
      expect(
        await runImport(t.tableId, () => {
          if (++waits === 2) lag = 0;
          return true;
        }),
      ).toBe(true);
      expect(await rowsOf(t.owner, t.tableId)).toHaveLength(rows);
    } finally {
      reportCaptureLag(undefined);
    }
  });

  it('in a deployed stage, tells the lag by the base’s log: waits after a chunk the log has not reached, goes on once it has', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
    const rows = IMPORT_CHUNK * 2 + 7;
    const token = await upload(
      t,
      utf8(`N\n${Array.from({ length: rows }, (_, i) => `row${i}`).join('\n')}\n`),
    );
    await startByHand(t, token);
    const settable = config as { importPacesByLog: boolean };
    settable.importPacesByLog = true;
    // any chunk not yet in the log is too far behind (no capture runs here: the test plays it)
    paceImportsAt(0);
    const count = async () =>
      (await call('get-row-count', { token: t.owner.auth, params: { tableId: t.tableId } })).body.rowCount;
    try {
      // the first chunk goes (nothing written yet), then it waits for it: the budget asked while waiting
      let asked = 0;
      expect(await runImport(t.tableId, () => ++asked < 2)).toBe(false);
      expect(await count()).toBe(IMPORT_CHUNK);
      // the capture reaches past the first chunk: an entry newer than its write in the base's log
      await appendChanges(
        t.baseId,
        [
          {
            sourceId: `pacing-${t.tableId}`,
            type: 'record.updated',
            baseId: t.baseId,
            tableId: t.tableId,
            actor: { id: 'system' },
            occurredAt: new Date().toISOString(),
            txId: 'pacing',
          },
        ],
        Math.floor(Date.now() / 1000) + 3600,
      );
      // a new run: the second chunk goes, then it waits for that one
      asked = 0;
      expect(await runImport(t.tableId, () => ++asked < 2)).toBe(false);
      expect(await count()).toBe(IMPORT_CHUNK * 2);
      // not paced (no capture to wait for): the rest
      settable.importPacesByLog = false;
      expect(await runImport(t.tableId, () => true)).toBe(true);
      expect(await count()).toBe(rows);
    } finally {
      settable.importPacesByLog = false;
      paceImportsAt();
    }
  });

  it('resumes after a stop between chunks: every row once', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
    const rows = IMPORT_CHUNK * 2 + 7;
    const token = await upload(
      t,
      utf8(`N\n${Array.from({ length: rows }, (_, i) => `row${i}`).join('\n')}\n`),
    );
    // a budget spent after the first chunk
    await startByHand(t, token);

    expect(await runImport(t.tableId, () => false)).toBe(false);
    const halfway = await rowsOf(t.owner, t.tableId);
    expect(halfway).toHaveLength(IMPORT_CHUNK);
    expect(await runImport(t.tableId, () => true)).toBe(true);

    const all = await call('get-row-count', { token: t.owner.auth, params: { tableId: t.tableId } });
    expect(all.body.rowCount).toBe(rows);
    const names = new Set<string>();
    for (let skip = 0; skip < rows; skip += 1000) {
      const page = await call('list-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        query: `take=1000&skip=${skip}`,
      });
      for (const r of page.body.records) names.add(r.fields.N);
    }
    expect(names.size).toBe(rows);
  });

  /** Every row's N of the table, read a thousand at a time. */
  const allNames = async (t: Awaited<ReturnType<typeof newTable>>, rows: number) => {
    const names: string[] = [];
    for (let skip = 0; skip < rows + 1000; skip += 1000) {
      const page = await call('list-records', {
        token: t.owner.auth,
        params: { tableId: t.tableId },
        query: `take=1000&skip=${skip}`,
      });
      for (const r of page.body.records) names.push(r.fields.N);
    }
    return names.sort();
  };

  it.each([
    ['the repair runs before the import resumes', true],
    ['the import resumes before the repair runs', false],
  ])(
    "a worker killed in the middle of a chunk's write: every row once in the end (%s)",
    async (_, repairFirst) => {
      const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
      const rows = IMPORT_CHUNK * 2 + 7;
      const token = await upload(
        t,
        utf8(`N\n${Array.from({ length: rows }, (_, i) => `row${i}`).join('\n')}\n`),
      );
      await startByHand(t, token);
      // the second chunk's write dies after two of its units: nothing more reaches the table (its
      // own undo included), as when the process is gone; its journal and head stay behind
      let writes = 0;
      let dead = false;
      const name = `dead-${Math.random()}`;
      injectChunkFault((unit) => {
        if (unit === 0) writes++;
        if (writes === 2 && unit === 2) {
          dead = true;
          throw new Error('the worker died');
        }
      });
      documentClient.middlewareStack.add(
        (next) => async (args) => {
          if (dead) throw Object.assign(new Error('no process'), { name: 'TimeoutError' });
          return next(args);
        },
        { step: 'initialize', name },
      );
      try {
        await expect(runImport(t.tableId, () => true)).rejects.toThrow();
      } finally {
        injectChunkFault(undefined);
        documentClient.middlewareStack.remove(name);
      }
      const written = (await allNames(t, rows)).length;
      expect(written).toBeGreaterThan(IMPORT_CHUNK); // the first chunk and part of the second
      expect(written).toBeLessThan(IMPORT_CHUNK * 2);
      const lateRepair = () => recoverInterrupted(t.tableId, Date.now() + LEASE_MS + JOURNAL_STALE_MS);

      if (repairFirst) expect(await lateRepair()).toBeGreaterThan(0);
      expect(await runImport(t.tableId, () => true)).toBe(true);
      if (!repairFirst) expect(await lateRepair()).toBeGreaterThan(0);

      expect(await allNames(t, rows)).toEqual(Array.from({ length: rows }, (_, i) => `row${i}`).sort());
      const count = await call('get-row-count', { token: t.owner.auth, params: { tableId: t.tableId } });
      expect(count.body.rowCount).toBe(rows);
      const job = await call('get-job', {
        token: t.owner.auth,
        params: { kind: 'import', resourceId: t.tableId },
      });
      expect(job.body.progress).toEqual({ rowsDone: rows, rowsTotal: rows });
    },
  );

  it('two workers running one import at once (a message delivered twice): every row once in the end', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
    const rows = IMPORT_CHUNK * 2 + 7;
    const token = await upload(
      t,
      utf8(`N\n${Array.from({ length: rows }, (_, i) => `row${i}`).join('\n')}\n`),
    );
    await startByHand(t, token);

    const runs = await Promise.allSettled([
      runImport(t.tableId, () => true),
      runImport(t.tableId, () => true),
    ]);
    // a run that lost a chunk to the other stopped, its chunk's write to be undone by the repair
    await recoverInterrupted(t.tableId, Date.now() + LEASE_MS + JOURNAL_STALE_MS);
    if (runs.some((r) => r.status === 'rejected')) expect(await runImport(t.tableId, () => true)).toBe(true);

    expect(await allNames(t, rows)).toEqual(Array.from({ length: rows }, (_, i) => `row${i}`).sort());
  });

  it('one import into a table at a time: a second while one runs is a 409', async () => {
    const t = await newTable({ fields: [{ type: 'singleLineText', name: 'N' }], records: [] });
    const token = await upload(t, utf8('N\na\n'));
    const fieldId = await startByHand(t, token);
    const res = await call('inplace-import-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId, tableId: t.tableId },
      body: {
        attachmentUrl: token,
        fileType: 'csv',
        insertConfig: {
          sourceWorkSheetKey: 'Import Table',
          excludeFirstRow: true,
          sourceColumnMap: { [fieldId]: 0 },
        },
      },
    });
    expect(res.status).toBe(409);
    await runImport(t.tableId, () => true);
  });
});

describe('Excel import', () => {
  const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  const workbook = async () => {
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    const people = book.addWorksheet('People');
    people.addRow(['Name', 'Born', 'Height', 'Member']);
    people.addRow(['Ada', new Date(Date.UTC(1815, 11, 10)), 1.65, true]);
    people.addRow(['Alan', new Date(Date.UTC(1912, 5, 23)), 1.78, false]);
    const notes = book.addWorksheet('Notes');
    notes.addRow(['Text']);
    notes.addRow([{ richText: [{ text: 'bold ' }, { text: 'and plain' }] }]);
    notes.addRow([{ formula: '1+1', result: 2 }]);
    return new Uint8Array(await book.xlsx.writeBuffer());
  };

  it('analyzes every worksheet and imports one into a new table', async () => {
    const ws = await newWorkspace();
    const token = (await uploadFile(ws.owner.auth, ws.baseId, await workbook(), XLSX, 'people.xlsx')).token;

    const analyzed = await analyze(ws.owner, token, 'excel');

    expect(analyzed.status, JSON.stringify(analyzed.body)).toBe(200);
    expect(analyzed.body.worksheets).toEqual({
      People: {
        name: 'People',
        columns: [
          { type: 'singleLineText', name: 'Name' },
          { type: 'date', name: 'Born' },
          { type: 'number', name: 'Height' },
          { type: 'checkbox', name: 'Member' },
        ],
      },
      Notes: { name: 'Notes', columns: [{ type: 'singleLineText', name: 'Text' }] },
    });
    const res = await call('import-table-from-file', {
      token: ws.owner.auth,
      params: { baseId: ws.baseId },
      body: {
        worksheets: {
          Notes: {
            name: 'Notes',
            columns: [{ type: 'singleLineText', name: 'Text', sourceColumnIndex: 0 }],
            useFirstRowAsHeader: true,
            importData: true,
          },
          People: {
            name: 'People',
            columns: analyzed.body.worksheets.People.columns.map((c: object, i: number) => ({
              ...c,
              sourceColumnIndex: i,
            })),
            useFirstRowAsHeader: true,
            importData: true,
          },
        },
        attachmentUrl: token,
        fileType: 'excel',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await drainPurges();
    const [notes, people] = res.body as { id: string }[];
    expect((await rowsOf(ws.owner, notes?.id as string)).map((r) => r.Text)).toEqual(['bold and plain', '2']);
    expect(
      (await rowsOf(ws.owner, people?.id as string)).map((r) => [
        r.Name,
        r.Born?.slice(0, 10),
        r.Height,
        r.Member ?? '',
      ]),
    ).toEqual([
      ['Ada', '1815-12-10', '1.65', 'true'],
      ['Alan', '1912-06-23', '1.78', ''],
    ]);
  });

  it('refuses a CSV declared as Excel and bytes that are no workbook', async () => {
    const ws = await newWorkspace();
    const csv = await upload(ws, utf8('A\n1\n'));
    expect(await analyze(ws.owner, csv, 'excel')).toMatchObject(invalid(/not an Excel workbook/));
  });
});
