/**
 * Figures of bulk data in and out (issue 30): a CSV of `BULK_ROWS` (100,000) rows × 10 columns
 * imported into a new table (rows per second, this process's peak memory: the worker runs in it);
 * one of 20 columns imported too, and that table exported as CSV (time, peak memory, bytes); an
 * upsert of 1,000 records, half of them new (round trips, items read and written).
 *
 * Run inside `npm run bench`, or alone: `tsx test/bench/bulk.ts`.
 */
import { isScript, runAlone } from './alone.ts';
import { startCsvImport, uploadCsv } from './csv-import.ts';

const ROWS = Number(process.env.BULK_ROWS || 100_000);

/** Samples this process's resident memory every 20 ms while `run` runs; answers the peak rise in MB. */
const peakDuring = async <T>(run: () => Promise<T>): Promise<{ value: T; peakMb: number; ms: number }> => {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  try {
    const value = await run();
    return { value, peakMb: (peak - base) / 1048576, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
};

export const bulkBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const { callSummary, resetCalls, itemsRead, itemsWritten } = await import('#shared/db/metrics.ts');

  const space = await call('create-space', { token, body: { name: 'Bulk' } });
  const base = await call('create-base', { token, body: { spaceId: space.body.id } });
  const baseId = base.body.id as string;
  console.log(`\n## Bulk data in and out (${ROWS.toLocaleString('en')} rows)\n`);

  const colors = ['red', 'green', 'blue', 'amber'];
  /** A CSV of ROWS rows and `width` columns (10 kinds of values, repeated), uploaded; its token and size. */
  const csvOf = async (width: number) => {
    const kinds = [
      { name: 'Name', type: 'singleLineText', cell: (i: number) => `Item ${i}` },
      { name: 'Code', type: 'singleLineText', cell: (i: number) => `C-${(i * 7919) % 100000}` },
      { name: 'Qty', type: 'number', cell: (i: number) => String(i % 500) },
      { name: 'Price', type: 'number', cell: (i: number) => String((i % 997) / 10) },
      {
        name: 'Added',
        type: 'date',
        cell: (i: number) =>
          `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      },
      { name: 'Color', type: 'singleSelect', cell: (i: number) => colors[i % 4] as string },
      { name: 'Active', type: 'checkbox', cell: (i: number) => String(i % 3 === 0) },
      { name: 'City', type: 'singleLineText', cell: (i: number) => `City ${i % 50}` },
      { name: 'Notes', type: 'longText', cell: (i: number) => `"note ${i}, more"` },
      { name: 'Score', type: 'number', cell: (i: number) => String(i % 100) },
    ];
    const columns = Array.from({ length: width }, (_, c) => {
      const kind = kinds[c % kinds.length] as (typeof kinds)[number];
      return {
        ...kind,
        name: c < kinds.length ? kind.name : `${kind.name} ${Math.floor(c / kinds.length) + 1}`,
      };
    });
    const parts: string[] = [`${columns.map((c) => c.name).join(',')}\n`];
    for (let i = 0; i < ROWS; i++) parts.push(`${columns.map((c) => c.cell(i)).join(',')}\n`);
    const bytes = new TextEncoder().encode(parts.join(''));
    return { token: await uploadCsv(token, baseId, bytes), size: bytes.length, columns };
  };
  /** Imports a CSV of `width` columns into a new table; answers the table, the time and the peak memory. */
  const importOf = async (width: number) => {
    const file = await csvOf(width);
    resetCalls();
    const run = await peakDuring(async () => {
      const tableId = await startCsvImport(token, baseId, file.token, `Bench import ${width}`, file.columns);
      await drainPurges();
      return tableId;
    });
    const work = callSummary();
    const written = itemsWritten();
    const job = await call('get-job', { token, params: { kind: 'import', resourceId: run.value } });
    console.log(
      `Import of ${ROWS.toLocaleString('en')} rows × ${width} columns (${(file.size / 1048576).toFixed(1)} MB CSV): ${(run.ms / 1000).toFixed(1)} s, ${Math.round(ROWS / (run.ms / 1000)).toLocaleString('en')} rows/s (${againstCeilings(ROWS / (run.ms / 1000))}), this process's memory up to +${run.peakMb.toFixed(0)} MB; ${job.body.progress?.rowsDone} rows written, ${job.body.errorCount} reported; ${work.calls.toLocaleString('en')} calls in ${work.sequentialRoundTrips.toLocaleString('en')} round trips, ${(written / ROWS).toFixed(1)} items written per row.`,
    );
    return run.value;
  };

  // 0. the store's ceilings on this machine: what an import could reach at most
  const { documentClient, TABLE, writeItems } = await import('#shared/db/client.ts');
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { newRecordItem, putRecordNumberOp } = await import('#shared/entities/records.ts');
  const ceilingItems = 20_000;
  const filler = 'x'.repeat(300);
  const timed = async (write: () => Promise<unknown>) => {
    const started = performance.now();
    await write();
    return (performance.now() - started) / 1000;
  };
  const transactional =
    ceilingItems /
    (await timed(async () => {
      for (let from = 0; from < ceilingItems; from += 1000)
        await Promise.all(
          Array.from({ length: 10 }, (_, t) =>
            documentClient.send(
              new TransactWriteCommand({
                TransactItems: Array.from({ length: 100 }, (_, i) => ({
                  Put: {
                    TableName: TABLE,
                    Item: { pk: 'BENCH#ceiling', sk: `${from + t * 100 + i}`, filler },
                  },
                })),
              }),
            ),
          ),
        );
    }));
  // BatchWriteItem: 25 items a call, 8 calls in flight (the client's writeItems, as large writes use it)
  const batched =
    ceilingItems /
    (await timed(() =>
      writeItems(
        Array.from({ length: ceilingItems }, (_, i) => ({ put: { pk: 'BENCH#batch', sk: `${i}`, filler } })),
      ),
    ));
  // the import's own items (a record of 10 cells and its default-order entry), batched the same way:
  // the rate no import through this store can pass here
  const rowCeilingRows = 10_000;
  const user = { id: 'usrBench', title: 'Bench', email: 'bench@example.com' };
  const now = new Date().toISOString();
  const rowItems = Array.from({ length: rowCeilingRows }, (_, i) => {
    const id = `recBench${String(i).padStart(8, '0')}`;
    const cells = new Map<string, never>(
      Array.from({ length: 10 }, (_, c) => [`fld${c}`, (c % 2 ? i * c : `value ${c} of row ${i}`) as never]),
    );
    return [
      { put: newRecordItem('tblBenchCeiling', { id, autoNumber: i + 1, cells, user, now }) },
      putRecordNumberOp('tblBenchCeiling', i + 1, id) as { put: Record<string, unknown> },
    ];
  }).flat();
  const rowCeiling = rowCeilingRows / (await timed(() => writeItems(rowItems)));
  console.log(
    `The store's ceilings here: ${ceilingItems.toLocaleString('en')} items of 300 bytes in transactions of 100, ten at a time: ${Math.round(transactional).toLocaleString('en')} items/s (about ${Math.round(transactional / 2.1).toLocaleString('en')} rows/s at an import's 2.1 items a row); in BatchWriteItem calls of 25, 8 in flight: ${Math.round(batched).toLocaleString('en')} items/s (${(batched / transactional).toFixed(1)}× the transactional); ${rowCeilingRows.toLocaleString('en')} rows as an import writes them (a record of 10 cells and its order entry) in such batches: ${Math.round(rowCeiling).toLocaleString('en')} rows/s.`,
  );
  const againstCeilings = (rowsPerSecond: number) =>
    `${Math.round((rowsPerSecond / rowCeiling) * 100)}% of the batched rows' ceiling, ${Math.round(((rowsPerSecond * 2.1) / transactional) * 100)}% of the transactional one`;

  // 1. import of 10 columns (goal ≥ 2,200 rows/s; Teable's perf-lab: import ≈ 216 rows/s, bulk create ≈ 443)
  await importOf(10);
  // 1b. the API's own batch create in the same run: 1,000 records a request, 2 requests in flight
  const createRows = Math.min(ROWS, 20_000);
  const created = await call('create-table', {
    token,
    params: { baseId },
    body: {
      name: 'Batch create',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'singleLineText', name: 'Code' },
        { type: 'number', name: 'Qty' },
        { type: 'number', name: 'Price' },
        { type: 'date', name: 'Added' },
        { type: 'singleSelect', name: 'Color', options: { choices: colors.map((name) => ({ name })) } },
        { type: 'checkbox', name: 'Active' },
        { type: 'singleLineText', name: 'City' },
        { type: 'longText', name: 'Notes' },
        { type: 'number', name: 'Score' },
      ],
      records: [],
    },
  });
  const rowOf = (i: number) => ({
    fields: {
      Name: `Item ${i}`,
      Code: `C-${(i * 7919) % 100000}`,
      Qty: i % 500,
      Price: (i % 997) / 10,
      Added: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00.000Z`,
      Color: colors[i % 4],
      Active: i % 3 === 0 ? true : null,
      City: `City ${i % 50}`,
      Notes: `note ${i}, more`,
      Score: i % 100,
    },
  });
  const createSeconds = await timed(async () => {
    for (let from = 0; from < createRows; from += 2000)
      await Promise.all(
        [from, from + 1000].map(async (at) => {
          const res = await call('create-records', {
            token,
            params: { tableId: created.body.id },
            body: { records: Array.from({ length: 1000 }, (_, i) => rowOf(at + i)) },
          });
          if (res.status !== 201 && res.status !== 200)
            throw new Error(`create-records: ${res.status} ${JSON.stringify(res.body)}`);
        }),
      );
  });
  console.log(
    `The API's batch create, ${createRows.toLocaleString('en')} records of 10 fields (1,000 a request, 2 requests in flight): ${createSeconds.toFixed(1)} s, ${Math.round(createRows / createSeconds).toLocaleString('en')} rows/s (${againstCeilings(createRows / createSeconds)}).`,
  );

  // 2. export of 20 fields (the table imported with 20 columns)
  const tableId = await importOf(20);
  const exported = await peakDuring(async () => {
    const res = await call('export-table-csv', { token, params: { tableId } });
    if (res.status === 302) {
      const file = await fetch(res.headers?.location as string);
      return { status: 302, size: (await file.arrayBuffer()).byteLength };
    }
    if (res.status !== 200) throw new Error(`export: ${res.status} ${JSON.stringify(res.body)}`);
    return { status: res.status, size: Buffer.byteLength(String(res.body)) };
  }).catch((error: unknown) => {
    console.log(
      `Export of the ${ROWS.toLocaleString('en')} rows × 20 fields failed: ${(error as Error).message}`,
    );
    return undefined;
  });
  if (exported)
    console.log(
      `Export of the ${ROWS.toLocaleString('en')} rows × 20 fields: ${(exported.ms / 1000).toFixed(1)} s (${exported.value.status === 302 ? 'written to the bucket, answered with a redirect; the download included' : 'answered directly'}), ${(exported.value.size / 1048576).toFixed(1)} MB of CSV, this process's memory up to +${exported.peakMb.toFixed(0)} MB (goal ≤ 256 MB).`,
    );

  // 3. upsert 1,000 records, half matching existing ones (merged on Name, not unique: one read of the table)
  const small = await call('create-table', {
    token,
    params: { baseId },
    body: {
      name: 'Upsert',
      fields: [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Qty' },
      ],
      records: [],
    },
  });
  const smallId = small.body.id as string;
  for (let i = 0; i < 5000; i += 1000)
    await call('create-records', {
      token,
      params: { tableId: smallId },
      body: { records: Array.from({ length: 1000 }, (_, j) => ({ fields: { Name: `n${i + j}`, Qty: 0 } })) },
    });
  const records = Array.from({ length: 1000 }, (_, j) => ({ fields: { Name: `n${4500 + j}`, Qty: j } }));
  resetCalls();
  const t = performance.now();
  const up = await call('create-records', {
    token,
    params: { tableId: smallId },
    body: { records, performUpsert: { fieldsToMergeOn: ['Name'] } },
  });
  const ms = performance.now() - t;
  const s = callSummary();
  console.log(
    `Upsert of 1,000 records, half new, into a table of 5,000 (merged on a text field): ${up.status}, ${up.body.createdRecords?.length} created and ${up.body.updatedRecords?.length} updated; ${s.sequentialRoundTrips} round trips, ${itemsRead()} items read, ${itemsWritten()} items written, ${(ms / 1000).toFixed(1)} s.`,
  );
};

if (isScript(import.meta.url)) await runAlone('bulk', bulkBench, { inProcessPurges: true });
