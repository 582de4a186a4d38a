/**
 * Figures of a permanent table delete (issue 5): the request (mark, references, job; what the
 * caller waits for) and the background purge (what the worker does), in time and DynamoDB calls,
 * for a table of 10,000 records and, opt-in (`BENCH_PURGE_100K=1`, a few minutes), 100,000.
 * Records are seeded fast with BatchWriteItem (test/bench/seed.ts), plus a manual order entry per
 * record in the second view, so the purge empties RECORDS, RECNUM and VORDER partitions.
 *
 * Run inside `npm run bench`, or alone: `tsx test/bench/purge.ts` (its own DynamoDB Local).
 */
import { isScript, runAlone } from './alone.ts';

/** Times and DynamoDB calls of the permanent delete of a seeded table of each size. */
export const purgeBench = async (token: string) => {
  await import('#test/support/in-process-purges.ts');
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, resetCalls } = await import('#shared/db/metrics.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const { writeItems, queryPage } = await import('#shared/db/client.ts');
  const { keys } = await import('#shared/db/keys.ts');
  const { seedRecords } = await import('./seed.ts');
  const sizes = [10_000, ...(process.env.BENCH_PURGE_100K === '1' ? [100_000] : [])];

  console.log('\n## Permanent delete of a table (request, then the background purge)\n');
  console.log(
    '| records | items | request: calls / round trips / time | purge: calls (by op) | purge time | items/s |',
  );
  console.log('|---:|---:|---|---|---:|---:|');
  for (const n of sizes) {
    const space = await call('create-space', { token, body: { name: `Purge ${n}` } });
    const base = await call('create-base', { token, body: { spaceId: space.body.id } });
    const baseId = base.body.id as string;
    const table = await call('create-table', {
      token,
      params: { baseId },
      body: { views: [{ type: 'grid' }, { type: 'grid', name: 'Manual' }], records: [] },
    });
    const tableId = table.body.id as string;
    const primary = table.body.fields[0].id as string;
    const manualView = table.body.views[1].id as string;
    const ids = await seedRecords(tableId, n, (i) => ({ [primary]: `record ${i}` }));
    await writeItems(
      ids.map((recordId, i) => ({
        put: { ...keys.viewOrder(manualView, `m${String(i).padStart(7, '0')}`), type: 'viewOrder', recordId },
      })),
      16,
    );
    const items = n * 3 + 1 + table.body.fields.length + 2;

    await drainPurges();
    resetCalls();
    let t = performance.now();
    const res = await call('delete-table-permanently', { token, params: { baseId, tableId } });
    const requestMs = performance.now() - t;
    const request = callSummary();
    resetCalls();
    t = performance.now();
    await drainPurges();
    const purgeMs = performance.now() - t;
    const purge = callSummary();
    const left = await queryPage({ pk: keys.recordsOf(tableId).pk, limit: 1 });
    const byOp = new Map<string, number>();
    for (const op of purge.ops) byOp.set(op, (byOp.get(op) ?? 0) + 1);
    const ops = [...byOp].map(([op, c]) => `${c} ${op}`).join(', ');
    console.log(
      `| ${n.toLocaleString('en')} | ~${items.toLocaleString('en')} | ${res.status}: ${request.calls} / ${request.sequentialRoundTrips} / ${requestMs.toFixed(0)} ms | ${purge.calls} (${ops}) | ${(purgeMs / 1000).toFixed(1)} s | ${Math.round(items / (purgeMs / 1000)).toLocaleString('en')} |${left.items.length ? ' NOT EMPTY' : ''}`,
    );
  }
};

// Alone: its own DynamoDB Local and user.
if (isScript(import.meta.url)) await runAlone('purge', purgeBench);
