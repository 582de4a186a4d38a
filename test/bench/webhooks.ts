/**
 * Figures of webhooks (issue 31): commit → delivery at a loopback receiver (the local poller and
 * the in-process sender, as `npm start` runs them), deliveries per second with 20 webhooks on one
 * base, and a receiver down for 10 minutes then up (on the sender's own clock: the retries it
 * schedules are played at their times rather than waited for), checked for every event, order per
 * record, and no event twice to a receiver that answered 2xx; and live subscriptions: commit →
 * message with 100 WebSocket clients on the local server.
 *
 * Run inside `npm run bench`, or alone: `tsx test/bench/webhooks.ts` (its own DynamoDB Local).
 */
import { isScript, runAlone } from './alone.ts';

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

export const webhooksBench = async (token: string) => {
  const { call } = await import('#test/support/invoke.ts');
  const { startReceiver } = await import('#test/support/webhook-receiver.ts');
  const { startStreamPoller } = await import('#infra/local/stream-poller.ts');
  const { deliverBase } = await import('#shared/webhooks/deliver.ts');
  const { deliverWebhooksInProcess, settleWebhooks } = await import('#shared/webhooks/queue.ts');
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const tableName = process.env.TABLE_NAME as string;

  /** A new base with a table (Name, Count). */
  const newBase = async () => {
    const space = await call('create-space', { token, body: { name: 'Webhooks' } });
    const base = await call('create-base', { token, body: { spaceId: space.body.id } });
    const table = await call('create-table', {
      token,
      params: { baseId: base.body.id },
      body: {
        fields: [
          { name: 'Name', type: 'singleLineText' },
          { name: 'Count', type: 'number' },
        ],
        records: [],
      },
    });
    return { baseId: base.body.id as string, tableId: table.body.id as string };
  };
  const hook = (baseId: string, url: string) =>
    call('create-webhook', { token, params: { baseId }, body: { url } });

  console.log('\n## Webhooks (delivery from the change log)\n');
  deliverWebhooksInProcess((baseId) => deliverBase(baseId));
  const poller = startStreamPoller({ endpoint, tableName, startAt: 'LATEST' });
  const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
  try {
    await poller.caughtUp(60_000);
    // 1. Commit → delivery, sequential single-cell updates, one webhook.
    {
      const { baseId, tableId } = await newBase();
      const r = await startReceiver();
      receivers.push(r);
      await hook(baseId, r.url);
      const created = await call('create-records', {
        token,
        params: { tableId },
        body: { records: [{ fields: { Name: 'a', Count: 0 } }] },
      });
      await r.waitFor(1, 60_000);
      const recordId = created.body.records[0]?.id as string;
      const latencies: number[] = [];
      for (let i = 0; i < 100; i++) {
        const before = r.received.length;
        await call('update-record', {
          token,
          params: { tableId, recordId },
          body: { record: { fields: { Count: i + 1 } } },
        });
        const t = performance.now();
        await r.waitFor(before + 1, 60_000);
        latencies.push(performance.now() - t);
      }
      console.log(
        `Commit → delivery at a loopback receiver (100 single-cell updates one after another; the local poller idles 200 ms between empty reads): p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (goal p95 ≤ 5 s).`,
      );
    }

    // 2. Throughput: 20 webhooks on one base, 500 records created in five calls.
    {
      const { baseId, tableId } = await newBase();
      const many = await Promise.all(Array.from({ length: 20 }, () => startReceiver()));
      receivers.push(...many);
      for (const r of many) await hook(baseId, r.url);
      const t = performance.now();
      for (let i = 0; i < 5; i++)
        await call('create-records', {
          token,
          params: { tableId },
          body: { records: Array.from({ length: 100 }, (_, j) => ({ fields: { Name: `r${i * 100 + j}` } })) },
        });
      await Promise.all(many.map((r) => r.waitFor(500, 600_000)));
      const ms = performance.now() - t;
      const ordered = many.every((r) => {
        const seqs = r.events().map((e) => e.seq);
        return seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number));
      });
      console.log(
        `20 webhooks on one base, 500 records created (5 calls of 100): ${(20 * 500).toLocaleString('en')} deliveries in ${(ms / 1000).toFixed(1)} s from the first write, ${Math.round((20 * 500) / (ms / 1000)).toLocaleString('en')} deliveries/s; every receiver in seq order: ${ordered}.`,
      );
    }
    await settleWebhooks();

    // 3. A receiver down for 10 minutes, then up, on the sender's clock.
    {
      const { baseId, tableId } = await newBase();
      let simulated = Date.now();
      const upAt = simulated + 10 * 60_000;
      /** The events the receiver answered 2xx, in the order it got them. */
      const accepted: { id: string; seq: number; recordId?: string }[] = [];
      const r = await startReceiver((request) => {
        if (simulated < upAt) return { status: 503 };
        const event = JSON.parse(request.body) as { id: string; seq: number; data: { recordId?: string } };
        accepted.push({ id: event.id, seq: event.seq, recordId: event.data.recordId });
        return { status: 200 };
      });
      receivers.push(r);
      // the sender runs only when this section says, at the simulated time
      deliverWebhooksInProcess(async () => undefined);
      await hook(baseId, r.url);
      const created = await call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: 5 }, (_, i) => ({ fields: { Name: `p${i}`, Count: 0 } })) },
      });
      const ids = created.body.records.map((x: { id: string }) => x.id) as string[];
      for (let round = 1; round <= 10; round++)
        await Promise.all(
          ids.map((recordId) =>
            call('update-record', {
              token,
              params: { tableId, recordId },
              body: { record: { fields: { Count: round } } },
            }),
          ),
        );
      await poller.caughtUp(60_000);
      const log = await call('list-changes', { token, params: { baseId }, query: 'limit=1000' });
      const expected = (log.body.changes as { id: string; type: string }[]).filter((c) =>
        c.type.startsWith('record.'),
      );
      let runs = 0;
      for (;;) {
        runs++;
        const next = await deliverBase(baseId, { now: () => simulated });
        if (next === undefined) break;
        simulated = Math.max(simulated + 1, next);
      }
      const acceptedIds = accepted.map((e) => e.id);
      const allArrived = expected.every((e) => acceptedIds.includes(e.id));
      const noneTwice = new Set(acceptedIds).size === acceptedIds.length;
      const inOrder = ids.every((recordId) => {
        const seqs = accepted.filter((e) => e.recordId === recordId).map((e) => e.seq);
        return seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] as number));
      });
      console.log(
        `A receiver down for 10 minutes (503 to everything), then up, ${expected.length} events (5 records created, each updated 10 times at once): every event arrived: ${allArrived}; in order per record: ${inOrder}; none twice to the receiver after its 2xx: ${noneTwice}; ${r.received.length - accepted.length} attempts refused while down (the first event's retries, backing off to the 10-minute mark), ${runs} sender runs.`,
      );
      deliverWebhooksInProcess((b) => deliverBase(b));
    }

    // 4. Live: 100 WebSocket clients on one base, commit → message at every client.
    {
      const { createLocalServer, listen } = await import('#infra/local/server.ts');
      const { default: WebSocket } = await import('ws');
      const { baseId, tableId } = await newBase();
      await poller.caughtUp(60_000);
      const server = createLocalServer();
      const port = await listen(server, 0);
      const clients: { ws: InstanceType<typeof WebSocket>; got: Map<number, number> }[] = [];
      try {
        const raw = token.replace(/^Bearer /, '');
        for (let i = 0; i < 100; i++) {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/api/live?token=${encodeURIComponent(raw)}`);
          const got = new Map<number, number>();
          await new Promise<void>((resolve, reject) => {
            ws.on('open', () => {
              ws.send(JSON.stringify({ action: 'subscribe', baseId }));
            });
            ws.on('message', (data) => {
              const m = JSON.parse(String(data)) as { type: string; entry?: { seq: number } };
              if (m.type === 'subscribed') resolve();
              if (m.type === 'change' && m.entry) got.set(m.entry.seq, performance.now());
            });
            ws.on('error', reject);
          });
          clients.push({ ws, got });
        }
        const created = await call('create-records', {
          token,
          params: { tableId },
          body: { records: [{ fields: { Name: 'live', Count: 0 } }] },
        });
        const recordId = created.body.records[0]?.id as string;
        await poller.caughtUp(60_000);
        const latencies: number[] = [];
        const seen = () => Math.min(...clients.map((c) => c.got.size));
        for (let i = 0; i < 30; i++) {
          const before = seen();
          await call('update-record', {
            token,
            params: { tableId, recordId },
            body: { record: { fields: { Count: i + 1 } } },
          });
          const t = performance.now();
          const end = t + 60_000;
          while (seen() <= before && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
          for (const c of clients) {
            const at = [...c.got.values()].at(-1);
            if (at !== undefined) latencies.push(at - t);
          }
        }
        console.log(
          `Live: 100 WebSocket clients on one base (the local server), 30 single-cell updates one after another: commit → message at a client p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms (goal ≤ 2 s); every client got all ${seen()} changes.`,
        );
      } finally {
        for (const c of clients) c.ws.terminate();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
    }
  } finally {
    await poller.stop();
    await settleWebhooks();
    for (const r of receivers) await r.close();
  }
};

if (isScript(import.meta.url)) await runAlone('webhooks', webhooksBench, { inProcessPurges: true });
