/**
 * `npm run bench`: figures, never assertions. Bundle size of every Lambda (the stack's own
 * esbuild options), module-load time of a bundle in a fresh Node process, and per request the
 * DynamoDB calls, sequential round trips, capacity units and handler time, against DynamoDB Local.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#infra/bundling.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { configureEnvironment, ensureSigningKeys } from '#infra/local/environment.ts';
import { ensureTable } from '#infra/local/table.ts';
import { ROUTES } from '#shared/routes.ts';
import { writeReadmeFigures } from './readme-figures.ts';

const root = new URL('../../', import.meta.url).pathname;
const outDir = join(root, '.bench');
const RUNS = 20;

/**
 * Sections: `BENCH_ONLY=computed,listing` prints only those, `BENCH_SKIP=bundles,purge` leaves
 * those out. Names: bundles, requests, records, listing, million (only with BENCH_LISTING_1M=1),
 * adhoc, adhoc-million (only with BENCH_ADHOC_1M=1), organizations, context-menu, nodes, purge, computed, changes, attachments, import-capture, bulk, webhooks, realtime, cost.
 */
const sectionList = (name: string) =>
  (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const ONLY = sectionList('BENCH_ONLY');
const SKIP = sectionList('BENCH_SKIP');
const wanted = (section: string) => (ONLY.length === 0 || ONLY.includes(section)) && !SKIP.includes(section);

/** What each section printed: with `BENCH_README=1` the README's figure blocks become it (`readme-figures.ts`). */
const printed = new Map<string, string[]>();

/** Runs a wanted section, keeping what it prints. */
const section = async (name: string, run: () => Promise<void>) => {
  if (!wanted(name)) return;
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
    log(...args);
  };
  try {
    await run();
  } finally {
    console.log = log;
  }
  printed.set(name, lines);
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/** A request's calls in order, repeats folded: `BatchGetItem, BatchWriteItem ×40, TransactWriteItems`. */
const opsText = (ops: readonly string[]): string => {
  const runs: [string, number][] = [];
  for (const op of ops) {
    const last = runs.at(-1);
    if (last && last[0] === op) last[1]++;
    else runs.push([op, 1]);
  }
  return runs.map(([op, n]) => (n > 1 ? `${op} ×${n}` : op)).join(', ');
};

/** The goal for module load in a fresh process, median over every bundle. */
const LOAD_GOAL_MS = 200;

const bundles = async () => {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const rows: { handler: string; bytes: number; gzip: number; loadMs: number }[] = [];
  for (const route of ROUTES) {
    const outfile = join(outDir, route.handler, 'index.mjs');
    await build(esbuildOptionsFor(join(root, 'functions', `${route.handler}.ts`), outfile, route.handler));
    const bytes = (await stat(outfile)).size;
    const gzip = gzipSync(readFileSync(outfile)).length;
    // Module load in a fresh process: what a cold start pays for our code (the SDK is the runtime's).
    const script = `const t=performance.now();await import(${JSON.stringify(outfile)});console.log(performance.now()-t)`;
    const env = {
      ...process.env,
      TABLE_NAME: 'bench',
      AWS_REGION: 'us-east-1',
      SIGNING_KEYS_FILE: '/dev/null',
    };
    const loads = [0, 1, 2].map(() =>
      Number(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], {
          env,
          encoding: 'utf8',
        }).trim(),
      ),
    );
    rows.push({ handler: route.handler, bytes, gzip, loadMs: median(loads) });
  }
  rows.sort((a, b) => b.bytes - a.bytes);
  const sizes = rows.map((r) => r.bytes).sort((a, b) => a - b);
  console.log(
    '\n## Lambda bundles (minified ESM; AWS SDK and Powertools external, from the runtime and the Powertools layer)\n',
  );
  console.log(
    `${rows.length} bundles: smallest ${kb(sizes[0] ?? 0)}, median ${kb(median(sizes))}, largest ${kb(sizes.at(-1) ?? 0)}.\n`,
  );
  console.log('| handler (the 12 largest) | bundle | gzip | module load (median of 3, fresh process) |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows.slice(0, 12))
    console.log(`| ${r.handler} | ${kb(r.bytes)} | ${kb(r.gzip)} | ${r.loadMs.toFixed(1)} ms |`);
  // The measure of a bundle's weight is what a cold start pays: module load in a fresh process.
  const loads = rows.map((r) => r.loadMs);
  const overGoal = rows.filter((r) => r.loadMs > LOAD_GOAL_MS);
  const slowest = [...rows].sort((a, b) => b.loadMs - a.loadMs)[0];
  console.log(
    `\nModule load, median over all bundles: ${median(loads).toFixed(1)} ms (goal: median at most ${LOAD_GOAL_MS} ms, ${median(loads) <= LOAD_GOAL_MS ? 'met' : 'not met'}); ${overGoal.length} bundles over ${LOAD_GOAL_MS} ms${slowest ? `; the slowest ${slowest.handler} (${kb(slowest.bytes)}) ${slowest.loadMs.toFixed(1)} ms` : ''}.`,
  );
};

const requests = async () => {
  const dynamo = await startDynamoDbLocal();
  let stopS3 = async () => {};
  try {
    const tableName = `bench-${Date.now()}`;
    configureEnvironment({
      endpoint: dynamo.endpoint,
      tableName,
      signingKeysFile: await ensureSigningKeys(outDir),
    });
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    process.env.SIGNUP = 'open'; // the sessions section signs up, as under npm start
    process.env.LOCAL_OUTBOX_DIR = join(outDir, 'outbox'); // mail goes to files, never to SES
    await ensureTable(tableName, dynamo.endpoint);
    // attachments: the local S3-compatible server, before shared code reads its configuration
    const { startS3Local, s3Environment } = await import('#infra/local/s3-local.ts');
    const s3 = await startS3Local();
    stopS3 = s3.stop;
    Object.assign(process.env, s3Environment(s3));
    await import('#test/support/in-process-purges.ts');
    const { call } = await import('#test/support/invoke.ts');
    const { newUser } = await import('#test/support/fixtures.ts');
    const { callSummary, resetCalls } = await import('#shared/db/metrics.ts');
    type Summary = ReturnType<typeof callSummary>;

    const owner = await newUser({ name: 'Owner' });
    const other = await newUser({ name: 'Other' });
    const space = (await call('create-space', { token: owner.auth, body: { name: 'Bench' } })).body
      .id as string;
    for (let i = 0; i < 15; i++) {
      const s = (await call('create-space', { token: owner.auth, body: { name: `S${i}` } })).body
        .id as string;
      await call('add-collaborators', {
        token: owner.auth,
        params: { spaceId: s },
        body: { collaborators: [{ principalId: other.id, principalType: 'user' }], role: 'viewer' },
      });
    }

    const measure = async (
      label: string,
      run: () => Promise<{ status: number }>,
      runs = RUNS,
      warmup = 2,
    ) => {
      const times: number[] = [];
      let summary: Summary | undefined;
      let status = 0;
      for (let i = 0; i < runs + warmup; i++) {
        resetCalls();
        const t = performance.now();
        status = (await run()).status;
        const ms = performance.now() - t;
        if (i >= warmup) times.push(ms); // warm-up calls load the module and open the connection
        if (i === warmup || runs === 1) summary = callSummary();
      }
      const s = summary as Summary;
      console.log(
        `| ${label} | ${status} | ${s.calls} | ${s.sequentialRoundTrips} | ${s.readUnits} | ${s.writeUnits} | ${median(times).toFixed(1)} ms | ${opsText(s.ops)} |`,
      );
    };

    await section('requests', async () => {
      console.log(
        '\n## Requests (warm, DynamoDB Local on loopback; capacity as DynamoDB Local reports it)\n',
      );
      console.log('Table: 2 users, 16 spaces, 15 notifications for the second user.\n');
      console.log(
        '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time (median) | calls |',
      );
      console.log('|---|---:|---:|---:|---:|---:|---:|---|');
      await measure('GET /auth/user/me (goal 1 round trip)', () =>
        call('get-current-user', { token: owner.auth }),
      );
      await measure('POST /space with a name (goal ≤ 2)', () =>
        call('create-space', { token: owner.auth, body: { name: 'N' } }),
      );
      await measure(
        'POST /space default name (goal ≤ 2)',
        () => call('create-space', { token: owner.auth, body: {} }),
        5,
      );
      await measure('GET /notifications/unread-count (goal 1, no scan)', () =>
        call('count-unread-notifications', { token: other.auth }),
      );
      await measure('GET /notifications (page of 10)', () =>
        call('list-notifications', { token: other.auth }),
      );
      await measure('GET /space', () => call('list-spaces', { token: other.auth }));
      await measure('GET /space/{id}', () =>
        call('get-space', { token: owner.auth, params: { spaceId: space } }),
      );
      await measure('GET /space/{id}/collaborators', () =>
        call('list-collaborators', { token: owner.auth, params: { spaceId: space } }),
      );
      await measure('GET /auth/temp-token', () => call('create-temp-token', { token: owner.auth }));
      await measure(
        'PATCH /notifications/read-all (15 unread)',
        () => call('mark-all-notifications-read', { token: other.auth }),
        1,
        0,
      );
    });
    await section('sessions', async () => {
      const { sessionsBench } = await import('./sessions.ts');
      await sessionsBench(owner.auth, measure);
    });
    await section('records', () => records(owner.auth, measure));
    // Listing (issue 4): test/bench/listing.ts; the 100,000-record table is opt-in (BENCH_LISTING_100K=1).
    await section('listing', async () => {
      const { listingBench } = await import('./listing.ts');
      await listingBench(owner.auth);
    });
    // Listing at 1,000,000 records (issue 14): test/bench/million.ts, opt-in (BENCH_LISTING_1M=1).
    if (process.env.BENCH_LISTING_1M === '1')
      await section('million', async () => {
        const { millionBench } = await import('./million.ts');
        await millionBench(owner.auth);
      });
    // Ad-hoc queries at 100,000 records (issue 34): test/bench/ad-hoc.ts; at 1,000,000 opt-in (BENCH_ADHOC_1M=1).
    await section('adhoc', async () => {
      const { adHocBench } = await import('./ad-hoc.ts');
      await adHocBench(owner.auth, 100_000);
    });
    if (process.env.BENCH_ADHOC_1M === '1')
      await section('adhoc-million', async () => {
        const { adHocBench } = await import('./ad-hoc.ts');
        await adHocBench(owner.auth, 1_000_000);
      });
    await section('organizations', () => organizations(owner.auth, measure));
    await section('context-menu', () => contextMenu(owner.auth, measure));
    await section('nodes', () => nodesAndDashboards(owner.auth, measure));
    // Permanent deletes (issue 5): test/bench/purge.ts; 100,000 records are opt-in (BENCH_PURGE_100K=1).
    await section('purge', async () => {
      const { purgeBench } = await import('./purge.ts');
      await purgeBench(owner.auth);
    });
    // Computed fields (issue 12): test/bench/computed.ts; table sizes BENCH_COMPUTED_RECORDS (10,000).
    await section('computed', async () => {
      const { computedBench } = await import('./computed.ts');
      await computedBench(owner.auth);
    });
    // The change log (issue 28): test/bench/changes.ts.
    await section('changes', async () => {
      const { changesBench } = await import('./changes.ts');
      await changesBench(owner.auth);
    });
    // Attachments (issue 29): test/bench/attachments.ts.
    // The capture under an import, a neighbour base beside it (issue 49): test/bench/import-capture.ts.
    await section('import-capture', async () => {
      const { importCaptureBench } = await import('./import-capture.ts');
      await importCaptureBench(owner.auth);
    });
    await section('bulk', async () => {
      const { bulkBench } = await import('./bulk.ts');
      await bulkBench(owner.auth);
    });
    await section('attachments', async () => {
      const { attachmentsBench } = await import('./attachments.ts');
      await attachmentsBench(owner.auth);
    });
    // Webhooks (issue 31): test/bench/webhooks.ts.
    await section('webhooks', async () => {
      const { webhooksBench } = await import('./webhooks.ts');
      await webhooksBench(owner.auth);
    });
    // The realtime socket (issue 46): test/bench/realtime.ts.
    await section('realtime', async () => {
      const { realtimeBench } = await import('./realtime.ts');
      await realtimeBench(owner.auth);
    });
    // A price per request and a team's month (issue 49): test/bench/cost.ts.
    await section('cost', async () => {
      const { costBench } = await import('./cost.ts');
      await costBench(owner.auth);
    });
  } finally {
    await stopS3();
    await dynamo.stop();
  }
};

/** Domain verification: send the mail, and verify with its code (each run on a domain of its own). */
const organizations = async (token: string, measure: Measure) => {
  const { call } = await import('#test/support/invoke.ts');
  const { latestCode } = await import('#test/support/outbox.ts');
  const organizationId = (await call('create-organization', { token, body: { name: 'Bench' } })).body.id;
  const params = { organizationId };
  const domains = Array.from({ length: 8 }, (_, i) => `bench${Date.now()}x${i}.example.test`);
  for (const domain of domains) await call('add-organization-domain', { token, params, body: { domain } });
  const toSend = [...domains];
  console.log('\n## Organizations: domain verification (mail to the local outbox)\n');
  console.log(
    '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time | calls |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  await measure(
    'domain verification: POST …/send-verification-email (mail to the local outbox)',
    () => {
      const domain = toSend.shift() as string;
      return call('send-domain-verification-email', {
        token,
        params,
        body: { domain, email: `it@${domain}` },
      });
    },
    5,
    1,
  );
  const toVerify = domains.slice(0, 6);
  const codes = await Promise.all(toVerify.map((d) => latestCode(`it@${d}`)));
  await measure(
    'POST …/domain-verification/verify (right code; notifies the admin)',
    () =>
      call('verify-organization-domain', {
        token,
        params,
        body: { domain: toVerify.shift(), code: codes.shift() },
      }),
    5,
    1,
  );
};

type Measure = (
  label: string,
  run: () => Promise<{ status: number }>,
  runs?: number,
  warmup?: number,
) => Promise<void>;

/** A table of 20 fields and the record write path at the sizes issue 3 names. */
const records = async (token: string, measure: Measure) => {
  const { call } = await import('#test/support/invoke.ts');
  const space = (await call('create-space', { token, body: { name: 'Records' } })).body.id;
  const base = (await call('create-base', { token, body: { spaceId: space } })).body.id;
  const fields = [
    { type: 'singleLineText', name: 'Name' },
    ...Array.from({ length: 7 }, (_, i) => ({ type: 'singleLineText', name: `Text ${i}` })),
    ...Array.from({ length: 5 }, (_, i) => ({ type: 'number', name: `Number ${i}` })),
    ...Array.from({ length: 3 }, (_, i) => ({
      type: 'singleSelect',
      name: `Select ${i}`,
      options: { choices: [{ name: 'a' }, { name: 'b' }] },
    })),
    { type: 'date', name: 'Date' },
    { type: 'longText', name: 'Notes' },
    { type: 'checkbox', name: 'Done' },
    { type: 'rating', name: 'Rating' },
  ];
  const table = await call('create-table', {
    token,
    params: { baseId: base },
    body: { name: 'Bench', fields, records: [] },
  });
  const tableId = table.body.id as string;
  const viewId = table.body.views[0].id as string;
  const row = (i: number) => ({
    fields: Object.fromEntries(
      fields.map((f) => [
        f.name,
        f.type === 'number'
          ? i * 1.5
          : f.type === 'singleSelect'
            ? 'a'
            : f.type === 'date'
              ? '2026-03-01T00:00:00.000Z'
              : f.type === 'checkbox'
                ? true
                : f.type === 'rating'
                  ? 3
                  : `value ${i} of ${f.name}`,
      ]),
    ),
  });
  const create = async (n: number) =>
    (
      await call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: n }, (_, i) => row(i)) },
      })
    ).body.records as { id: string }[];
  const seed = await create(200);
  const ids = seed.map((r) => r.id);
  console.log('\n## Record writes (table of 20 fields; DynamoDB Local; handler time is the median)\n');
  console.log(
    '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time | calls |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  await measure('get 1 record', () =>
    call('get-record', { token, params: { tableId, recordId: ids[0] as string } }),
  );
  await measure(
    'create 1 record (goal: authentication + 2 round trips)',
    () => call('create-records', { token, params: { tableId }, body: { records: [row(1)] } }),
    10,
  );
  await measure(
    'create 100 records (goal: authentication + 4)',
    () =>
      call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: 100 }, (_, i) => row(i)) },
      }),
    3,
    1,
  );
  await measure(
    'create 1000 records',
    () =>
      call('create-records', {
        token,
        params: { tableId },
        body: { records: Array.from({ length: 1000 }, (_, i) => row(i)) },
      }),
    1,
    0,
  );
  await measure(
    'update 1 record (goal: authentication + 2)',
    () =>
      call('update-record', {
        token,
        params: { tableId, recordId: ids[1] as string },
        body: { record: { fields: { 'Text 0': `u${Math.random()}` } } },
      }),
    10,
  );
  await measure(
    'update 100 records',
    () =>
      call('update-records', {
        token,
        params: { tableId },
        body: { records: ids.slice(0, 100).map((id) => ({ id, fields: { 'Text 1': `u${Math.random()}` } })) },
      }),
    3,
    1,
  );
  const victims = await create(100);
  await measure(
    'delete 100 records',
    () =>
      call('delete-records', {
        token,
        params: { tableId },
        query: victims.map((v) => `recordIds[]=${v.id}`).join('&'),
      }),
    1,
    0,
  );
  await measure(
    'duplicate 1 record',
    () => call('duplicate-record', { token, params: { tableId, recordId: ids[2] as string }, body: {} }),
    10,
  );
  await measure(
    'place 100 records before an anchor',
    () =>
      call('update-record-order', {
        token,
        params: { tableId, viewId },
        body: { anchorId: ids[150] as string, position: 'before', recordIds: ids.slice(0, 100) },
      }),
    1,
    0,
  );
  // View indexes' upkeep (records/view-indexes/upkeep.ts): create 1 and update 1 of the sorted cell (its
  // entries move in every view) with 0, 1 and 3 views whose own filter + sort is indexed.
  const { resetCalls, callSummary, itemsWritten } = await import('#shared/db/metrics.ts');
  const fieldIdOf = (name: string) =>
    (table.body.fields as { id: string; name: string }[]).find((f) => f.name === name)?.id as string;
  const upkeep: string[] = [];
  const writeOf = async (label: string, views: number, run: () => Promise<{ status: number }>) => {
    await run(); // warm
    resetCalls();
    const { status } = await run();
    const s = callSummary();
    upkeep.push(
      `| ${label} | ${views} | ${status} | ${s.sequentialRoundTrips} | ${itemsWritten()} | ${s.ops.includes('TransactWriteItems') ? 'yes' : 'no'} |`,
    );
  };
  for (let views = 0; views <= 3; views++) {
    if (views > 0) {
      const res = await call('create-view', {
        token,
        params: { tableId },
        body: {
          name: `Indexed ${views}`,
          filter: {
            conjunction: 'and',
            filterSet: [{ fieldId: fieldIdOf(`Number ${views - 1}`), operator: 'isGreater', value: -1 }],
          },
          sort: { sortObjs: [{ fieldId: fieldIdOf('Text 0'), order: views % 2 ? 'asc' : 'desc' }] },
        },
      });
      if (res.status !== 201) throw new Error(`create-view ${res.status}`);
    }
    if (views === 2) continue;
    await writeOf('create 1 record', views, () =>
      call('create-records', { token, params: { tableId }, body: { records: [row(1)] } }),
    );
    await writeOf('update 1 record (the sorted cell)', views, () =>
      call('update-record', {
        token,
        params: { tableId, recordId: ids[1] as string },
        body: { record: { fields: { 'Text 0': `u${Math.random()}` } } },
      }),
    );
  }
  console.log(
    "\nView index upkeep (indexed views with a filter every record passes, sorted by the written text). Items written are counted from the requests (DynamoDB Local under-reports a transaction's capacity): a write bills 1 WCU per started KB of each item, twice inside a transaction.\n",
  );
  console.log(
    '| request | indexed views | status | sequential round trips | items written | one transaction |',
  );
  console.log('|---|---:|---:|---:|---:|---|');
  for (const line of upkeep) console.log(line);
  const item = JSON.stringify(row(1));
  console.log(
    `\nOne record of 20 fields is about ${(Buffer.byteLength(item) / 1024).toFixed(2)} KB of JSON; DynamoDB bills a write per started KB per item, plus 1 WCU for its small order-index item (2× in a transaction).`,
  );
  console.log(
    'Reference (Teable on Postgres, published p95): create 1,000 × 20 fields 2.26 s; update 1,000 × 20 3.0 s; delete 1,000 0.56 s; move 1,000 rows in a 10,000-row view 1.6 s.',
  );
};

/** A table's plugin context menu: install, list and move (goal ≤ 3 sequential round trips). */
const contextMenu = async (token: string, measure: Measure) => {
  const { call } = await import('#test/support/invoke.ts');
  const space = (await call('create-space', { token, body: { name: 'Menus' } })).body.id;
  const base = (await call('create-base', { token, body: { spaceId: space } })).body.id;
  const tableId = (await call('create-table', { token, params: { baseId: base }, body: {} })).body.id;
  const pluginId = (
    await call('create-plugin', {
      token,
      body: { name: 'P', logo: 'https://example.test/p.png', positions: ['contextMenu'] },
    })
  ).body.id;
  const ids: string[] = [];
  for (let i = 0; i < 10; i++)
    ids.push(
      (await call('install-context-menu-plugin', { token, params: { tableId }, body: { pluginId } })).body
        .pluginInstallId,
    );
  console.log('\n## Plugin context menu (a menu of 10 plugins)\n');
  console.log(
    '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time | calls |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  await measure('GET /table/{id}/plugin-context-menu', () =>
    call('list-context-menu-plugins', { token, params: { tableId } }),
  );
  // Alternate two moves so that every call really moves an entry (a move to where it is writes nothing).
  let turn = 0;
  await measure('move a context-menu plugin (goal ≤ 3)', () => {
    turn++;
    const [moved, anchor] = turn % 2 ? [ids[8], ids[3]] : [ids[3], ids[8]];
    return call('move-context-menu-plugin', {
      token,
      params: { tableId, pluginInstallId: moved as string },
      body: { anchorId: anchor, position: 'before' },
    });
  });
  await measure(
    'POST /table/{id}/plugin-context-menu/install',
    () => call('install-context-menu-plugin', { token, params: { tableId }, body: { pluginId } }),
    5,
  );
};

/**
 * Dashboards and project nodes: renaming an install (goal ≤ 2), the tree, a move and deleting
 * nodes for good.
 */
const nodesAndDashboards = async (token: string, measure: Measure) => {
  const { call } = await import('#test/support/invoke.ts');
  const { resetCalls } = await import('#shared/db/metrics.ts');
  const { drainPurges } = await import('#shared/jobs/purge-queue.ts');
  const { nodeIdOf } = await import('#shared/ids.ts');
  const space = (await call('create-space', { token, body: { name: 'Nodes' } })).body.id;
  const baseId = (await call('create-base', { token, body: { spaceId: space } })).body.id as string;
  const onBase = { token, params: { baseId } };
  const pluginId = (
    await call('create-plugin', {
      token,
      body: { name: 'P', logo: 'https://example.test/p.png', positions: ['dashboard'] },
    })
  ).body.id;
  const dashboardId = (await call('create-dashboard', { ...onBase, body: { name: 'D' } })).body.id as string;
  const installs: string[] = [];
  for (let i = 0; i < 5; i++)
    installs.push(
      (await call('install-dashboard-plugin', { token, params: { baseId, dashboardId }, body: { pluginId } }))
        .body.pluginInstallId,
    );
  const tables: string[] = [];
  for (let i = 0; i < 7; i++)
    tables.push((await call('create-table', { ...onBase, body: { name: `T${i}`, records: [] } })).body.id);
  const dashboards: string[] = [];
  for (let i = 0; i < 7; i++) {
    const id = (await call('create-dashboard', { ...onBase, body: { name: `D${i}` } })).body.id as string;
    await call('install-dashboard-plugin', {
      token,
      params: { baseId, dashboardId: id },
      body: { pluginId },
    });
    dashboards.push(id);
  }
  const folders: string[] = [];
  for (let i = 0; i < RUNS + 2; i++)
    folders.push(
      (await call('create-node', { ...onBase, body: { resourceType: 'folder', name: `F${i}` } })).body.id,
    );
  console.log(
    `\n## Dashboards and project nodes (a base of 7 tables, 8 dashboards with ${installs.length + 7} installs, ${folders.length} folders)\n`,
  );
  console.log(
    '| request | status | DynamoDB calls | sequential round trips | RCU | WCU | handler time | calls |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  let n = 0;
  await measure('rename a dashboard plugin install (goal ≤ 2)', () =>
    call('rename-dashboard-plugin', {
      token,
      params: { baseId, dashboardId, pluginInstallId: installs[n++ % installs.length] as string },
      body: { name: `R${n}` },
    }),
  );
  await measure('GET /base/{id}/dashboard/{id} (5 installs)', () =>
    call('get-dashboard', { token, params: { baseId, dashboardId } }),
  );
  await measure('GET /base/{id}/node (the tree)', () => call('list-nodes', onBase));
  let turn = 0;
  await measure('PUT /base/{id}/node/{id}/move', () => {
    turn++;
    const [moved, anchor] = turn % 2 ? [tables[5], tables[1]] : [tables[1], tables[5]];
    return call('move-node', {
      token,
      params: { baseId, nodeId: nodeIdOf(moved as string) },
      body: { anchorId: nodeIdOf(anchor as string), position: 'before' },
    });
  });
  await measure('delete a node for good: an empty folder', () =>
    call('delete-node-permanently', { token, params: { baseId, nodeId: folders.pop() as string } }),
  );
  await measure(
    'delete a node for good: a dashboard (1 install)',
    () =>
      call('delete-node-permanently', {
        token,
        params: { baseId, nodeId: nodeIdOf(dashboards.pop() as string) },
      }),
    5,
  );
  await measure(
    'delete a node for good: a table (the request; its partitions are purged in the background)',
    async () => {
      await drainPurges(); // the previous table's background purge must not count here
      resetCalls();
      return call('delete-node-permanently', {
        token,
        params: { baseId, nodeId: nodeIdOf(tables.pop() as string) },
      });
    },
    5,
  );
  await drainPurges();
};

await section('bundles', bundles);
await requests();
if (process.env.BENCH_README === '1') writeReadmeFigures(printed, join(root, 'test/bench/README.md'));
