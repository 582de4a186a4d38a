/**
 * Ad-hoc listing orders on large tables (listing/order-computation.ts, listing/order-worker.ts):
 * the table read in parallel ranges, each narrowed as it arrives, answers what one sequential
 * read answers; a query whose read cannot finish in a request is handed to the worker (a 503 with
 * Retry-After) and its retry reads the order the worker kept; a computation goes on where it
 * stopped, and writes during it make it start again rather than keep an order they changed.
 *
 * "Out of time" is staged with the read budget seam (`setRequestReadBudget(0)`: the request reads
 * no page before its budget is up), as a table too large for the deadline would be.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { documentClient } from '#shared/db/client.ts';
import { bucketOf } from '#shared/db/data-versions.ts';
import { keys } from '#shared/db/keys.ts';
import { itemsRead, resetCalls } from '#shared/db/metrics.ts';
import { purgePartition } from '#shared/entities/purges.ts';
import {
  readComputation,
  readComputationWants,
  releaseComputation,
} from '#shared/entities/query-computations.ts';
import { readRecordRanges } from '#shared/entities/records.ts';
import { runWakesInProcess, wakesSettled } from '#shared/jobs/worker-wake.ts';
import { keptOrderKey } from '#shared/listing/kept-orders.ts';
import {
  computeOrder,
  setRequestReadBudget,
  setSegmentShape,
  setSlowMarkFrom,
  WOKEN_START_SECONDS,
} from '#shared/listing/order-computation.ts';
import { computeInPieces, computeOrderOf, computeWantedOrders } from '#shared/listing/order-worker.ts';
import { readListParams } from '#shared/listing/params.ts';
import { planListing } from '#shared/listing/resolve.ts';
import { queryFieldIds, runQuery } from '#shared/query/engine.ts';
import { readAllRecords, recordSlices, rowAttributes, toRow } from '#shared/records/rows.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call, q } from '#test/support/invoke.ts';
import { addMember, listedTable } from '#test/support/workspace.ts';

afterEach(() => {
  setRequestReadBudget(undefined);
  setSlowMarkFrom(undefined);
  setSegmentShape(undefined);
  computeInPieces();
});

const STATUSES = ['light', 'medium', 'dark'];
const FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 0 } } },
  { type: 'singleSelect', name: 'Status', options: { choices: STATUSES.map((name) => ({ name })) } },
  { type: 'singleLineText', name: 'Extra' },
];

const SORTED = {
  filter: { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'isGreater', value: 1 }] },
  orderBy: [{ fieldId: 'Count', order: 'desc' }],
  groupBy: [{ fieldId: 'Status', order: 'asc' }],
};

/** A table of `n` records (Count i % 11, Status by i % 3) and readers of its pages. */
const setUp = async (n: number) => {
  const t = await listedTable(FIELDS, n, (i) => ({
    Name: `r${i}`,
    Count: (i * 7) % 11,
    Status: STATUSES[i % 3],
    Extra: 'x',
  }));
  const list = (query: Record<string, unknown>, token = t.token) =>
    call('list-records', { token, params: { tableId: t.tableId }, query: q(query) });
  /** The page as a request computes it (no kept order, no computation, no budget). */
  const fresh = async (query: Record<string, unknown>) => {
    const budget = setRequestReadBudget;
    await purgePartition(keys.queryOrdersOf(t.tableId).pk);
    budget(undefined);
    const res = await list(query);
    expect(res.status).toBe(200);
    return res.body;
  };
  const count = (query: Record<string, unknown>) =>
    call('get-row-count', { token: t.token, params: { tableId: t.tableId }, query: q(query) });
  const update = async (recordId: string, fields: Record<string, unknown>) => {
    const res = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId },
      body: { record: { fields } },
    });
    expect(res.status).toBe(200);
  };
  return { ...t, list, fresh, count, update };
};

/**
 * One worker run over the computations asked for on `tableId` (the worker's own loop,
 * `computeWantedOrders`, steps every table's; other tests of this file leave theirs asked for).
 */
const runWorker = async (tableId: string) => {
  const report = { computed: 0, gone: 0, busy: 0, partial: 0, restarted: 0, unkeepable: 0, recordsRead: 0 };
  const read = { records: 0 };
  for (const want of await readComputationWants())
    if (want.tableId === tableId)
      report[await computeOrderOf(tableId, want.hash, Date.now() + 60_000, read)]++;
  report.recordsRead = read.records;
  return report;
};

describe('ad-hoc orders: parallel ranges', () => {
  it('ranges read in parallel hold every record once, as one sequential read does, on random tables', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 900 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 40 })), {
          minLength: 2,
          maxLength: 4,
        }),
        async (n, shapes) => {
          const t = await setUp(n);
          const sequential = (await readAllRecords(t.tableId, ['id'], 1)).map((r) => r.id).sort();
          expect(sequential).toHaveLength(n);
          for (const [ranges, inFlight] of shapes) {
            const seen: string[] = [];
            const { complete } = await readRecordRanges({
              tableId: t.tableId,
              attributes: ['id'],
              ranges: recordSlices(ranges),
              inFlight,
              onRange: (_, records) => {
                seen.push(...records.map((r) => r.id));
              },
            });
            expect(complete).toBe(true);
            expect(seen.sort()).toEqual(sequential);
          }
        },
      ),
      { numRuns: 4 },
    );
  });

  it('a range the database throttles is read again later by a smaller pool; one it never serves fails the read', async () => {
    const t = await setUp(400);
    const records = keys.recordsOf(t.tableId).pk;
    let throttle = 10;
    const name = `throttle-${Math.random()}`;
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        const command = (context as { commandName?: string }).commandName;
        if (command === 'QueryCommand' && JSON.stringify(args.input).includes(records) && throttle > 0) {
          throttle--;
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
            name: 'ThrottlingException',
          });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const seen: string[] = [];
      const read = () =>
        readRecordRanges({
          tableId: t.tableId,
          attributes: ['id'],
          ranges: recordSlices(20),
          inFlight: 8,
          onRange: (_, part) => {
            seen.push(...part.map((r) => r.id));
          },
        });
      expect(await read()).toEqual({ complete: true });
      expect(throttle).toBe(0);
      expect(seen.sort()).toEqual([...t.ids].sort());

      throttle = Number.POSITIVE_INFINITY;
      await expect(read()).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    } finally {
      documentClient.middlewareStack.remove(name);
    }
  });

  it('an order computed over narrowed ranges equals the engine over one sequential read, for random queries', async () => {
    const t = await setUp(700);
    const schema = await loadSchema(t.tableId);
    const filterArb = fc.oneof(
      fc.constant(undefined),
      fc.record({
        conjunction: fc.constantFrom('and', 'or'),
        filterSet: fc.array(
          fc.oneof(
            fc.record({
              fieldId: fc.constant('Count'),
              operator: fc.constantFrom('isGreater', 'isLess', 'is', 'isNot'),
              value: fc.integer({ min: 0, max: 10 }),
            }),
            fc.record({
              fieldId: fc.constant('Status'),
              operator: fc.constantFrom('is', 'isNot'),
              value: fc.constantFrom(...STATUSES),
            }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
      }),
    );
    const sortArb = fc.array(
      fc.record({
        fieldId: fc.constantFrom('Count', 'Name', 'Status'),
        order: fc.constantFrom('asc', 'desc'),
      }),
      { maxLength: 2 },
    );
    const searchArb = fc.oneof(
      fc.constant(undefined),
      fc.tuple(
        fc.constantFrom('r1', '7', 'dark'),
        fc.constantFrom('', 'Name'),
        fc.constantFrom('true', 'false'),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        filterArb,
        sortArb,
        fc.array(
          fc.record({ fieldId: fc.constantFrom('Status', 'Count'), order: fc.constantFrom('asc', 'desc') }),
          {
            maxLength: 1,
          },
        ),
        searchArb,
        fc.integer({ min: 0, max: 720 }),
        async (filter, orderBy, groupBy, search, skip) => {
          const raw: Record<string, unknown> = { skip: String(skip), take: '50' };
          if (filter) raw.filter = JSON.stringify(filter);
          if (orderBy.length) raw.orderBy = JSON.stringify(orderBy);
          if (groupBy.length) raw.groupBy = JSON.stringify(groupBy);
          if (search) raw.search = search;
          const plan = planListing(schema, readListParams(raw));
          const ctx = { schema, userId: t.owner.id, canUpdate: true, canDelete: true, now: new Date() };
          const computed = await computeOrder(ctx, plan, { skip, take: 50 });
          const read = queryFieldIds(plan.query);
          const fields = schema.fields.filter((f) => read.has(f.id));
          const all = await readAllRecords(t.tableId, rowAttributes(schema.fields, read), 1);
          const expected = runQuery(
            all.map((r) => toRow(r, fields, plan.view.id)),
            plan.query,
            {
              fields: new Map(schema.fields.map((f) => [f.id, f])),
              userId: t.owner.id,
              now: ctx.now,
              linkTitle: () => undefined,
            },
          );
          expect(computed?.ids).toEqual(expected.ids);
          expect(computed?.total).toBe(expected.total);
          expect(computed?.groupPoints).toEqual(expected.groupPoints);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('ad-hoc orders: handed to the worker', () => {
  it('a hand-off wakes the worker: the retry finds the order without waiting for its schedule', async () => {
    const t = await setUp(120);
    const expected = await t.fresh({ ...SORTED, skip: 10, take: 20 });
    await purgePartition(keys.queryOrdersOf(t.tableId).pk);
    setRequestReadBudget(0);
    // as `npm start` does: a wake runs the worker's order pass in this process, after the answer
    runWakesInProcess(() => computeWantedOrders(Date.now() + 60_000));
    try {
      const first = await t.list({ ...SORTED, skip: 10, take: 20 });
      expect(first.status).toBe(503);
      expect(first.headers['retry-after']).toBe(String(WOKEN_START_SECONDS));
      await wakesSettled();
      expect((await readComputationWants()).filter((w) => w.tableId === t.tableId)).toEqual([]);
      const retry = await t.list({ ...SORTED, skip: 10, take: 20 });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(expected);
    } finally {
      runWakesInProcess(undefined);
    }
  });

  it('answers 503 with Retry-After, the worker computes the order, and every page and count then read it', async () => {
    const t = await setUp(300);
    const expected = [
      await t.fresh({ ...SORTED, skip: 0, take: 40 }),
      await t.fresh({ ...SORTED, skip: 120, take: 40 }),
    ];
    const expectedCount = (await t.count(SORTED)).body;
    await purgePartition(keys.queryOrdersOf(t.tableId).pk);

    setRequestReadBudget(0);
    const first = await t.list({ ...SORTED, take: 40 });
    expect(first.status).toBe(503);
    expect(first.body.code).toBe('service_unavailable');
    expect(first.body.message).toMatch(/being computed in the background/);
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(2);

    // a retry before the worker ran reads no record: the computation is under way
    resetCalls();
    expect((await t.list({ ...SORTED, take: 40 })).status).toBe(503);
    expect(itemsRead()).toBeLessThan(40);
    // the row count of the same query waits for the same work
    expect((await t.count(SORTED)).status).toBe(503);

    // the worker's own loop (the repair worker's step; other test files' asks may be among its own)
    const report = await computeWantedOrders(Date.now() + 60_000);
    expect(report.computed).toBeGreaterThanOrEqual(1);
    expect(report.recordsRead).toBeGreaterThanOrEqual(300);
    expect((await readComputationWants()).filter((w) => w.tableId === t.tableId)).toEqual([]);

    const pages = [
      await t.list({ ...SORTED, skip: 0, take: 40 }),
      await t.list({ ...SORTED, skip: 120, take: 40 }),
    ];
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    expect(pages.map((p) => p.body)).toEqual(expected);
    const counted = await t.count(SORTED);
    expect(counted.status).toBe(200);
    expect(counted.body).toEqual(expectedCount);
    // nothing is left asked for
    const schema = await loadSchema(t.tableId);
    const plan = planListing(
      schema,
      readListParams({
        ...SORTED,
        filter: JSON.stringify(SORTED.filter),
        orderBy: JSON.stringify(SORTED.orderBy),
        groupBy: JSON.stringify(SORTED.groupBy),
      }),
    );
    const key = keptOrderKey(schema, plan, t.owner.id, new Date());
    expect((await readComputation(t.tableId, key.hash)).computation).toBeUndefined();
  });

  it('once a large table ran out of time, its next ad-hoc queries go to the worker without reading a record; a small one tries again', async () => {
    const t = await setUp(200);
    setSlowMarkFrom(150);
    setRequestReadBudget(0);
    expect((await t.list({ ...SORTED, take: 10 })).status).toBe(503);
    // time enough now, but the table is known to be too large: straight to the worker
    setRequestReadBudget(undefined);
    resetCalls();
    const other = await t.list({ orderBy: [{ fieldId: 'Name', order: 'desc' }], take: 10 });
    expect(other.status).toBe(503);
    expect(itemsRead()).toBeLessThan(40);
    expect((await runWorker(t.tableId)).computed).toBe(2);
    expect((await t.list({ orderBy: [{ fieldId: 'Name', order: 'desc' }], take: 10 })).status).toBe(200);

    // below the size noted (a passing slowness, not the size): the next query reads in the request
    const small = await setUp(100);
    setRequestReadBudget(0);
    expect((await small.list({ ...SORTED, take: 10 })).status).toBe(503);
    setRequestReadBudget(undefined);
    expect((await small.list({ orderBy: [{ fieldId: 'Name', order: 'desc' }], take: 10 })).status).toBe(200);
  });

  it('shares the computation with another caller of the same query, unless its filter names "Me"', async () => {
    const t = await setUp(120);
    const ada = await newUser({ name: 'Ada' });
    await addMember(t.owner, t.spaceId, ada, 'editor');
    setRequestReadBudget(0);
    const mine = {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'isNot', value: 'Me' }] },
      orderBy: [{ fieldId: 'Count', order: 'asc' }],
    };
    expect((await t.list({ ...SORTED, take: 10 })).status).toBe(503);
    expect((await t.list({ ...mine, take: 10 })).status).toBe(503);
    expect((await runWorker(t.tableId)).computed).toBe(2);
    const shared = await t.list({ ...SORTED, take: 10 }, ada.auth);
    expect(shared.status).toBe(200);
    expect(shared.body).toEqual((await t.list({ ...SORTED, take: 10 })).body);
    // a query that may name the caller is computed for each caller
    expect((await t.list({ ...mine, take: 10 })).status).toBe(200);
    expect((await t.list({ ...mine, take: 10 }, ada.auth)).status).toBe(503);
  });

  it('a computation stopped part-way goes on where it stopped, reading each record once', async () => {
    const t = await setUp(400);
    const expected = await t.fresh({ ...SORTED, skip: 60, take: 60 });
    await purgePartition(keys.queryOrdersOf(t.tableId).pk);
    setSegmentShape({ ranges: 16, perSegment: 2 });
    setRequestReadBudget(0);
    expect((await t.list({ ...SORTED, take: 60 })).status).toBe(503);

    const want = await wantOf(t.tableId);
    computeInPieces({ crashAfterSegments: 3 });
    const first = { records: 0 };
    await expect(computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, first)).rejects.toThrow(
      /test seam/,
    );
    expect(first.records).toBeGreaterThan(0);
    expect(first.records).toBeLessThan(400);
    // still computing: the retry waits, with the progress in Retry-After
    const waiting = await t.list({ ...SORTED, take: 60 });
    expect(waiting.status).toBe(503);

    computeInPieces();
    // the crashed run's hold lapses before another run may go on
    const state = (await readComputation(t.tableId, want.hash)).computation;
    expect(Object.keys(state?.done ?? {})).toHaveLength(3);
    const second = { records: 0 };
    const outcome = await computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, second);
    expect(outcome).toBe('busy');
    await expireLease(t.tableId, want.hash);
    expect(await computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, second)).toBe('computed');
    expect(first.records + second.records).toBe(400);

    const page = await t.list({ ...SORTED, skip: 60, take: 60 });
    expect(page.status).toBe(200);
    expect(page.body).toEqual(expected);
  });

  it('a write during a computation makes it start again: the order kept has the write, never the order before it', async () => {
    const t = await setUp(300);
    setSegmentShape({ ranges: 12, perSegment: 3 });
    setRequestReadBudget(0);
    expect((await t.list({ ...SORTED, take: 30 })).status).toBe(503);
    const want = await wantOf(t.tableId);
    computeInPieces({ crashAfterSegments: 2 });
    const before = { records: 0 };
    await expect(computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, before)).rejects.toThrow(
      /test seam/,
    );
    computeInPieces();
    await expireLease(t.tableId, want.hash);

    // moves a record to the top of the first group: cells the query groups and sorts on
    await t.update(t.ids[5] as string, { Count: 1_000, Status: 'light' });
    const read = { records: 0 };
    expect(await computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, read)).toBe('computed');
    // the segments left, then (the versions moved) every record again
    expect(read.records).toBe(300 - before.records + 300);

    const page = await t.list({ ...SORTED, take: 30 });
    expect(page.status).toBe(200);
    setRequestReadBudget(undefined);
    expect(page.body).toEqual(await t.fresh({ ...SORTED, take: 30 }));
    expect(page.body.records.map((r: { id: string }) => r.id)).toContain(t.ids[5]);

    // a write after the order was kept makes it unused: the next listing does not answer from it
    setRequestReadBudget(0);
    await t.list({ ...SORTED, take: 30 }); // keeps nothing new: out of time again
    await t.update(t.ids[6] as string, { Count: 2_000, Status: 'light' });
    expect((await t.list({ ...SORTED, take: 30 })).status).toBe(503);
    await runWorker(t.tableId);
    const after = await t.list({ ...SORTED, take: 30 });
    expect(after.status).toBe(200);
    expect(after.body.records.map((r: { id: string }) => r.id)).toContain(t.ids[6]);
  });

  it('an edit of a cell the query does not read keeps the computation going', async () => {
    const t = await setUp(150);
    // Cells share 64 version buckets by field id: an edited field whose bucket is a queried
    // field's restarts the computation by design (the data versions cannot tell them apart).
    // The edit goes to a field of a bucket of its own, made until one is.
    const queried = new Set(
      t.table.fields
        .filter((f: { name: string }) => f.name !== 'Extra')
        .map((f: { id: string }) => bucketOf(f.id)),
    );
    let unqueried = t.table.fields.find((f: { name: string }) => f.name === 'Extra') as {
      id: string;
      name: string;
    };
    for (let i = 0; queried.has(bucketOf(unqueried.id)); i++) {
      const made = await call('create-field', {
        token: t.token,
        params: { tableId: t.tableId },
        body: { type: 'singleLineText', name: `Extra ${i}` },
      });
      expect(made.status).toBe(201);
      unqueried = made.body;
    }
    setSegmentShape({ ranges: 8, perSegment: 2 });
    setRequestReadBudget(0);
    expect((await t.list({ ...SORTED, take: 30 })).status).toBe(503);
    const want = await wantOf(t.tableId);
    computeInPieces({ crashAfterSegments: 1 });
    await expect(computeOrderOf(t.tableId, want.hash, Date.now() + 60_000)).rejects.toThrow(/test seam/);
    computeInPieces();
    await expireLease(t.tableId, want.hash);
    await t.update(t.ids[0] as string, { [unqueried.name]: 'changed' });
    const read = { records: 0 };
    expect(await computeOrderOf(t.tableId, want.hash, Date.now() + 60_000, read)).toBe('computed');
    expect(read.records).toBeLessThan(150);
    expect((await t.list({ ...SORTED, take: 30 })).status).toBe(200);
  });

  it('an order with too many groups to keep: 422 while the data stays, computed again after a write', async () => {
    // 900 groups of a ~400-character name: their header is over 300 KB, more than an item holds
    const long = (i: number) => `${String(i).padStart(4, '0')} ${'a long group name '.repeat(22)}`;
    const t = await listedTable(FIELDS, 900, (i) => ({
      Name: long(i),
      Count: i % 7,
      Status: STATUSES[i % 3],
    }));
    const list = () =>
      call('list-records', {
        token: t.token,
        params: { tableId: t.tableId },
        query: q({ groupBy: [{ fieldId: 'Name', order: 'asc' }], take: 10 }),
      });
    setRequestReadBudget(0);
    expect((await list()).status).toBe(503);
    const report = await runWorker(t.tableId);
    expect(report.unkeepable).toBe(1);
    expect(report.computed).toBe(0);
    // the retry says why, and so does it again: no waiting for an order that will not come
    for (let i = 0; i < 2; i++) {
      const refused = await list();
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('query_too_large');
      expect(refused.body.message).toMatch(/too many groups/);
    }
    expect((await readComputationWants()).filter((w) => w.tableId === t.tableId)).toEqual([]);
    // a write to what it reads: the query may mean fewer groups now, so it is computed again
    const res = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.ids[0] as string },
      body: { record: { fields: { Name: 'short' } } },
    });
    expect(res.status).toBe(200);
    expect((await list()).status).toBe(503);
    expect((await readComputationWants()).filter((w) => w.tableId === t.tableId)).toHaveLength(1);
  });

  it('a computation of a deleted table or of a changed field is dropped, not computed', async () => {
    const t = await setUp(60);
    setRequestReadBudget(0);
    expect((await t.list({ ...SORTED, take: 10 })).status).toBe(503);
    const countField = t.table.fields.find((f: { name: string }) => f.name === 'Count').id as string;
    const changed = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: countField },
      body: { options: { formatting: { type: 'decimal', precision: 2 } } },
    });
    expect(changed.status).toBe(200);
    const report = await runWorker(t.tableId);
    expect(report.gone).toBeGreaterThanOrEqual(1);
    expect(report.computed).toBe(0);
    // the query now means something else: asked again, computed again
    expect((await t.list({ ...SORTED, take: 10 })).status).toBe(503);
    const deleted = await call('delete-table', {
      token: t.token,
      params: { baseId: t.baseId, tableId: t.tableId },
    });
    expect(deleted.status).toBe(200);
    expect((await runWorker(t.tableId)).computed).toBe(0);
    const wants = await readComputationWants();
    expect(wants.filter((w) => w.tableId === t.tableId)).toEqual([]);
  });
});

/** Ends a crashed run's hold on a computation, as its lease running out would. */
const expireLease = (tableId: string, hash: string) => releaseComputation(tableId, hash);

/** The computation asked for on a table (its hash). */
const wantOf = async (tableId: string) => {
  const want = (await readComputationWants()).find((w) => w.tableId === tableId);
  if (!want) throw new Error('no computation asked for');
  return want;
};
