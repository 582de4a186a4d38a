/**
 * A price per request (issue 49): what each kind of request uses — capacity units as DynamoDB Local
 * reports them, handler milliseconds at the function's memory, API Gateway requests and WebSocket
 * messages, queue messages, objects and bytes out — measured here, priced at AWS's on-demand list
 * prices (`prices.ts`), per 1,000 requests; a write's price includes the capture of what it wrote
 * (the stream processor's time and the change log's items). Then a month of a typical team's use
 * of a 100,000-record base, its assumptions stated.
 *
 * Run inside `npm run bench` (`BENCH_ONLY=cost`), or alone: `tsx test/bench/cost.ts`.
 */
import { isScript, runAlone } from './alone.ts';
import { startCsvImport, uploadCsv } from './csv-import.ts';
import { type Cost, costOf, dollars, PRICES, plus, times, type Usage } from './prices.ts';

/** Every function of the stack has the stage's memory, but the worker (imports): `infra/`. */
const API_MB = 1024;
const WORKER_MB = 2048;
/** The stream processor's batch (`infra/stream-processor-construct.ts`). */
const PROCESSOR_BATCH = 500;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export const costBench = async (token: string) => {
  const { deliverBase } = await import('#shared/webhooks/deliver.ts');
  const { deliverWebhooksInProcess } = await import('#shared/webhooks/queue.ts');
  // deliveries measured on their own, not inside a capture's figures
  deliverWebhooksInProcess(undefined);
  try {
    await costSection(token);
  } finally {
    deliverWebhooksInProcess((baseId) => deliverBase(baseId));
  }
};

const costSection = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { billedWriteUnits, callSummary, resetCalls } = await import('#shared/db/metrics.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const { changesAfter, headSeqOf } = await import('#shared/entities/change-log.ts');
  const { deliverBase } = await import('#shared/webhooks/deliver.ts');
  const { startReceiver } = await import('#test/support/webhook-receiver.ts');
  const { onConnect, onMessage, fanOut } = await import('#shared/live/cloud.ts');
  const { startApiGatewaySocket } = await import('#test/support/api-gateway-socket.ts');
  const { connectShareDb, docCall } = await import('#test/support/sharedb-client.ts');
  const { socketFanOut } = await import('#shared/live/sharedb/socket-cloud.ts');
  const { managementPoster } = await import('#shared/live/cloud.ts');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;

  console.log('\n## A price per request (on-demand, measured use)\n');
  const space = await call('create-space', { token, body: { name: 'Cost' } });
  const base = await call('create-base', { token, body: { spaceId: space.body.id } });
  const baseId = base.body.id as string;
  const fields = [
    { name: 'Name', type: 'singleLineText' },
    { name: 'Count', type: 'number' },
    { name: 'Notes', type: 'longText' },
  ];
  const table = await call('create-table', { token, params: { baseId }, body: { fields, records: [] } });
  const tableId = table.body.id as string;
  const rowOf = (i: number) => ({
    fields: { Name: `Row ${i}`, Count: i, Notes: `note ${i}, a little more text` },
  });

  /** Runs `work` once and answers what DynamoDB reported and the time it took. */
  const measured = async <T>(work: () => Promise<T>) => {
    resetCalls();
    const t = performance.now();
    const value = await work();
    const ms = performance.now() - t;
    const s = callSummary();
    // write units as DynamoDB bills them (DynamoDB Local under-reports transactions)
    return { value, ms, readUnits: s.readUnits, writeUnits: billedWriteUnits() };
  };
  /** A request's median handler time over `runs` (after one warm-up) and its capacity (last run). */
  const request = async (run: () => Promise<{ body: unknown }>, runs = 5) => {
    await run();
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await measured(run));
    const last = all.at(-1) as (typeof all)[number];
    return {
      usage: {
        httpRequests: 1,
        lambda: [{ ms: median(all.map((m) => m.ms)), memoryMb: API_MB }],
        readUnits: last.readUnits,
        writeUnits: last.writeUnits,
        bytesOut: Buffer.byteLength(JSON.stringify(last.value.body ?? '')),
      } satisfies Usage,
      body: last.value.body,
    };
  };
  /**
   * One poller for the section, held between captures: started at the stream's end (what other
   * sections wrote is not this one's), then let go to capture what was written since, alone,
   * its time taken as the stream processor's, invocations by the processor's batch.
   */
  let held = false;
  const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST', isDown: () => held });
  await poller.caughtUp(600_000);
  held = true;
  const capture = async (entries: number): Promise<Usage> => {
    const target = (await headSeqOf(baseId)) + entries;
    held = false;
    try {
      // caught up with what the stream showed it, until every entry is in the log (one read a pass)
      const m = await measured(async () => {
        do await poller.caughtUp(600_000);
        while ((await headSeqOf(baseId)) < target);
      });
      return {
        lambda: [
          {
            ms: m.ms / entries,
            memoryMb: API_MB,
            invocations: Math.ceil(entries / PROCESSOR_BATCH) / entries,
          },
        ],
        readUnits: m.readUnits / entries,
        writeUnits: m.writeUnits / entries,
      };
    } finally {
      held = true;
    }
  };
  try {
    const rows: { kind: string; usage: Usage; note: string }[] = [];
    const add = (kind: string, usage: Usage, note: string) => rows.push({ kind, usage, note });

    // 1. create 1,000 records, and its capture
    let ids: string[] = [];
    const created = await measured(() =>
      call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: 1000 }, (_, i) => rowOf(i)) },
      }),
    );
    ids = created.value.body.records.map((r: { id: string }) => r.id);
    const createCapture = await capture(1000);
    add(
      'create 1,000 records (3 fields)',
      plus(
        {
          httpRequests: Math.ceil(Buffer.byteLength(JSON.stringify(created.value.body)) / (512 * 1024)),
          lambda: [{ ms: created.ms, memoryMb: API_MB }],
          readUnits: created.readUnits,
          writeUnits: created.writeUnits,
          bytesOut: Buffer.byteLength(JSON.stringify(created.value.body)),
        },
        times(createCapture, 1000),
      ),
      `its 1,000 entries captured (${(createCapture.writeUnits ?? 0).toFixed(1)} WCU an entry)`,
    );
    // 2. list a page of 100 (a table of 1,000)
    const page = await request(() =>
      call('list-records', { token, params: { tableId }, query: 'take=100&skip=300' }),
    );
    add('list a page (100 records)', page.usage, '');
    // 3. update one record (one cell), and its capture
    let n = 0;
    const update = await request(() =>
      call('update-record', {
        token,
        params: { tableId, recordId: ids[n % ids.length] as string },
        body: { record: { fields: { Count: 10_000 + n++ } } },
      }),
    );
    await call('update-records', {
      token,
      params: { tableId },
      body: { records: ids.map((id, i) => ({ id, fields: { Count: i + 1 } })) },
    });
    const updateCapture = await capture(1000 + n);
    add(
      'update a record (one cell)',
      plus(update.usage, updateCapture),
      `its entry captured (${(updateCapture.writeUnits ?? 0).toFixed(1)} WCU)`,
    );
    // 4. a feed page
    const feed = await request(() => call('list-changes', { token, params: { baseId }, query: 'limit=100' }));
    add('a feed page (100 entries)', feed.usage, '');

    // 5. import 10,000 rows (the file uploaded to S3, the worker at 2 GB, its capture)
    const importRows = 10_000;
    const csv = new TextEncoder().encode(
      `Name,Count,Notes\n${Array.from({ length: importRows }, (_, i) => `Row ${i},${i},"note ${i}, a little more text"`).join('\n')}\n`,
    );
    const file = await uploadCsv(token, baseId, csv);
    const imported = await measured(async () => {
      await startCsvImport(token, baseId, file, 'Imported', fields);
      await drainPurges();
    });
    const importCapture = await capture(importRows);
    add(
      'import 10,000 rows (3 columns, 0.5 MB)',
      plus(
        {
          httpRequests: 4, // signature, upload, notify, import
          lambda: [
            { ms: 30, memoryMb: API_MB, invocations: 3 },
            { ms: imported.ms, memoryMb: WORKER_MB },
          ],
          readUnits: imported.readUnits,
          writeUnits: imported.writeUnits,
          s3Puts: 1,
          s3Gets: 2, // read once to count and check, once to write
          sqsRequests: 3 * Math.ceil(importRows / 1000 / 60), // the job sent, received, deleted (resent past the budget)
        },
        times(importCapture, importRows),
      ),
      'its entries captured; the worker at 2 GB',
    );

    // 6. a webhook delivery (one webhook, one entry, a loopback receiver)
    const receiver = await startReceiver();
    try {
      await call('create-webhook', { token, params: { baseId }, body: { url: receiver.url } });
      const deliveries: Awaited<ReturnType<typeof measured>>[] = [];
      for (let i = 0; i < 5; i++) {
        await call('update-record', {
          token,
          params: { tableId, recordId: ids[0] as string },
          body: { record: { fields: { Count: 50_000 + i } } },
        });
        await capture(1);
        const before = receiver.received.length;
        deliveries.push(await measured(() => deliverBase(baseId)));
        await receiver.waitFor(before + 1, 60_000);
      }
      const last = deliveries.at(-1) as (typeof deliveries)[number];
      add(
        'a webhook delivery (signed POST)',
        {
          lambda: [{ ms: median(deliveries.map((d) => d.ms)), memoryMb: API_MB }],
          readUnits: last.readUnits,
          writeUnits: last.writeUnits,
          sqsRequests: 3, // the base's wake-up sent, received, deleted (one delivery a message: the most)
          bytesOut: Buffer.byteLength(JSON.stringify(receiver.received.at(-1) ?? '')),
        },
        'one entry, one webhook',
      );
    } finally {
      await receiver.close();
    }

    // 7. one live message (`/live`): a subscribed connection told of one entry
    {
      const connectionId = 'costLiveConnection=';
      const posted: unknown[] = [];
      const sender = {
        post: async (_: string, message: unknown) => {
          posted.push(message);
          return true;
        },
        close: async () => {},
      };
      await onConnect(connectionId, token.replace(/^Bearer /, ''));
      await onMessage(connectionId, JSON.stringify({ action: 'subscribe', baseId }), sender);
      const entry = (await changesAfter(baseId, (await headSeqOf(baseId)) - 1, 1))[0];
      if (!entry) throw new Error('no entry to fan out');
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await measured(() => fanOut(baseId, [entry], sender)));
      const last = runs.at(-1) as (typeof runs)[number];
      add(
        'one live message (`/live`, one subscriber)',
        {
          lambda: [{ ms: median(runs.map((r) => r.ms)), memoryMb: API_MB, invocations: 0 }],
          readUnits: last.readUnits,
          writeUnits: last.writeUnits,
          webSocketMessages: 1,
          bytesOut: Buffer.byteLength(JSON.stringify(posted.at(-1) ?? '')),
        },
        'in the processor’s run',
      );
    }

    // 8. the realtime socket on API Gateway staged here: an op, its fan-out, a ping
    const gateway = await startApiGatewaySocket();
    let fanOutEach: Usage | undefined;
    let ping: Usage | undefined;
    try {
      const client = await connectShareDb(gateway.url, { authorization: token });
      const doc = client.connection.get(`rec_${tableId}`, ids[1] as string);
      await docCall(doc, 'subscribe');
      await gateway.idle();
      // the web app writes through REST (the socket takes no writes); the socket tells the open tabs
      await call('update-record', {
        token,
        params: { tableId, recordId: ids[1] as string },
        body: { record: { fields: { Count: 70_000 } } },
      });
      gateway.setPublishing(false);
      await capture(1);
      // the fan-out of one entry to one connection holding the record
      const entry = (await changesAfter(baseId, (await headSeqOf(baseId)) - 1, 1))[0];
      if (!entry) throw new Error('no entry to fan out');
      const sender = managementPoster(gateway.url.replace('ws:', 'http:'));
      const fans = [];
      for (let i = 0; i < 5; i++) fans.push(await measured(() => socketFanOut(baseId, [entry], sender)));
      const lastFan = fans.at(-1) as (typeof fans)[number];
      fanOutEach = {
        lambda: [{ ms: median(fans.map((f) => f.ms)), memoryMb: API_MB, invocations: 0 }],
        readUnits: lastFan.readUnits,
        writeUnits: lastFan.writeUnits,
        webSocketMessages: 1,
      };
      add('a `/socket` op (a change told to an open tab)', fanOutEach, 'in the processor’s run');
      const pings = [];
      for (let i = 0; i < 5; i++)
        pings.push(
          await measured(async () => {
            await new Promise<void>((resolve) => {
              client.socket.once('message', () => resolve());
              client.socket.send(JSON.stringify({ a: 'pp' }));
            });
            await gateway.idle();
          }),
        );
      const lastPing = pings.at(-1) as (typeof pings)[number];
      ping = {
        lambda: [{ ms: median(pings.map((p) => p.ms)), memoryMb: API_MB }],
        readUnits: lastPing.readUnits,
        writeUnits: lastPing.writeUnits,
        webSocketMessages: 2,
      };
      add('a `/socket` ping (every 10 s from an open tab)', ping, '');
      client.socket.terminate();
    } finally {
      await gateway.stop();
    }

    // the table
    const per1000 = (c: Cost) =>
      [c.dynamo, c.lambda, c.gateway, c.other, c.total].map((x) => dollars(x * 1000)).join(' | ');
    console.log(
      `Prices: ${PRICES.region}, on-demand list prices as of ${PRICES.asOf}, no free tier (\`test/bench/prices.ts\`). Use measured here: read units as DynamoDB Local reports them, write units as DynamoDB bills the items each write sends (twice in a transaction; \`billedWriteUnits\`), handler time on this machine (warm) billed at the function's memory (1 GB; the import worker 2 GB), so Lambda's share is a floor: a deployed function waits on network round trips this machine does not.\n`,
    );
    console.log(
      '| request | RCU (one) | WCU (one) | Lambda ms (one) | DynamoDB, per 1,000 | Lambda, per 1,000 | API Gateway, per 1,000 | other, per 1,000 | **total, per 1,000** | note |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const { kind, usage, note } of rows) {
      const ms = (usage.lambda ?? []).reduce((s, l) => s + l.ms, 0);
      console.log(
        `| ${kind} | ${(usage.readUnits ?? 0).toFixed(1)} | ${(usage.writeUnits ?? 0).toFixed(1)} | ${ms.toFixed(0)} | ${per1000(costOf(usage))} | ${note} |`,
      );
    }

    // a month of a typical team's use of a 100,000-record base
    const kindOf = (kind: string) => rows.find((r) => r.kind.startsWith(kind))?.usage ?? {};
    const people = 10;
    const days = 22;
    const hours = 8;
    const edits = people * days * 200;
    const month: [string, number, Usage][] = [
      ['pages listed (300 a person a day)', people * days * 300, kindOf('list a page')],
      ['cells edited in the grid (200 a person a day, through REST)', edits, kindOf('update a record')],
      ['edits told to the open tabs as `/socket` ops (10 each)', edits * people, fanOutEach ?? {}],
      ['pings from open tabs (every 10 s, 8 h a day)', people * days * hours * 360, ping ?? {}],
      ['records updated by scripts (500 a day)', days * 500, kindOf('update a record')],
      ['batch creates of 1,000 (2 a day)', days * 2, kindOf('create 1,000')],
      ['imports of 10,000 rows (one a week)', 4, kindOf('import 10,000')],
      [
        'webhook deliveries (2 webhooks, every change)',
        2 * (edits + days * 500 + days * 2000 + 40_000),
        kindOf('a webhook'),
      ],
      ['feed pages (an integration, one a minute)', 30 * 24 * 60, kindOf('a feed page')],
    ];
    // storage: a record of 10 fields (~1 KB) and its order entry, the change log's entries of a month
    // (~0.5 KB each, kept 30 days), point-in-time recovery not counted
    const storedGb = (100_000 * 1.1 * 1024 + (edits + days * 2500 + 40_000) * 512) / 1024 ** 3;
    const connectionMinutes = people * days * hours * 60;
    let total = 0;
    console.log(
      `\nA month of a typical team's use of a 100,000-record base (assumed: ${people} people, ${days} working days, the web app open ${hours} h a day; the counts below; prices as above):\n`,
    );
    console.log('| use | count a month | cost |');
    console.log('|---|---:|---:|');
    for (const [what, count, usage] of month) {
      const cost = costOf(times(usage, count)).total;
      total += cost;
      console.log(`| ${what} | ${count.toLocaleString('en')} | ${dollars(cost)} |`);
    }
    const storage = storedGb * PRICES.dynamoGbMonth;
    const minutes = connectionMinutes * PRICES.webSocketMinute;
    total += storage + minutes;
    console.log(
      `| WebSocket connection-minutes | ${connectionMinutes.toLocaleString('en')} | ${dollars(minutes)} |`,
    );
    console.log(`| DynamoDB storage (about ${storedGb.toFixed(2)} GB) | 1 | ${dollars(storage)} |`);
    console.log(`| **total** | | **${dollars(total)}** |`);
  } finally {
    await poller.stop();
  }
};

if (isScript(import.meta.url)) await runAlone('cost', costBench, { inProcessPurges: true });
