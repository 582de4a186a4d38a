/**
 * Figures of the realtime socket (issue 46): a `qs` of 300 rows against the REST page it equals
 * (time and DynamoDB round trips), commit → op at 100 subscribed ShareDB clients (the local
 * server fed by the stream poller, as `npm start` runs them), and what a record write costs with
 * versions kept (the version is the record's own, moved by the write that puts the item anyway).
 *
 * Run inside `npm run bench` (`BENCH_ONLY=realtime`), or alone: `tsx test/bench/realtime.ts`.
 */
import { isScript, runAlone } from './alone.ts';

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const median = (xs: number[]) => percentile(xs, 50);

export const realtimeBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, resetCalls, itemsRead, itemsWritten } = await import('#shared/db/metrics.ts');
  const { createLocalServer, listen } = await import('#infra/local/server.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { connectShareDb, subscribeQuery } = await import('#test/support/sharedb-client.ts');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;

  console.log('\n## Realtime socket (ShareDB at /socket, the local server)\n');
  const space = await call('create-space', { token, body: { name: 'Realtime' } });
  const base = await call('create-base', { token, body: { spaceId: space.body.id } });
  const fields = Array.from({ length: 12 }, (_, i) => ({ name: `Text ${i}`, type: 'longText' }));
  const records = Array.from({ length: 300 }, (_, r) => ({
    fields: Object.fromEntries(fields.map((f, c) => [f.name, `row ${r} column ${c} `.repeat(10)])),
  }));
  const table = await call('create-table', {
    token,
    params: { baseId: base.body.id },
    body: { name: 'Rows', fields, records: records.slice(0, 100) },
  });
  const tableId = table.body.id as string;
  const viewId = table.body.views[0].id as string;
  for (const chunk of [records.slice(100, 200), records.slice(200)])
    await call('create-records', { token, params: { tableId }, body: { records: chunk } });
  const server = createLocalServer();
  const url = `ws://127.0.0.1:${await listen(server, 0)}/socket`;
  const sockets: { terminate(): void }[] = [];
  const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST' });
  try {
    await poller.caughtUp(60_000);
    await poller.stop();
    // 1. A qs of 300 rows against the REST page it equals (no capture running: its calls are not counted)
    const restTimes: number[] = [];
    const qsTimes: number[] = [];
    let rest = callSummary();
    let restItems = 0;
    let qs = callSummary();
    let qsItems = 0;
    const client = await connectShareDb(url, { authorization: token });
    sockets.push(client.socket);
    for (let i = 0; i < 7; i++) {
      resetCalls();
      let t = performance.now();
      const listed = await call('list-records', {
        token,
        params: { tableId },
        query: `viewId=${viewId}&take=300&fieldKeyType=id`,
      });
      if (listed.body.records.length !== 300) throw new Error('the REST page is not 300 rows');
      restTimes.push(performance.now() - t);
      rest = callSummary();
      restItems = itemsRead();
      resetCalls();
      t = performance.now();
      const answer = await subscribeQuery(client.connection, `rec_${tableId}`, { viewId, take: 300 });
      qsTimes.push(performance.now() - t);
      qs = callSummary();
      qsItems = itemsRead();
      answer.query.destroy();
      if (answer.results.length !== 300) throw new Error('the qs answer is not 300 rows');
    }
    console.log(
      '| read | DynamoDB calls | sequential round trips | items read | RCU | time (median of 5 warm) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(
      `| GET /table/{t}/record?take=300 (12 long texts a row) | ${rest.calls} | ${rest.sequentialRoundTrips} | ${restItems} | ${rest.readUnits} | ${median(restTimes.slice(2)).toFixed(1)} ms |`,
    );
    console.log(
      `| socket qs rec_ of the same 300 rows (to the client's callback) | ${qs.calls} | ${qs.sequentialRoundTrips} | ${qsItems} | ${qs.readUnits} | ${median(qsTimes.slice(2)).toFixed(1)} ms |`,
    );

    // 2. What a single-cell update costs (the version moves in the update that writes the cells)
    const target = table.body.records[0].id as string;
    const text0 = table.body.fields.find((f: { name: string }) => f.name === 'Text 0').id as string;
    const writeTimes: number[] = [];
    let write = callSummary();
    let written = 0;
    for (let i = 0; i < 7; i++) {
      resetCalls();
      const t = performance.now();
      await call('update-record', {
        token,
        params: { tableId, recordId: target },
        body: { fieldKeyType: 'id', record: { fields: { [text0]: `edit ${i}` } } },
      });
      writeTimes.push(performance.now() - t);
      write = callSummary();
      written = itemsWritten();
    }
    console.log(
      `\nA single-cell update of that table: ${write.calls} DynamoDB calls, ${write.sequentialRoundTrips} sequential round trips, ${written} items written, ${median(writeTimes.slice(2)).toFixed(1)} ms (median): the doc's version is the record's own \`version\`, which the update moved before the socket existed; a schema doc's is the table's \`schemaVersion\`, moved by the same guarded update as before (a table's rename now moves it in its one update).`,
    );

    // 3. Commit → op at 100 subscribed clients
    const live = startStreamPoller({ endpoint, tableName, startAt: 'LATEST' });
    try {
      await live.caughtUp(60_000);
      const arrivals: Map<number, number>[] = [];
      for (let i = 0; i < 100; i++) {
        const c = await connectShareDb(url, { authorization: token });
        sockets.push(c.socket);
        const { results } = await subscribeQuery(c.connection, `rec_${tableId}`, { viewId, take: 300 });
        const doc = results.find((d) => d.id === target);
        if (!doc) throw new Error('the target record is not in the answer');
        const got = new Map<number, number>();
        doc.on('op', () => got.set(doc.version as number, performance.now()));
        arrivals.push(got);
      }
      const latencies: number[] = [];
      for (let i = 0; i < 30; i++) {
        await call('update-record', {
          token,
          params: { tableId, recordId: target },
          body: { fieldKeyType: 'id', record: { fields: { [text0]: `live ${i}` } } },
        });
        const t = performance.now();
        const end = t + 60_000;
        const arrived = () => arrivals.filter((got) => got.size > i).length;
        while (arrived() < arrivals.length && performance.now() < end)
          await new Promise((r) => setTimeout(r, 5));
        for (const got of arrivals) {
          const at = [...got.values()].at(-1);
          if (at !== undefined && got.size > i) latencies.push(at - t);
        }
      }
      const all = arrivals.every((got) => got.size === 30);
      console.log(
        `\nCommit → op at a client, 100 ShareDB clients subscribed to the same 300-row query, 30 single-cell updates one after another (the local server, idle otherwise): p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms (goal p95 ≤ 500 ms); every client got every op: ${all}.`,
      );
    } finally {
      await live.stop();
    }
  } finally {
    for (const s of sockets) s.terminate();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
};

if (isScript(import.meta.url)) await runAlone('realtime', realtimeBench);
