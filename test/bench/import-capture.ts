/**
 * The change capture under a bulk write (issue 49), the local poller as `npm start` runs it (its lag
 * reported, so an import paces itself): capture's own rate with nothing else writing; then an
 * import of `IMPORT_CAPTURE_ROWS` (100,000) rows × 10 columns into one base while a record of
 * another base is edited every half second — each edit's time from its answer to its entry in the
 * log, to its webhook at a loopback receiver and to a live subscriber's message — with the
 * capture's lag sampled throughout: its peak, and its drain time after the import's last row.
 *
 * Run inside `npm run bench` (`BENCH_ONLY=import-capture`), or alone: `tsx test/bench/import-capture.ts`.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isScript, runAlone } from './alone.ts';
import { startCsvImport, uploadCsv } from './csv-import.ts';

const ROWS = Number(process.env.IMPORT_CAPTURE_ROWS || 100_000);
/** Records written with the capture stopped, then captured alone (its own rate). */
const IDLE_ENTRIES = 10_000;

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const figures = (xs: number[]) =>
  xs.length
    ? `p50 ${(percentile(xs, 50) / 1000).toFixed(1)} s, p95 ${(percentile(xs, 95) / 1000).toFixed(1)} s, max ${(Math.max(...xs) / 1000).toFixed(1)} s`
    : 'none arrived';

export const importCaptureBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const { PACE_LAG_MS } = await import('#shared/bulk/import.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { reportCaptureLag } = await import('#shared/changes/capture-lag.ts');
  const { headSeqOf } = await import('#shared/entities/change-log.ts');
  const { billedWriteUnits, callSummary, resetCalls } = await import('#shared/db/metrics.ts');
  const { startReceiver } = await import('#test/support/webhook-receiver.ts');
  const { createLocalServer, listen } = await import('#infra/local/server.ts');
  const { default: WebSocket } = await import('ws');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;
  const checkpointFile = join(await mkdtemp(join(tmpdir(), 'import-capture-')), 'checkpoints.json');

  console.log(`\n## Change capture under an import (${ROWS.toLocaleString('en')} rows)\n`);
  const space = await call('create-space', { token, body: { name: 'Capture' } });
  const newBase = async () =>
    (await call('create-base', { token, body: { spaceId: space.body.id } })).body.id as string;
  const busy = await newBase();
  const quiet = await newBase();
  const quietTable = await call('create-table', {
    token,
    params: { baseId: quiet },
    body: { fields: [{ name: 'Name', type: 'singleLineText' }], records: [{ fields: { Name: 'n' } }] },
  });
  const quietRecord = quietTable.body.records[0]?.id as string;

  // 1. capture's own rate: records written with the capture stopped, then captured with nothing else writing
  {
    const settle = startStreamPoller({ endpoint, tableName, startAt: 'TRIM_HORIZON', checkpointFile });
    await settle.caughtUp(600_000);
    await settle.stop();
    const table = await call('create-table', {
      token,
      params: { baseId: busy },
      body: {
        fields: [
          { name: 'Name', type: 'singleLineText' },
          { name: 'Count', type: 'number' },
        ],
        records: [],
      },
    });
    const start = await headSeqOf(busy);
    for (let from = 0; from < IDLE_ENTRIES; from += 1000)
      await call('create-records', {
        token,
        params: { tableId: table.body.id },
        body: {
          records: Array.from({ length: 1000 }, (_, i) => ({ fields: { Name: `r${from + i}`, Count: i } })),
        },
      });
    resetCalls();
    const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST', checkpointFile });
    const t = performance.now();
    while ((await headSeqOf(busy)) < start + IDLE_ENTRIES) await sleep(20);
    const ms = performance.now() - t;
    // the stream's last records too (the checkpoint at its end: the import below starts from there)
    await poller.caughtUp(600_000);
    await poller.stop();
    const work = callSummary();
    console.log(
      `Capture alone (${IDLE_ENTRIES.toLocaleString('en')} records created with the capture stopped, then captured with nothing else writing): ${(ms / 1000).toFixed(1)} s, ${Math.round((IDLE_ENTRIES / ms) * 1000).toLocaleString('en')} entries/s; per entry ${(work.calls / IDLE_ENTRIES).toFixed(2)} DynamoDB calls, ${(billedWriteUnits() / IDLE_ENTRIES).toFixed(1)} WCU as DynamoDB bills them, ${(work.readUnits / IDLE_ENTRIES).toFixed(2)} RCU (stream reads not counted); ${work.sequentialRoundTrips.toLocaleString('en')} sequential round trips in all.`,
    );
  }

  // 2. the import, with the capture beside it, a webhook and a live subscriber on the quiet base
  const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST', checkpointFile });
  reportCaptureLag(() => poller.lagMs());
  const receiver = await startReceiver();
  const server = createLocalServer();
  const port = await listen(server, 0);
  const live = new WebSocket(
    `ws://127.0.0.1:${port}/api/live?token=${encodeURIComponent(token.replace(/^Bearer /, ''))}`,
  );
  let liveMessages = 0;
  const subscribed = new Promise<void>((resolve, reject) => {
    live.on('open', () => live.send(JSON.stringify({ action: 'subscribe', baseId: quiet })));
    live.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string };
      if (m.type === 'subscribed') resolve();
      if (m.type === 'change') liveMessages++;
    });
    live.on('error', reject);
  });
  try {
    await subscribed;
    await poller.caughtUp(600_000);
    while (poller.lagMs() > 0) await poller.caughtUp(600_000);
    await call('create-webhook', { token, params: { baseId: quiet }, body: { url: receiver.url } });

    const colors = ['red', 'green', 'blue', 'amber'];
    const columns = [
      ['Name', 'singleLineText', (i: number) => `Item ${i}`],
      ['Code', 'singleLineText', (i: number) => `C-${(i * 7919) % 100000}`],
      ['Qty', 'number', (i: number) => String(i % 500)],
      ['Price', 'number', (i: number) => String((i % 997) / 10)],
      [
        'Added',
        'date',
        (i: number) =>
          `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      ],
      ['Color', 'singleSelect', (i: number) => colors[i % 4] as string],
      ['Active', 'checkbox', (i: number) => String(i % 3 === 0)],
      ['City', 'singleLineText', (i: number) => `City ${i % 50}`],
      ['Notes', 'longText', (i: number) => `"note ${i}, more"`],
      ['Score', 'number', (i: number) => String(i % 100)],
    ] as const;
    const lines = [columns.map((c) => c[0]).join(',')];
    for (let i = 0; i < ROWS; i++) lines.push(columns.map((c) => c[2](i)).join(','));
    const file = await uploadCsv(token, busy, new TextEncoder().encode(`${lines.join('\n')}\n`));

    const importStart = await headSeqOf(busy);
    const lags: number[] = [];
    let importing = true;
    const sampler = (async () => {
      while (importing) {
        lags.push(poller.lagMs());
        await sleep(250);
      }
    })();
    const started = performance.now();
    const run = (async () => {
      await startCsvImport(
        token,
        busy,
        file,
        'Imported',
        columns.map(([name, type]) => ({ name, type })),
      );
      await drainPurges();
      return performance.now() - started;
    })();
    let done: number | undefined;
    void run.then((ms) => {
      done = ms;
    });

    // the neighbour: an edit every half second while the import runs, each followed to its three ends
    const toLog: number[] = [];
    const toWebhook: number[] = [];
    const toLive: number[] = [];
    for (let i = 0; done === undefined; i++) {
      const [seq, hooks, messages] = [await headSeqOf(quiet), receiver.received.length, liveMessages];
      await call('update-record', {
        token,
        params: { tableId: quietTable.body.id, recordId: quietRecord },
        body: { record: { fields: { Name: `edit ${i}` } } },
      });
      const t = performance.now();
      const waiting = { log: true, hook: true, live: true };
      while ((waiting.log || waiting.hook || waiting.live) && performance.now() - t < 300_000) {
        const now = performance.now() - t;
        if (waiting.log && (await headSeqOf(quiet)) > seq) {
          toLog.push(now);
          waiting.log = false;
        }
        if (waiting.hook && receiver.received.length > hooks) {
          toWebhook.push(now);
          waiting.hook = false;
        }
        if (waiting.live && liveMessages > messages) {
          toLive.push(now);
          waiting.live = false;
        }
        await sleep(10);
      }
      await sleep(500);
    }
    const importMs = await run;
    const capturedDuring = (await headSeqOf(busy)) - importStart;
    const drainStart = performance.now();
    while ((await headSeqOf(busy)) < importStart + ROWS) await sleep(50);
    const drainMs = performance.now() - drainStart;
    importing = false;
    await sampler;
    console.log(
      `Import of ${ROWS.toLocaleString('en')} rows × 10 columns, the capture beside it (the import waits while the capture is more than ${PACE_LAG_MS / 1000} s behind): ${(importMs / 1000).toFixed(1)} s, ${Math.round((ROWS / importMs) * 1000).toLocaleString('en')} rows/s; capture during it ${Math.round((capturedDuring / importMs) * 1000).toLocaleString('en')} entries/s; the capture's lag at most ${(Math.max(0, ...lags) / 1000).toFixed(1)} s (sampled every 250 ms), all captured ${(drainMs / 1000).toFixed(1)} s after the import's end.`,
    );
    console.log(
      `The neighbour base meanwhile, ${toLog.length} edits (one every half second after the last one arrived): answer → entry in its log ${figures(toLog)}; → its webhook at a loopback receiver ${figures(toWebhook)}; → a live subscriber ${figures(toLive)} (goal p95 ≤ 5 s).`,
    );
  } finally {
    reportCaptureLag(undefined);
    live.terminate();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await poller.stop();
    await receiver.close();
  }
};

if (isScript(import.meta.url))
  await runAlone('import-capture', importCaptureBench, { inProcessPurges: true });
