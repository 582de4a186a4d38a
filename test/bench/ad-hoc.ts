/**
 * Ad-hoc queries on a large table (issue 34): `npm run bench` runs it at 100,000 records (the
 * section `adhoc`); `BENCH_ADHOC_1M=1` runs it at 1,000,000 too (the section `adhoc-million`;
 * seeding takes minutes; give Node room: `NODE_OPTIONS=--max-old-space-size=8192`). Alone:
 * `npx tsx test/bench/ad-hoc.ts` (its own DynamoDB Local; `BENCH_ADHOC_RECORDS` sets the size).
 *
 * One table of N records × 20 fields seeded with the write path's items, then:
 * - how DynamoDB Local serves the parallel read: the whole table read (the query's attributes)
 *   with 1 to 64 ranges in flight: time, sequential round trips, records per second;
 * - an ad-hoc filter + sort first page, the same with a search over every field, and a row count
 *   of the query, each as a request computes them (or hands them to the worker at its deadline);
 * - the worker's computation of the query handed over (forced at 100,000 records, where the request
 *   finishes in time), and the retry after it: time until the kept order answers, records read,
 *   peak heap.
 */
import { isScript, runAlone } from './alone.ts';
import { type Call, type FieldRef, mb, ms, q, seededTable, withPeakHeap } from './listing.ts';

const n = (x: number) => x.toLocaleString('en');

export const adHocBench = async (token: string, records: number) => {
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, itemsRead, itemsWritten, resetCalls } = await import('#shared/db/metrics.ts');
  const { readRecordRanges } = await import('#shared/entities/records.ts');
  const { rangesFor, recordSlices, READ_IN_FLIGHT } = await import('#shared/records/rows.ts');
  const { setRequestReadBudget } = await import('#shared/listing/order-computation.ts');
  const { computeWantedOrders } = await import('#shared/listing/order-worker.ts');
  const { purgePartition } = await import('#shared/entities/purges.ts');
  const { keys } = await import('#shared/db/keys.ts');

  const space = (await call('create-space', { token, body: { name: 'Ad hoc' } })).body.id;
  const baseId = (await call('create-base', { token, body: { spaceId: space } })).body.id as string;
  console.log(`\n## Ad-hoc queries at ${n(records)} records × 20 fields (DynamoDB Local; warm handler)\n`);
  const t = await seededTable(call as Call, token, baseId, records, 20);
  console.log(`Seeded in ${ms(t.seedMs)} (BatchWriteItem, the write path's items).\n`);
  const fields = t.fields;
  const select = fields.find((f) => f.type === 'singleSelect') as FieldRef;
  const number = fields.find((f) => f.type === 'number') as FieldRef;
  const text = fields.find((f) => f.type === 'singleLineText' && f.name !== 'Name') as FieldRef;

  // 1. DynamoDB Local under parallel reads: the same read with more ranges in flight
  const ranges = recordSlices(rangesFor(records));
  console.log(
    `The whole table read with the attributes of a filter + sort (id, autoNumber, ord and 3 cells), in ${n(ranges.length)} ranges:\n`,
  );
  console.log('| ranges in flight | sequential round trips | records | time | records/s |');
  console.log('|---:|---:|---:|---:|---:|');
  // one read first, not reported: the first read of a table is slower whatever its shape
  for (const inFlight of [0, 1, 8, 32, 64]) {
    resetCalls();
    let read = 0;
    const start = performance.now();
    await readRecordRanges({
      tableId: t.tableId,
      attributes: ['id', 'autoNumber', 'ord', select.id, number.id, text.id],
      ranges,
      inFlight: Math.max(1, inFlight),
      onRange: (_, part) => {
        read += part.length;
      },
    });
    const elapsed = performance.now() - start;
    const s = callSummary();
    if (inFlight === 0) continue;
    console.log(
      `| ${inFlight}${inFlight === READ_IN_FLIGHT ? ' (the listing’s)' : ''} | ${s.sequentialRoundTrips} | ${n(read)} | ${ms(elapsed)} | ${n(Math.round(read / (elapsed / 1000)))} |`,
    );
  }

  const list = (query: string) => call('list-records', { token, params: { tableId: t.tableId }, query });
  const rowCount = (query: string) => call('get-row-count', { token, params: { tableId: t.tableId }, query });
  const filterSort = (k: number) =>
    q({
      filter: {
        conjunction: 'and',
        filterSet: [
          { fieldId: select.id, operator: 'isAnyOf', value: ['a', 'b'] },
          { fieldId: number.id, operator: 'isGreater', value: 100 + k },
        ],
      },
      orderBy: [{ fieldId: text.id, order: 'asc' }],
    });
  const searched = (k: number) =>
    `${q({ orderBy: [{ fieldId: number.id, order: 'desc' }] })}&search=${encodeURIComponent(`${k}7`)}&search=&search=true`;

  const line = async (
    label: string,
    run: () => Promise<{ status: number; headers: Record<string, string> }>,
  ) => {
    resetCalls();
    const start = performance.now();
    const { value, peak } = await withPeakHeap(run);
    const elapsed = performance.now() - start;
    const s = callSummary();
    const retry = value.headers['retry-after'] ? ` (Retry-After: ${value.headers['retry-after']})` : '';
    console.log(
      `| ${label} | ${value.status}${retry} | ${s.sequentialRoundTrips} | ${n(itemsRead())} | ${n(Math.round(s.readUnits))} | ${n(itemsWritten())} | ${ms(elapsed)} | ${mb(peak)} |`,
    );
    return value;
  };
  console.log(
    '\n| request | status | sequential round trips | items read | RCU | items written | handler time | peak heap |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  await line('ad-hoc filter + sort, first page (take 100)', () => list(`${filterSort(1)}&take=100`));
  await line('its second page (kept order)', () => list(`${filterSort(1)}&take=100&skip=100`));
  await line('its row count (kept header)', () => rowCount(filterSort(1)));
  await line('row count of another filter (computed)', () => rowCount(filterSort(2)));
  await line('search over all 20 fields (hiding rows without a hit) + sort, first page', () =>
    list(`${searched(1)}&take=100`),
  );

  // 2. The worker: the query handed over (at its deadline; forced when the request would finish)
  await purgePartition(keys.queryOrdersOf(t.tableId).pk);
  const handed = async (label: string, query: string) => {
    setRequestReadBudget(records >= 500_000 ? undefined : 0);
    const first = await line(`${label}: first page, handed to the worker`, () => list(`${query}&take=100`));
    setRequestReadBudget(undefined);
    if (first.status !== 503) return;
    const start = performance.now();
    const { value: report, peak } = await withPeakHeap(async () => {
      const total = { computed: 0, recordsRead: 0, runs: 0 };
      while (total.computed === 0 && total.runs < 20) {
        const r = await computeWantedOrders(Date.now() + 14 * 60_000);
        total.computed += r.computed;
        total.recordsRead += r.recordsRead;
        total.runs++;
      }
      return total;
    });
    const workerMs = performance.now() - start;
    await line(`${label}: the retry (kept order)`, () => list(`${query}&take=100`));
    await line(`${label}: a deep page of it (skip ${n(Math.floor(records / 4))})`, () =>
      list(`${query}&take=100&skip=${Math.floor(records / 4)}`),
    );
    await line(`${label}: its row count`, () => rowCount(query));
    console.log(
      `\n${label}: the worker computed it in ${ms(workerMs)} (${report.runs} run(s), ${n(report.recordsRead)} records read, peak heap ${mb(peak)}).\n`,
    );
  };
  console.log(
    '\n| request | status | sequential round trips | items read | RCU | items written | handler time | peak heap |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  await handed('filter + sort', filterSort(3));
  console.log(
    '\n| request | status | sequential round trips | items read | RCU | items written | handler time | peak heap |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  await handed('search over all fields + sort', searched(2));
};

// Alone: its own DynamoDB Local and user.
if (isScript(import.meta.url))
  await runAlone('adhoc', (token) => adHocBench(token, Number(process.env.BENCH_ADHOC_RECORDS ?? 100_000)));
