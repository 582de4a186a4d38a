/**
 * Figures of the change log (issue 28): what a record write costs with the stream on (the request
 * is the same: capture happens in the stream processor), a feed page, the time from a write's
 * answer to its entry in the feed (the local poller, as `npm start` runs it), the poller's
 * throughput for a 1,000-record create and update, and a neighbour base's latency during a burst.
 *
 * Run inside `npm run bench`, or alone: `tsx test/bench/changes.ts` (its own DynamoDB Local).
 */
import { isScript, runAlone } from './alone.ts';

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

export const changesBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, resetCalls, itemsRead, itemsWritten } = await import('#shared/db/metrics.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { changesAfter, headSeqOf } = await import('#shared/entities/change-log.ts');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;

  const space = await call('create-space', { token, body: { name: 'Changes' } });
  const base = await call('create-base', { token, body: { spaceId: space.body.id } });
  const baseId = base.body.id as string;
  const table = await call('create-table', {
    token,
    params: { baseId },
    body: {
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'Count', type: 'number' },
      ],
      records: [],
    },
  });
  const tableId = table.body.id as string;
  const onTable = { token, params: { tableId } };

  console.log('\n## Change log (stream capture, the feed)\n');
  // 1. A write's own cost, the poller stopped: capture is not the request's work.
  type Answer = Awaited<ReturnType<typeof call>>;
  const measureWrite = async (label: string, run: () => Promise<Answer>): Promise<Answer> => {
    resetCalls();
    const t = performance.now();
    const res = await run();
    const ms = performance.now() - t;
    const s = callSummary();
    console.log(
      `| ${label} | ${res.status} | ${s.calls} | ${s.sequentialRoundTrips} | ${itemsWritten()} | ${ms.toFixed(0)} ms |`,
    );
    return res;
  };
  // warm, as the records section measures: the schema and the caller already read once
  await call('create-records', { ...onTable, body: { records: [{ fields: { Name: 'warm', Count: 0 } }] } });
  console.log(
    '| request (warm; stream on, capture out of band) | status | calls | round trips | items written | time |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  const created = await measureWrite('POST /table/{t}/record (1 record)', () =>
    call('create-records', { ...onTable, body: { records: [{ fields: { Name: 'a', Count: 1 } }] } }),
  );
  const recordId = created.body.records[0]?.id as string;
  await measureWrite('PATCH /table/{t}/record/{r} (1 cell)', () =>
    call('update-record', {
      token,
      params: { tableId, recordId },
      body: { record: { fields: { Count: 2 } } },
    }),
  );

  const doomed = await call('create-records', { ...onTable, body: { records: [{ fields: { Name: 'd' } }] } });
  // a delete names its records on the data version it moves anyway (the deletion note): no item more
  await measureWrite('DELETE /table/{t}/record/{r}', () =>
    call('delete-record', { token, params: { tableId, recordId: doomed.body.records[0]?.id as string } }),
  );

  const poller = startStreamPoller({ endpoint, tableName, startAt: 'TRIM_HORIZON' });
  try {
    await poller.caughtUp(60_000);
    // 2. Commit → entry in the feed, sequential single-cell updates.
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      const before = await headSeqOf(baseId);
      await call('update-record', {
        token,
        params: { tableId, recordId },
        body: { record: { fields: { Count: 10 + i } } },
      });
      const t = performance.now();
      while ((await changesAfter(baseId, before, 5)).length === 0)
        await new Promise((r) => setTimeout(r, 10));
      latencies.push(performance.now() - t);
    }
    console.log(
      `\nCommit → entry readable in the feed (local poller idle every 200 ms, as npm start runs it; 100 single-cell updates one after another): p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms.`,
    );

    // 3. Throughput: a 1,000-record create and a 1,000-record update.
    const throughput = async (label: string, write: () => Promise<{ status: number }>) => {
      const before = await headSeqOf(baseId);
      const res = await write();
      const t = performance.now();
      while ((await headSeqOf(baseId)) < before + 1000) await new Promise((r) => setTimeout(r, 20));
      const ms = performance.now() - t;
      console.log(
        `${label}: ${res.status}; its 1,000 entries in the log ${ms.toFixed(0)} ms after the answer (${((1000 / ms) * 1000).toFixed(0)} entries/s).`,
      );
    };
    let ids: string[] = [];
    console.log('');
    await throughput('Create 1,000 records (one call)', async () => {
      const res = await call('create-records', {
        ...onTable,
        body: { records: Array.from({ length: 1000 }, (_, i) => ({ fields: { Name: `r${i}`, Count: i } })) },
      });
      ids = res.body.records.map((r: { id: string }) => r.id);
      return res;
    });
    await throughput('Update 1,000 records (one call)', () =>
      call('update-records', {
        ...onTable,
        body: { records: ids.map((id, i) => ({ id, fields: { Count: i + 1 } })) },
      }),
    );

    // 4. A neighbour base during a burst: 10,000 records created in this base (1,000 a request, 2
    // in flight) while another base's record is edited every 250 ms; each edit's time from its
    // answer to its entry in that base's log (the poller captures a slice of every waiting base).
    const otherBase = await call('create-base', { token, body: { spaceId: space.body.id } });
    const otherTable = await call('create-table', {
      token,
      params: { baseId: otherBase.body.id },
      body: { fields: [{ name: 'Name', type: 'singleLineText' }], records: [{ fields: { Name: 'n' } }] },
    });
    const otherRecord = otherTable.body.records[0]?.id as string;
    await poller.caughtUp(60_000);
    const burstStart = await headSeqOf(baseId);
    let writing = true;
    const burst = (async () => {
      const started = performance.now();
      for (let i = 0; i < 10; i += 2)
        await Promise.all(
          [i, i + 1].map((j) =>
            call('create-records', {
              ...onTable,
              body: {
                records: Array.from({ length: 1000 }, (_, k) => ({
                  fields: { Name: `b${j}-${k}`, Count: k },
                })),
              },
            }),
          ),
        );
      writing = false;
      return performance.now() - started;
    })();
    const neighbour: number[] = [];
    for (let i = 0; writing; i++) {
      const before = await headSeqOf(otherBase.body.id);
      await call('update-record', {
        token,
        params: { tableId: otherTable.body.id, recordId: otherRecord },
        body: { record: { fields: { Name: `edit ${i}` } } },
      });
      const t = performance.now();
      while ((await changesAfter(otherBase.body.id, before, 5)).length === 0)
        await new Promise((r) => setTimeout(r, 10));
      neighbour.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 250));
    }
    const writeMs = await burst;
    const drainStart = performance.now();
    while ((await headSeqOf(baseId)) < burstStart + 10_000) await new Promise((r) => setTimeout(r, 50));
    const drainMs = performance.now() - drainStart;
    console.log(
      `\nA neighbour base during a burst (10,000 records created in one base, 1,000 a request, 2 in flight, ${(writeMs / 1000).toFixed(1)} s; the capture beside it): ${neighbour.length} edits in another base, answer → entry in its log p50 ${percentile(neighbour, 50).toFixed(0)} ms, p95 ${percentile(neighbour, 95).toFixed(0)} ms, max ${Math.max(...neighbour).toFixed(0)} ms; the burst's last entry ${(drainMs / 1000).toFixed(1)} s after its last answer (${((10_000 / (writeMs + drainMs)) * 1000).toFixed(0)} entries/s over the whole burst).`,
    );
  } finally {
    await poller.stop();
  }

  // 5. A feed page of 100 entries and a history page (20 items, Teable's size), warm.
  const readPage = async (label: string, run: () => Promise<Answer>, count: (a: Answer) => number) => {
    await run();
    resetCalls();
    const t = performance.now();
    const res = await run();
    const ms = performance.now() - t;
    const s = callSummary();
    console.log(
      `${label} (${count(res)} entries): ${res.status}, ${s.calls} calls, ${s.sequentialRoundTrips} round trips (authentication is 1), ${itemsRead()} items read, ${ms.toFixed(0)} ms.`,
    );
  };
  console.log('');
  await readPage(
    'GET /base/{b}/changes?limit=100',
    () => call('list-changes', { token, params: { baseId }, query: 'limit=100' }),
    (a) => a.body.changes.length,
  );
  await readPage(
    'GET /table/{t}/record/history',
    () => call('list-record-history', { token, params: { tableId } }),
    (a) => a.body.historyList.length,
  );
};

if (isScript(import.meta.url)) await runAlone('changes', changesBench);
