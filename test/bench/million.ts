/**
 * Listing at 1,000,000 records (issue 14, item 5), opt-in: `BENCH_LISTING_1M=1 npm run bench`
 * (the section `million`; seeding and building take tens of minutes and several GB of DynamoDB
 * Local's memory; give Node room: `NODE_OPTIONS=--max-old-space-size=8192`). Alone:
 * `npx tsx test/bench/million.ts` (its own DynamoDB Local).
 *
 * One table of 1,000,000 records × 20 fields seeded with the write path's own items
 * (`seed.ts`), three views with their own query, each index built as the repair worker builds
 * it; then, per request: sequential round trips, items read, read units, handler time and peak
 * heap, for view-order pages, the indexed views' pages (first, deep, row count), record writes
 * with the three indexed views, and last an ad-hoc filter + sort + group page, which must answer
 * inside the API's 29 s or with a 503 and `Retry-After`.
 */
import { isScript, runAlone } from './alone.ts';
import {
  buildIndex,
  type Call,
  type FieldRef,
  fsgQuery,
  indexedView,
  mb,
  median,
  ms,
  racedBuild,
  seededTable,
  viewListing,
  withPeakHeap,
} from './listing.ts';

const RECORDS = Number(process.env.BENCH_MILLION_RECORDS ?? 1_000_000);

const n = (x: number) => x.toLocaleString('en');

/** Waits until no DynamoDB call has been made for `quietMs` (a request answered at its deadline may still read). */
const settle = async (calls: () => number, quietMs = 2000) => {
  let last = calls();
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = calls();
    if (now === last) return;
    last = now;
  }
};

export const millionBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, itemsRead, itemsWritten, resetCalls } = await import('#shared/db/metrics.ts');

  const space = (await call('create-space', { token, body: { name: 'Million' } })).body.id;
  const baseId = (await call('create-base', { token, body: { spaceId: space } })).body.id as string;

  console.log(`\n## Listing at ${n(RECORDS)} records (opt-in; DynamoDB Local; warm handler)\n`);
  const t = await seededTable(call as Call, token, baseId, RECORDS, 20);
  const fields = t.fields;
  const byType = (type: string) => fields.filter((f) => f.type === type);
  const number = byType('number')[1] as FieldRef;
  const checkbox = byType('checkbox')[0] as FieldRef;
  const date = byType('date')[0] as FieldRef;

  // three views with their own query: filter + sort + 2-level group (the listing bench's), a sort
  // alone, and a filter + sort
  const grouped = await indexedView(call as Call, token, t.tableId, fields);
  const view = async (name: string, body: Record<string, unknown>) => {
    const res = await call('create-view', { token, params: { tableId: t.tableId }, body: { name, ...body } });
    if (res.status !== 201) throw new Error(`create-view ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const sorted = await view('Sorted', { sort: { sortObjs: [{ fieldId: number.id, order: 'desc' }] } });
  const filtered = await view('Checked by date', {
    filter: { conjunction: 'and', filterSet: [{ fieldId: checkbox.id, operator: 'is', value: true }] },
    sort: { sortObjs: [{ fieldId: date.id, order: 'asc' }] },
  });
  const builds: string[] = [];
  for (const [label, id] of [
    ['filter + sort + 2-level group', grouped],
    ['sort by a number', sorted],
    ['filter (a checkbox) + sort by a date', filtered],
  ] as const) {
    const { value, peak } = await withPeakHeap(() => buildIndex(t.tableId, id));
    builds.push(`| ${label} | ${n(value.entries)} | ${ms(value.ms)} | ${mb(peak)} |`);
  }

  console.log(`Seeding ${n(RECORDS)} records (BatchWriteItem, the write path's items): ${ms(t.seedMs)}.\n`);
  console.log(
    '| view index built (as the repair worker builds it: segments of ~20,000 records) | entries | time | peak heap |',
  );
  console.log('|---|---:|---:|---:|');
  for (const line of builds) console.log(line);

  const list = (query: string) => call('list-records', { token, params: { tableId: t.tableId }, query });
  const rowCount = (query: string) => call('get-row-count', { token, params: { tableId: t.tableId }, query });
  const measure = async (
    label: string,
    run: () => Promise<{ status: number; headers: Record<string, string> }>,
    runs = 2,
  ) => {
    const times: number[] = [];
    let first: { line: string } | undefined;
    for (let i = 0; i < runs + 1; i++) {
      resetCalls();
      const start = performance.now();
      const { value, peak } = await withPeakHeap(run);
      const elapsed = performance.now() - start;
      if (i === 0 && runs > 0) continue; // warm-up
      times.push(elapsed);
      const s = callSummary();
      const retry = value.headers['retry-after'] ? ` (Retry-After: ${value.headers['retry-after']})` : '';
      first ??= {
        line: `| ${label} | ${value.status}${retry} | ${s.sequentialRoundTrips} | ${n(itemsRead())} | ${n(Math.round(s.readUnits))} | ${n(itemsWritten())} | TIME | ${mb(peak)} |`,
      };
    }
    console.log((first as { line: string }).line.replace('TIME', ms(median(times))));
  };

  console.log(
    '\n| request | status | sequential round trips | items read | RCU | items written | handler time | peak heap |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  await measure('first page, view order (take 100)', () => list('take=100'));
  await measure('deep page, view order (skip 50,000)', () => list('take=100&skip=50000'));
  await measure('row count (the record counter)', () => rowCount(''));
  const own = viewListing(grouped, fields);
  await measure('view with filter + sort + group: first page (index)', () => list(`${own}&take=100`));
  await measure('that view, deep page skip 50,000 (index)', () => list(`${own}&take=100&skip=50000`));
  await measure('that view, deep page skip 500,000 (index)', () => list(`${own}&take=100&skip=500000`));
  await measure('that view, row count (index counter)', () => rowCount(own));
  const headers = (await list(`${own}&take=1`)).body.extra.allGroupHeaderRefs as { id: string }[];
  const collapsed = `${own}&collapsedGroupIds=${encodeURIComponent(JSON.stringify([headers[0]?.id]))}`;
  await measure('that view, first group collapsed: page at skip 50,000 (index)', () =>
    list(`${collapsed}&take=100&skip=50000`),
  );
  await measure('that view, group points (index counts)', () =>
    call('get-group-points', { token, params: { tableId: t.tableId }, query: own }),
  );
  await measure('sorted view: first page (index)', () => list(`viewId=${sorted}&take=100`));
  await measure(
    'sorted view: deep page skip 50,000 (index; a jump: counts the entries between split bounds at once, reading those after them)',
    () => list(`viewId=${sorted}&take=100&skip=50000`),
  );
  await measure('filtered + sorted view: first page (index)', () => list(`viewId=${filtered}&take=100`));

  // writes with the three indexed views: the written record passes every view's filter, and each
  // write moves it in all three (the sorted text, the grouped and sorted numbers, the sorted date)
  const ids = await list('take=3');
  const recordId = (ids.body.records as { id: string }[])[1]?.id as string;
  const textOf = fields.find((f) => f.type === 'singleLineText' && f.name !== 'Name') as FieldRef;
  const grouping = byType('number')[0] as FieldRef;
  const select = byType('singleSelect')[0] as FieldRef;
  const passing = (k: number) => ({
    [textOf.id]: `moved ${k}`,
    [grouping.id]: 200 + k,
    [number.id]: 300 + k,
    [select.id]: 'a',
    [checkbox.id]: true,
    [date.id]: new Date(Date.UTC(2026, 0, 1 + (k % 300))).toISOString(),
  });
  let turn = 0;
  await measure(
    'create 1 record (3 indexed views)',
    () =>
      call('create-records', {
        token,
        params: { tableId: t.tableId },
        body: { fieldKeyType: 'id', records: [{ fields: passing(++turn) }] },
      }),
    3,
  );
  await measure(
    'update 1 record (moves it in all 3 views)',
    () =>
      call('update-record', {
        token,
        params: { tableId: t.tableId, recordId },
        body: { fieldKeyType: 'id', record: { fields: passing(++turn) } },
      }),
    3,
  );
  await measure(
    "that view's first page after the writes (its index kept by them)",
    () => list(`${own}&take=100`),
    0,
  );

  // last: an ad-hoc query (not a view's own) reads the table: it answers inside the API's 29 s or
  // a 503 with Retry-After; a request answered at its deadline may still be reading, so wait
  await measure(
    'ad-hoc filter + sort + group, first page (computed from the table)',
    () => list(`${fsgQuery(fields)}&take=100`),
    0,
  );
  await settle(() => callSummary().calls);
  await measure(
    'ad-hoc query, its second page (kept order, if the first finished)',
    () => list(`${fsgQuery(fields)}&take=100&skip=100`),
    0,
  );
  await settle(() => callSummary().calls);

  // a build raced by writes at this size: the grouped view's query again, in a view of its own,
  // built while a writer updates records it reads; its first page must agree with the grouped
  // view's (kept by the same writes; the general path cannot answer this table in time)
  const { value: raced, peak } = await withPeakHeap(() => racedBuild(call as Call, token, t, 50, own));
  console.log(
    `\nA second view with the grouped view's query, built while a writer updated records it reads (${n(raced.writes)} updates, 50 ms apart): ${raced.outcome} in ${raced.runs} run(s), ${ms(raced.ms)}, peak heap ${mb(peak)}; its first page ${raced.agrees ? 'agrees with' : 'DIFFERS from'} the grouped view's.`,
  );
};

// Alone: its own DynamoDB Local and user.
if (isScript(import.meta.url)) await runAlone('million', millionBench);
