/**
 * `npm run load`: a bounded load test on loopback. Starts the API (`infra/local/start.ts
 * --in-memory`, its own DynamoDB Local) in a child process, seeds one table, then runs N clients
 * for T seconds, each looping over a mix of reads and writes, and prints requests, errors,
 * latency percentiles and the API process's memory. Beside the clients, a probe measures how
 * long a committed write takes to be readable in the change feed (data-flow.md 1: p95 ≤ 2 s
 * locally under this load): it updates one record every 250 ms and reads the base's feed until
 * the entry is there. With `--url` and `--token` it loads a server that is already running
 * instead (memory is then not measured).
 *
 *   npm run load -- --clients 16 --seconds 30
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { connectShareDb, subscribeQuery } from '#test/support/sharedb-client.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '30' },
    url: { type: 'string' },
    token: { type: 'string' },
  },
});
const CLIENTS = Math.max(1, Math.min(256, Number(values.clients)));
const SECONDS = Math.max(1, Math.min(600, Number(values.seconds)));

/** Starts the API with an in-memory database; answers its URL, token and process. */
const startApi = async (): Promise<{ url: string; token: string; child: ChildProcess }> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/start.ts', '--in-memory', '--port', '0'],
    {
      env: {
        ...process.env,
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the API exited (${code}) before it was ready:\n${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API\s+(http\S+)/.exec(out)?.[1];
      const token = /Token\s+(\S+)/.exec(out)?.[1];
      if (url && token) resolve({ url, token, child });
    });
  });
};

/** Resident memory of a process in MB (Linux /proc), or undefined. */
const rssMb = async (pid: number | undefined): Promise<number | undefined> => {
  if (!pid) return undefined;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : undefined;
};

interface Sample {
  kind: string;
  ms: number;
  status: number;
}

const main = async () => {
  const api = values.url && values.token ? undefined : await startApi();
  const base = (values.url ?? api?.url ?? '').replace(/\/$/, '');
  const auth = { authorization: `Bearer ${values.token ?? api?.token}`, 'content-type': 'application/json' };
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: auth,
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  try {
    // One table of 200 records with a text, a number and a checkbox field.
    const space = await request('POST', '/space', { name: 'Load' });
    const baseRes = await request('POST', '/base', { spaceId: space.body.id, name: 'Load' });
    const table = await request('POST', `/base/${baseRes.body.id}/table`, {
      name: 'Load',
      fields: [
        { name: 'Name', type: 'singleLineText' },
        { name: 'N', type: 'number' },
        { name: 'Done', type: 'checkbox' },
      ],
      records: Array.from({ length: 200 }, (_, i) => ({
        fields: { Name: `row ${i}`, N: i, Done: i % 3 === 0 ? true : null },
      })),
    });
    if (table.status !== 201)
      throw new Error(`seeding failed: ${table.status} ${JSON.stringify(table.body)}`);
    const tableId = table.body.id as string;
    const ids = (table.body.records as { id: string }[]).map((r) => r.id);
    const pick = () => ids[Math.floor(Math.random() * ids.length)] as string;
    const filter = encodeURIComponent(
      JSON.stringify({ conjunction: 'and', filterSet: [{ fieldId: 'N', operator: 'isGreater', value: 50 }] }),
    );
    const orderBy = encodeURIComponent(JSON.stringify([{ fieldId: 'N', order: 'desc' }]));
    const MIX: [number, string, () => Promise<{ status: number }>][] = [
      [
        50,
        'list',
        () => request('GET', `/table/${tableId}/record?take=50&skip=${Math.floor(Math.random() * 150)}`),
      ],
      [
        5,
        'list filtered+sorted',
        () =>
          request(
            'GET',
            `/table/${tableId}/record?take=50&fieldKeyType=name&filter=${filter}&orderBy=${orderBy}`,
          ),
      ],
      [15, 'get', () => request('GET', `/table/${tableId}/record/${pick()}`)],
      [
        20,
        'patch',
        () =>
          request('PATCH', `/table/${tableId}/record/${pick()}`, {
            record: { fields: { Name: `edit ${Date.now()}` } },
          }),
      ],
      [
        10,
        'create 5',
        () =>
          request('POST', `/table/${tableId}/record`, {
            records: Array.from({ length: 5 }, () => ({ fields: { Name: 'new' } })),
          }),
      ],
    ];
    const total = MIX.reduce((n, [w]) => n + w, 0);
    const choose = () => {
      let r = Math.random() * total;
      for (const entry of MIX) {
        r -= entry[0];
        if (r < 0) return entry;
      }
      return MIX[0] as (typeof MIX)[number];
    };

    const baseId = baseRes.body.id as string;
    const probeId = ids[0] as string;
    const lags: { at: number; ms: number }[] = [];
    let probesLost = 0;
    /** One write by the probe: the time from its answer until the feed has its entry, or undefined. */
    const probeOnce = async (mark: string, cursor: string): Promise<{ ms?: number; cursor: string }> => {
      const res = await request('PATCH', `/table/${tableId}/record/${probeId}`, {
        record: { fields: { Name: mark } },
      });
      if (res.status !== 200) return { cursor };
      const committed = performance.now();
      for (let next = cursor; performance.now() - committed < 30_000; ) {
        const page = await request('GET', `/base/${baseId}/changes?limit=1000&cursor=${next}`);
        if (page.status !== 200) return { cursor: next };
        next = page.body.cursor as string;
        const seen = (page.body.changes as { recordId?: string; after?: Record<string, unknown> }[]).some(
          (e) => e.recordId === probeId && Object.values(e.after ?? {}).includes(mark),
        );
        if (seen) return { ms: performance.now() - committed, cursor: next };
        if (!page.body.hasMore) await new Promise((r) => setTimeout(r, 20));
      }
      return { cursor };
    };

    const samples: Sample[] = [];
    let failures = 0;
    let peakRss = (await rssMb(api?.child.pid)) ?? 0;
    const startRss = peakRss;
    const sampler = setInterval(async () => {
      peakRss = Math.max(peakRss, (await rssMb(api?.child.pid)) ?? 0);
    }, 500);
    const started = Date.now();
    const end = started + SECONDS * 1000;
    const probe = async () => {
      let cursor = (await request('GET', `/base/${baseId}/changes?cursor=latest`)).body.cursor as string;
      for (let n = 0; Date.now() < end; n++) {
        const at = Date.now() - started;
        const out = await probeOnce(`probe ${n}`, cursor);
        cursor = out.cursor;
        if (out.ms === undefined) probesLost++;
        else lags.push({ at, ms: out.ms });
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    // The realtime socket under the same load: a ShareDB client subscribed to the table's first
    // 300 records; a PATCH every 250 ms, timed from its answer until the client holds the new cell.
    const socketLags: { at: number; ms: number }[] = [];
    let socketLost = 0;
    const socketProbe = async () => {
      const url = `${base.replace(/^http/, 'ws').replace(/\/api$/, '')}/socket`;
      const client = await connectShareDb(url, { authorization: auth.authorization });
      try {
        const views = await request('GET', `/table/${tableId}/view`);
        const { query } = await subscribeQuery(client.connection, `rec_${tableId}`, {
          viewId: views.body[0].id,
          take: 300,
        });
        const target = query.results.find((d) => d.id === ids[1]);
        const nameId = (table.body.fields as { id: string; name: string }[]).find(
          (f) => f.name === 'Name',
        )?.id;
        if (!target || !nameId) throw new Error('the socket probe found no record to follow');
        for (let n = 0; Date.now() < end; n++) {
          const at = Date.now() - started;
          const mark = `socket ${n}`;
          const res = await request('PATCH', `/table/${tableId}/record/${ids[1]}`, {
            record: { fields: { Name: mark } },
          });
          if (res.status !== 200) continue;
          const committed = performance.now();
          while (
            (target.data as { fields: Record<string, unknown> }).fields[nameId] !== mark &&
            performance.now() - committed < 30_000
          )
            await new Promise((r) => setTimeout(r, 5));
          if ((target.data as { fields: Record<string, unknown> }).fields[nameId] === mark)
            socketLags.push({ at, ms: performance.now() - committed });
          else socketLost++;
          await new Promise((r) => setTimeout(r, 250));
        }
      } finally {
        client.socket.terminate();
      }
    };
    await Promise.all([
      probe(),
      socketProbe(),
      ...Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < end) {
          const [, kind, run] = choose();
          const started = performance.now();
          try {
            const res = await run();
            samples.push({ kind, ms: performance.now() - started, status: res.status });
          } catch {
            failures++;
          }
        }
      }),
    ]);
    clearInterval(sampler);
    const endRss = (await rssMb(api?.child.pid)) ?? 0;

    const pct = (sorted: number[], p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
    const line = (label: string, list: Sample[]) => {
      const ms = list.map((s) => s.ms).sort((a, b) => a - b);
      const errors = list.filter((s) => s.status >= 500).length;
      const client = list.filter((s) => s.status >= 400 && s.status < 500).length;
      return `| ${label} | ${list.length} | ${errors} | ${client} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ${pct(ms, 99).toFixed(1)} |`;
    };
    console.log(
      `\nLoad: ${CLIENTS} clients, ${SECONDS} s, ${base} (${new Date().toISOString().slice(0, 10)})`,
    );
    console.log(
      `Requests ${samples.length} (${(samples.length / SECONDS).toFixed(1)}/s), connection failures ${failures}`,
    );
    console.log('| request | count | 5xx | 4xx | p50 ms | p95 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(line('all', samples));
    for (const [, kind] of MIX)
      console.log(
        line(
          kind,
          samples.filter((s) => s.kind === kind),
        ),
      );
    const lagLine = (label: string, list: { ms: number }[]) => {
      const ms = list.map((l) => l.ms).sort((a, b) => a - b);
      return `${label}: ${list.length} probes, p50 ${pct(ms, 50).toFixed(0)} ms, p95 ${pct(ms, 95).toFixed(0)} ms, max ${(ms.at(-1) ?? 0).toFixed(0)} ms`;
    };
    const half = (SECONDS * 1000) / 2;
    console.log(
      `\nCommit → entry readable in the change feed, under this load (a PATCH every 250 ms, the feed read until its entry is there; ${probesLost} not seen within 30 s):`,
    );
    console.log(`- ${lagLine('whole run', lags)}`);
    console.log(
      `- ${lagLine(
        'first half',
        lags.filter((l) => l.at < half),
      )}`,
    );
    console.log(
      `- ${lagLine(
        'second half',
        lags.filter((l) => l.at >= half),
      )} (a growing lag would show here)`,
    );
    console.log(
      `\nCommit → op at a ShareDB client subscribed to the table (/socket), under this load (a PATCH every 250 ms; ${socketLost} not seen within 30 s):`,
    );
    console.log(`- ${lagLine('whole run', socketLags)}`);
    if (api)
      console.log(
        `API process memory (RSS): ${startRss.toFixed(0)} MB at start, ${peakRss.toFixed(0)} MB peak, ${endRss.toFixed(0)} MB at end`,
      );
    const bad = samples.filter((s) => s.status >= 500).length + failures + probesLost + socketLost;
    process.exitCode = bad ? 1 : 0;
  } finally {
    api?.child.kill('SIGTERM');
  }
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
