/**
 * Kept listing orders (listing/kept-orders.ts): a filtered, sorted or grouped listing keeps its
 * computed order, so its later pages read the kept ids and the page's records instead of the
 * table; every write of the records moves the table's data version, so the next page after any
 * write is computed again. "Fresh" below is the same listing with every kept order of the table
 * deleted first: what the general path computes from the records.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/client.ts';
import { injectChunkFault } from '#shared/db/commit.ts';
import { counterOf } from '#shared/db/data-versions.ts';
import { keys } from '#shared/db/keys.ts';
import { callSummary, itemsRead, resetCalls } from '#shared/db/metrics.ts';
import { purgePartition } from '#shared/entities/purges.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call, q } from '#test/support/invoke.ts';
import { addMember, alphaAndBeta, listedTable } from '#test/support/workspace.ts';

afterEach(() => injectChunkFault(undefined));

const STATUSES = ['light', 'medium', 'dark'];
const FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'number', name: 'Count', options: { formatting: { type: 'decimal', precision: 0 } } },
  { type: 'singleSelect', name: 'Status', options: { choices: STATUSES.map((name) => ({ name })) } },
  { type: 'singleLineText', name: 'Note' },
  { type: 'singleLineText', name: 'Extra' },
];

const filter = { conjunction: 'and', filterSet: [{ fieldId: 'Count', operator: 'isGreater', value: 1 }] };
const SORTED = {
  filter,
  orderBy: [{ fieldId: 'Count', order: 'desc' }],
  groupBy: [{ fieldId: 'Status', order: 'asc' }],
};
const FILTERED = { filter };

/** A table of `n` records (Count i % 7, Status by i % 3) with page readers for a query. */
const setUp = async (n: number) => {
  const t = await listedTable(FIELDS, n, (i) => ({ Name: `r${i}`, Count: i % 7, Status: STATUSES[i % 3] }));
  const page = async (query: Record<string, unknown>, skip: number, take: number) =>
    (await t.listOk(q({ ...query, skip, take }))).body;
  const fresh = async (query: Record<string, unknown>, skip: number, take: number) => {
    await purgePartition(keys.queryOrdersOf(t.tableId).pk);
    return page(query, skip, take);
  };
  /**
   * Every page of the query as answered now (the first keeps the order, the others read it),
   * then each page fresh: they must agree.
   */
  const expectCurrent = async (query: Record<string, unknown>, take = 7) => {
    const kept = [];
    for (let skip = 0; ; skip += take) {
      const answer = await page(query, skip, take);
      kept.push(answer);
      if (answer.records.length < take) break;
    }
    for (const [i, answer] of kept.entries())
      expect(answer, `page ${i}`).toEqual(await fresh(query, i * take, take));
  };
  const update = (recordId: string, fields: Record<string, unknown>) =>
    call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId },
      body: { record: { fields } },
    });
  /** An aggregation route's answer for a query (it must be a 200). */
  const aggregate = async (route: 'get-row-count' | 'get-group-points', query: Record<string, unknown>) => {
    const res = await call(route, { token: t.token, params: { tableId: t.tableId }, query: q(query) });
    expect(res.status).toBe(200);
    return res.body;
  };
  return { ...t, page, fresh, expectCurrent, update, aggregate };
};

/** Every counter of a table's data version, summed. */
const versionOf = async (tableId: string) =>
  [...((await readDataVersions([tableId])).get(tableId) ?? new Map<string, number>()).values()].reduce(
    (sum, n) => sum + n,
    0,
  );

const idsOf = (body: { records: { id: string }[] }) => body.records.map((r) => r.id);

describe('kept listing orders', () => {
  it('serves a later page from the kept order: its records and the kept ids, not the table', async () => {
    const t = await setUp(150);
    const first = await t.page(SORTED, 0, 20);
    expect(first.records).toHaveLength(20);

    resetCalls();
    const second = await t.page(SORTED, 20, 20);
    const keptReads = itemsRead();
    const keptOps = callSummary().ops;
    expect(second).toEqual(await t.fresh(SORTED, 20, 20));

    resetCalls();
    await t.fresh(SORTED, 20, 20);
    const computedReads = itemsRead();

    // the computed page reads every record (150) and the page again; the kept one, the page's 20
    // records, at most 16 version shards, the kept header and chunk, and what authentication reads
    expect(computedReads).toBeGreaterThanOrEqual(170);
    expect(keptReads).toBeLessThan(60);
    expect(keptOps.filter((op) => op === 'Query').length).toBeLessThanOrEqual(1);
  });

  it('shares a kept order between callers unless the filter names "Me"', async () => {
    const t = await setUp(150);
    const ada = await newUser({ name: 'Ada' });
    await addMember(t.owner, t.spaceId, ada, 'editor');
    const asAda = (query: Record<string, unknown>) =>
      call('list-records', { token: ada.auth, params: { tableId: t.tableId }, query: q(query) });
    await t.page(SORTED, 0, 20);
    resetCalls();
    const shared = await asAda({ ...SORTED, skip: 20, take: 20 });
    expect(shared.status).toBe(200);
    expect(itemsRead()).toBeLessThan(60);
    expect(shared.body).toEqual(await t.page(SORTED, 20, 20));

    const mine = {
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'Name', operator: 'isNot', value: 'Me' }] },
    };
    await t.page(mine, 0, 20);
    resetCalls();
    expect((await asAda({ ...mine, skip: 20, take: 20 })).status).toBe(200);
    expect(itemsRead()).toBeGreaterThanOrEqual(150);
  });

  it('keeps the order through an edit of a cell the query does not read, and answers the edit', async () => {
    const t = await setUp(150);
    const idOf = (name: string) => t.table.fields.find((f: { name: string }) => f.name === name).id as string;
    // a field whose cells' counter is not one the query reads (fields share 64 buckets: one of
    // three text fields is free but once in about 30,000 tables)
    const read = new Set(['Count', 'Status'].map((name) => counterOf(idOf(name))));
    const free = ['Name', 'Note', 'Extra'].find((name) => !read.has(counterOf(idOf(name)))) as string;
    expect(free).toBeDefined();
    await t.page(SORTED, 0, 20);
    const shown = (await t.page(SORTED, 20, 20)).records[0] as { id: string };
    expect((await t.update(shown.id, { [free]: 'edited' })).status).toBe(200);
    resetCalls();
    const after = await t.page(SORTED, 20, 20);
    expect(itemsRead()).toBeLessThan(60); // still the kept order
    expect(after.records[0]).toMatchObject({ id: shown.id, fields: { [free]: 'edited' } });
    expect(after).toEqual(await t.fresh(SORTED, 20, 20));

    await t.page(SORTED, 0, 20);
    expect((await t.update(shown.id, { Count: 0 })).status).toBe(200); // leaves the filter
    resetCalls();
    const moved = await t.page(SORTED, 20, 20);
    expect(itemsRead()).toBeGreaterThanOrEqual(150); // computed again
    expect(idsOf(moved)).not.toContain(shown.id);
  });

  it('answers every page as the records are after each kind of write', async () => {
    const t = await setUp(40);
    const [a, b, c] = t.ids as [string, string, string];
    await t.expectCurrent(SORTED);

    const before = idsOf(await t.page(SORTED, 0, 40));
    expect((await t.update(a, { Count: 99 })).status).toBe(200);
    const after = idsOf(await t.page(SORTED, 0, 40));
    expect(after).not.toEqual(before); // r0 joined the filter: a kept order would have missed it
    expect(after).toContain(a);
    await t.expectCurrent(SORTED);

    const batch = await call('update-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: b, fields: { Status: 'dark' } },
          { id: c, fields: { Count: 50 } },
        ],
      },
    });
    expect(batch.status).toBe(200);
    await t.expectCurrent(SORTED);

    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { records: [{ fields: { Name: 'new', Count: 70, Status: 'light' } }] },
    });
    expect(created.status).toBe(201);
    expect(idsOf(await t.page(SORTED, 0, 5))).toContain(created.body.records[0].id);
    await t.expectCurrent(SORTED);

    expect(
      (await call('delete-record', { token: t.token, params: { tableId: t.tableId, recordId: a } })).status,
    ).toBe(200);
    expect(idsOf(await t.page(SORTED, 0, 40))).not.toContain(a);
    await t.expectCurrent(SORTED);

    const dup = await call('duplicate-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: c },
    });
    expect(dup.status).toBe(201);
    await t.expectCurrent(SORTED);
  });

  it('counts a filtered listing from its kept total while the data is unchanged, and anew after a write', async () => {
    const t = await setUp(150);
    const count = async () => (await t.aggregate('get-row-count', FILTERED)).rowCount as number;
    const matching = Array.from({ length: 150 }, (_, i) => i % 7).filter((c) => c > 1).length;
    expect(await count()).toBe(matching);
    resetCalls();
    expect(await count()).toBe(matching);
    expect(itemsRead()).toBeLessThan(40); // the versions, the kept header, authentication
    expect((await t.update(t.ids[0] as string, { Count: 9 })).status).toBe(200);
    resetCalls();
    expect(await count()).toBe(matching + 1);
    expect(itemsRead()).toBeGreaterThanOrEqual(150);
  });

  it('answers group points from the kept header while the data is unchanged, and anew after a write', async () => {
    const t = await setUp(150);
    const points = async () =>
      (await t.aggregate('get-group-points', SORTED)) as { type: number; value?: string; count?: number }[];
    const counts = (list: { type: number; count?: number }[]) =>
      list.filter((p) => p.type === 1).map((p) => p.count);
    const first = await points();
    expect(first).toEqual((await t.page(SORTED, 0, 1)).extra.groupPoints);
    resetCalls();
    expect(await points()).toEqual(first);
    expect(itemsRead()).toBeLessThan(40);
    // r1 (Count 1, medium) joins the filter: the medium group grows by one
    expect((await t.update(t.ids[1] as string, { Count: 9 })).status).toBe(200);
    const after = await points();
    const medium = (list: typeof first) => list[list.findIndex((p) => p.value === 'medium') + 1]?.count;
    expect(medium(after)).toBe((medium(first) ?? 0) + 1);
    expect(counts(after)).not.toEqual(counts(first));
  });

  it('follows the manual order when the query does not sort (placing records moves the version)', async () => {
    const t = await setUp(30);
    const before = idsOf(await t.page(FILTERED, 0, 30));
    const [first, second] = before as [string, string];
    const placed = await call('update-record-order', {
      token: t.token,
      params: { tableId: t.tableId, viewId: t.viewId },
      body: { anchorId: first, position: 'before', recordIds: [second] },
    });
    expect(placed.status).toBe(200);
    const after = idsOf(await t.page(FILTERED, 0, 30));
    expect(after.slice(0, 2)).toEqual([second, first]);
    await t.expectCurrent(FILTERED);
  });

  it('computes again after a field or view change (the fields and view are part of the key)', async () => {
    const t = await setUp(30);
    const statusId = t.table.fields.find((f: { name: string }) => f.name === 'Status').id as string;
    await t.page(SORTED, 0, 30);
    // reversing the choices reverses the group order
    const reordered = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: statusId },
      body: { options: { choices: [...STATUSES].reverse().map((name) => ({ name })) } },
    });
    expect(reordered.status).toBe(200);
    const groups = (await t.page(SORTED, 0, 30)).extra.groupPoints.filter(
      (p: { type: number }) => p.type === 0,
    );
    expect(groups.map((g: { value: string }) => g.value)).toEqual([...STATUSES].reverse());
    await t.expectCurrent(SORTED);

    // a renamed choice rewrites the cells one by one, then moves the version
    const renamed = await call('update-field', {
      token: t.token,
      params: { tableId: t.tableId, fieldId: statusId },
      body: { options: { choices: [{ name: 'dark' }, { name: 'medium' }, { name: 'pale' }] } },
    });
    expect(renamed.status).toBe(200);
    await t.expectCurrent(SORTED);
  });

  it('computes again when a linked table renames a record the query sorts by', async () => {
    const { alpha, beta } = await alphaAndBeta(['b1', 'b2', 'b3']);
    const token = alpha.owner.auth;
    const link = await call('create-field', {
      token,
      params: { tableId: alpha.tableId },
      body: { type: 'link', name: 'Beta', options: { relationship: 'manyOne', foreignTableId: beta.id } },
    });
    expect(link.status).toBe(201);
    const alphaIds = alpha.table.records.map((r: { id: string }) => r.id) as string[];
    const betaIds = beta.records.map((r: { id: string }) => r.id) as string[];
    const links = await call('update-records', {
      token,
      params: { tableId: alpha.tableId },
      body: { records: alphaIds.map((id, i) => ({ id, fields: { Beta: { id: betaIds[i] } } })) },
    });
    expect(links.status).toBe(200);
    const byBeta = q({ orderBy: [{ fieldId: 'Beta', order: 'asc' }], take: 10 });
    const list = async () =>
      (
        await call('list-records', { token, params: { tableId: alpha.tableId }, query: byBeta })
      ).body.records.map((r: { name: string }) => r.name);
    expect(await list()).toEqual(['A1', 'A2', 'A3']);
    const renamed = await call('update-record', {
      token,
      params: { tableId: beta.id, recordId: betaIds[0] as string },
      body: { record: { fields: { Name: 'b9' } } },
    });
    expect(renamed.status).toBe(200);
    expect(await list()).toEqual(['A2', 'A3', 'A1']);
  });

  it('moves the data version with a large write, and again when one is undone', async () => {
    const t = await setUp(3);
    const version = () => versionOf(t.tableId);
    const many = (n: number) =>
      call('create-records', {
        token: t.token,
        params: { tableId: t.tableId },
        body: { records: Array.from({ length: n }, (_, i) => ({ fields: { Name: `m${i}`, Count: 5 } })) },
      });
    const v0 = await version();
    expect((await many(150)).status).toBe(201);
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await t.page(FILTERED, 0, 10);
    injectChunkFault((index) => {
      if (index === 1) throw new Error('injected');
    });
    expect((await many(150)).status).toBe(500);
    injectChunkFault(undefined);
    expect(await version()).toBeGreaterThan(v1);
    await t.expectCurrent(FILTERED, 50);
  });

  it('moves the version once per write under concurrent writes to one table, none refused', async () => {
    const t = await setUp(40);
    const counters = async () =>
      (await readDataVersions([t.tableId])).get(t.tableId) ?? new Map<string, number>();
    const before = await counters();
    const answers = await Promise.all([
      ...t.ids.map((id, i) => t.update(id, { Count: 100 + i })),
      ...Array.from({ length: 20 }, (_, i) =>
        call('create-records', {
          token: t.token,
          params: { tableId: t.tableId },
          body: { records: [{ fields: { Name: `c${i}`, Count: 3 } }] },
        }),
      ),
    ]);
    expect(answers.map((a) => a.status).filter((s) => s >= 300)).toEqual([]);
    // the creates move the whole-table counter once each; the updates, once each, the counter of
    // every attribute they write (`version` among them)
    const after = await counters();
    const moved = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(moved('v')).toBe(20);
    expect(moved(counterOf('version'))).toBe(40);
    await t.expectCurrent(SORTED, 25);
  });

  it('moves the version of a full transaction right after it (no room left inside)', async () => {
    const tableId = `tbl${Date.now()}full`;
    const ops = Array.from({ length: 100 }, (_, i) => ({
      put: { ...keys.record(tableId, `rec${i}`), id: `rec${i}` },
    }));
    await transact(ops, () => new ConflictError('unexpected'));
    expect(await versionOf(tableId)).toBe(1);
    await transact(ops.slice(0, 99), () => new ConflictError('unexpected'));
    expect(await versionOf(tableId)).toBe(2);
  });

  it('agrees with the computed listing through random writes (property)', async () => {
    const t = await setUp(24);
    const ids = [...t.ids];
    const write = fc.oneof(
      fc.record({
        kind: fc.constant('update' as const),
        at: fc.nat(),
        count: fc.integer({ min: 0, max: 9 }),
      }),
      fc.record({ kind: fc.constant('create' as const), count: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('name' as const), at: fc.nat(), name: fc.string({ maxLength: 5 }) }),
      fc.record({ kind: fc.constant('status' as const), at: fc.nat(), status: fc.constantFrom(...STATUSES) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(write, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 3, max: 9 }),
        async (writes, take) => {
          await t.page(SORTED, 0, take);
          for (const w of writes) {
            if (w.kind === 'create') {
              const res = await call('create-records', {
                token: t.token,
                params: { tableId: t.tableId },
                body: { records: [{ fields: { Name: 'p', Count: w.count, Status: 'medium' } }] },
              });
              expect(res.status).toBe(201);
              ids.push(res.body.records[0].id);
              continue;
            }
            if (ids.length === 0) continue;
            const id = ids[w.at % ids.length] as string;
            if (w.kind === 'delete') {
              expect(
                (
                  await call('delete-record', {
                    token: t.token,
                    params: { tableId: t.tableId, recordId: id },
                  })
                ).status,
              ).toBe(200);
              ids.splice(ids.indexOf(id), 1);
            } else if (w.kind === 'name') expect((await t.update(id, { Name: w.name })).status).toBe(200);
            else if (w.kind === 'update') expect((await t.update(id, { Count: w.count })).status).toBe(200);
            else expect((await t.update(id, { Status: w.status })).status).toBe(200);
            // a page after each write, so the next write meets a kept order
            await t.page(SORTED, take, take);
          }
          const pages = [];
          for (let skip = 0; skip < ids.length + take; skip += take)
            pages.push(await t.page(SORTED, skip, take));
          for (const [i, answer] of pages.entries())
            expect(answer, `page ${i}`).toEqual(await t.fresh(SORTED, i * take, take));
        },
      ),
      { numRuns: 8 },
    );
  });
});
