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
  await cloudSocketBench(token, tableId, viewId, base.body.id as string, text0Of(table.body));
};

const text0Of = (table: { fields: { name: string; id: string }[] }) =>
  table.fields.find((f) => f.name === 'Text 0')?.id as string;

/**
 * The realtime socket as the cloud runs it: API Gateway's WebSocket API staged on this machine in
 * front of the socket's Lambda, the sessions kept in DynamoDB between messages. What each kind
 * of message costs in DynamoDB, what one change's fan-out costs a connection, commit → op at 20
 * clients, and from these what an idle tab of Teable's web app costs an hour.
 */
const cloudSocketBench = async (
  token: string,
  tableId: string,
  viewId: string,
  baseId: string,
  text0: string,
) => {
  const { call } = await import('#test/support/invoke.ts');
  const { callSummary, resetCalls } = await import('#shared/db/metrics.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { connectShareDb, subscribeQuery, docCall } = await import('#test/support/sharedb-client.ts');
  const { startApiGatewaySocket } = await import('#test/support/api-gateway-socket.ts');
  const { changesAfter, headSeqOf } = await import('#shared/entities/change-log.ts');
  const { socketFanOut } = await import('#shared/live/sharedb/socket-cloud.ts');
  const { managementPoster } = await import('#shared/live/cloud.ts');
  const { readSocketConnection } = await import('#shared/entities/socket-connections.ts');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;
  console.log('\n## Realtime socket in the cloud (API Gateway staged here, sessions kept in DynamoDB)\n');
  const gateway = await startApiGatewaySocket();
  const sockets: { terminate(): void }[] = [];
  try {
    const rows: string[] = [];
    const measure = async (what: string, work: () => Promise<unknown>) => {
      await gateway.idle();
      resetCalls();
      const t = performance.now();
      await work();
      await gateway.idle();
      const ms = performance.now() - t;
      const c = callSummary();
      rows.push(
        `| ${what} | ${c.calls} | ${c.sequentialRoundTrips} | ${c.readUnits} | ${c.writeUnits} | ${ms.toFixed(0)} ms |`,
      );
    };
    let client: Awaited<ReturnType<typeof connectShareDb>> | undefined;
    await measure('connect and handshake (`$connect` with a bearer token, `hs`)', async () => {
      client = await connectShareDb(gateway.url, { authorization: token });
      sockets.push(client.socket);
    });
    const connection = (client as NonNullable<typeof client>).connection;
    await measure('ping (`pp`, every 10 s from the web app)', async () => {
      const raw = (client as NonNullable<typeof client>).socket;
      await new Promise<void>((resolve) => {
        raw.once('message', () => resolve());
        raw.send(JSON.stringify({ a: 'pp' }));
      });
    });
    let ids: string[] = [];
    await measure('`qs` of 300 rows × 12 long texts (cut into frames under 128 KB)', async () => {
      const { query } = await subscribeQuery(connection, `rec_${tableId}`, { viewId, take: 300 });
      const end = Date.now() + 60_000;
      while (query.results.length < 300 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
      ids = query.results.map((d) => d.id);
    });
    await measure('`s` of one field doc', () =>
      docCall(connection.get(`fld_${tableId}`, text0), 'subscribe'),
    );
    const state = await readSocketConnection(connection.id as string);
    console.log('| message | DynamoDB calls | sequential round trips | RCU | WCU | time |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
    console.log(
      `\nThe session kept for that connection (one query of 300 rows, one field doc): ${Buffer.byteLength(state?.state ?? '')} bytes of state, ${state?.topics.length} topic items.`,
    );

    // one change's fan-out, per connection, with 20 connections holding the same 300-row query
    const clients = [connection];
    for (let i = 1; i < 20; i++) {
      const c = await connectShareDb(gateway.url, { authorization: token });
      sockets.push(c.socket);
      await subscribeQuery(c.connection, `rec_${tableId}`, { viewId, take: 300 });
      clients.push(c.connection);
    }
    await gateway.idle();
    const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST' });
    await poller.caughtUp(60_000);
    await poller.stop();
    const before = await headSeqOf(baseId);
    await call('update-record', {
      token,
      params: { tableId, recordId: ids[0] as string },
      body: { fieldKeyType: 'id', record: { fields: { [text0]: 'fanned out' } } },
    });
    // the capture writes the entry (not fanned out now); that fan-out is counted alone below
    gateway.setPublishing(false);
    const capture = startStreamPoller({ endpoint, tableName, startAt: 'TRIM_HORIZON' });
    await capture.caughtUp(60_000);
    await capture.stop();
    gateway.setPublishing(true);
    await gateway.idle();
    const entries = await changesAfter(baseId, before, 100);
    resetCalls();
    let t = performance.now();
    await socketFanOut(
      baseId,
      entries.slice(0, 1),
      managementPoster(`${gateway.url.replace('ws:', 'http:')}`),
    );
    const fanMs = performance.now() - t;
    const fan = callSummary();
    console.log(
      `\nOne record update fanned out to 20 connections holding the same 300-row query: ${fan.calls} DynamoDB calls (${fan.sequentialRoundTrips} sequential), ${fan.readUnits} RCU, ${fan.writeUnits} WCU, ${fanMs.toFixed(0)} ms: per connection ${(fan.readUnits / 20).toFixed(1)} RCU and ${(fan.writeUnits / 20).toFixed(1)} WCU (one read of the query serves every connection of the same user; each session is read, checked and saved).`,
    );

    // commit → op at the 20 clients, the capture running as in the cloud's stream processor
    const live = startStreamPoller({ endpoint, tableName, startAt: 'LATEST' });
    try {
      await live.caughtUp(60_000);
      const docs = clients.map((c) => c.get(`rec_${tableId}`, ids[0] as string));
      const latencies: number[] = [];
      for (let i = 0; i < 10; i++) {
        const value = `cloud ${i}`;
        await call('update-record', {
          token,
          params: { tableId, recordId: ids[0] as string },
          body: { fieldKeyType: 'id', record: { fields: { [text0]: value } } },
        });
        t = performance.now();
        const end = t + 60_000;
        const pending = new Set(docs);
        while (pending.size && performance.now() < end) {
          for (const d of pending)
            if ((d.data as { fields: Record<string, unknown> } | undefined)?.fields[text0] === value) {
              latencies.push(performance.now() - t);
              pending.delete(d);
            }
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      console.log(
        `\nCommit → op at a client, 20 ShareDB clients on the staged API Gateway, 10 single-cell updates one after another: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms; ${latencies.length} of 200 arrivals.`,
      );
    } finally {
      await live.stop();
    }
  } finally {
    for (const s of sockets) s.terminate();
    await gateway.stop();
  }
};

if (isScript(import.meta.url)) await runAlone('realtime', realtimeBench);
