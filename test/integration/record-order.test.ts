import { describe, expect, it } from 'vitest';
import { getItems, queryAll } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import { newId } from '#shared/ids.ts';
import { MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';
import { viewOrderIds } from '#shared/records/placement.ts';
import { call } from '#test/support/invoke.ts';
import { newTable } from '#test/support/workspace.ts';

interface Ref {
  id: string;
}

/** A table with records r1 r2 r3 (in that order in its one view) and shortcuts to its routes. */
const threeRecords = async () => {
  const t = await newTable({
    records: [{ fields: { Name: 'r1' } }, { fields: { Name: 'r2' } }, { fields: { Name: 'r3' } }],
  });
  const token = t.owner.auth;
  const [r1, r2, r3] = t.table.records.map((r: Ref) => r.id) as [string, string, string];
  const order = () => viewOrderIds(t.tableId, t.viewId);
  const place = (body: Record<string, unknown>, viewId = t.viewId) =>
    call('update-record-order', { token, params: { tableId: t.tableId, viewId }, body });
  const create = async (names: string[], order?: Record<string, unknown>) => {
    const res = await call('create-records', {
      token,
      params: { tableId: t.tableId },
      body: { records: names.map((Name) => ({ fields: { Name } })), ...(order ? { order } : {}) },
    });
    if (res.status !== 201) throw new Error(`create-records: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.records.map((r: Ref) => r.id) as string[];
  };
  const etag = async (recordId: string) =>
    (await call('get-record', { token, params: { tableId: t.tableId, recordId } })).headers.etag;
  return { ...t, token, r1, r2, r3, order, place, create, etag };
};

/** The view-order entries of a view, as `{recordId, key}` in key order. */
const entriesOf = async (viewId: string) =>
  (await queryAll(keys.viewOrderOf(viewId))).map((i) => ({
    recordId: String(i.recordId),
    key: String(i.sk).slice(0, String(i.sk).indexOf('#')),
  }));

describe('record order: the contract examples through the record routes', () => {
  it('create 2 before r1 → new1 new2 r1 r2 r3', async () => {
    const t = await threeRecords();
    const [n1, n2] = await t.create(['new1', 'new2'], {
      viewId: t.viewId,
      anchorId: t.r1,
      position: 'before',
    });
    expect(await t.order()).toEqual([n1, n2, t.r1, t.r2, t.r3]);
  });

  it('update r3 after r1 → r1 r3 r2', async () => {
    const t = await threeRecords();
    const res = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.r3 },
      body: { record: { fields: {} }, order: { viewId: t.viewId, anchorId: t.r1, position: 'after' } },
    });
    expect(res.status).toBe(200);
    expect(await t.order()).toEqual([t.r1, t.r3, t.r2]);
  });

  it('batch update [r3, r1] after r2 → r2 r3 r1', async () => {
    const t = await threeRecords();
    const res = await call('update-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: [
          { id: t.r3, fields: { Name: 'r3 moved' } },
          { id: t.r1, fields: {} },
        ],
        order: { viewId: t.viewId, anchorId: t.r2, position: 'after' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: { name: string }) => r.name)).toEqual(['r3 moved', 'r1']);
    expect(await t.order()).toEqual([t.r2, t.r3, t.r1]);
  });
});

describe('record order: PUT …/view/{viewId}/record-order', () => {
  it.each([
    ['r3 after r1', ['r3'], 'r1', 'after', ['r1', 'r3', 'r2']],
    ['[r3, r1] after r2', ['r3', 'r1'], 'r2', 'after', ['r2', 'r3', 'r1']],
    ['[r3, r2] before r1', ['r3', 'r2'], 'r1', 'before', ['r3', 'r2', 'r1']],
    ['r1 after r3 (to the end)', ['r1'], 'r3', 'after', ['r2', 'r3', 'r1']],
  ] as const)('places %s', async (_, moving, anchor, position, expected) => {
    const t = await threeRecords();
    const byName = { r1: t.r1, r2: t.r2, r3: t.r3 };
    const res = await t.place({
      anchorId: byName[anchor],
      position,
      recordIds: moving.map((m) => byName[m]),
    });
    expect(res.status).toBe(200);
    expect(await t.order()).toEqual(expected.map((m) => byName[m]));
  });

  it('places records that are not the first placement of the view (moves placed records again)', async () => {
    const t = await threeRecords();
    await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2]);
    await t.place({ anchorId: t.r2, position: 'after', recordIds: [t.r3] });
    expect(await t.order()).toEqual([t.r1, t.r2, t.r3]);
    // One entry per placed record: the old entry of r3 is gone.
    const entries = await entriesOf(t.viewId);
    expect(entries.map((e) => e.recordId)).toEqual([t.r3]);
  });

  it('moving records to where they already are writes nothing (ETags unchanged)', async () => {
    const t = await threeRecords();
    const before = [await t.etag(t.r2), await t.etag(t.r3)];
    const res = await t.place({ anchorId: t.r1, position: 'after', recordIds: [t.r2, t.r3] });
    expect(res.status).toBe(200);
    expect([await t.etag(t.r2), await t.etag(t.r3)]).toEqual(before);
    expect(await entriesOf(t.viewId)).toEqual([]);
    // Also once the records have places of their own.
    await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    const placed = await t.etag(t.r3);
    const entries = await entriesOf(t.viewId);
    const again = await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    expect(again.status).toBe(200);
    expect(await t.etag(t.r3)).toBe(placed);
    expect(await entriesOf(t.viewId)).toEqual(entries);
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2]);
  });

  it('an unknown anchor is a 404 naming it, nothing moved', async () => {
    const t = await threeRecords();
    const anchorId = newId('record');
    const res = await t.place({ anchorId, position: 'before', recordIds: [t.r3] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: `Anchor ${anchorId} not found`, status: 404, code: 'not_found' });
    expect(await t.order()).toEqual([t.r1, t.r2, t.r3]);
  });

  it('an anchor of another table is a 404', async () => {
    const t = await threeRecords();
    const other = await newTable();
    const anchorId = other.table.records[0].id as string;
    const res = await t.place({ anchorId, position: 'before', recordIds: [t.r3] });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`Anchor ${anchorId} not found`);
  });

  it('an anchor among the moved records: they land together in request order at its old place (Teable)', async () => {
    const t = await threeRecords();
    const [r4] = await t.create(['r4']);
    // r1 r2 r3 r4, move [r3, r2] before r2 → r1 r3 r2 r4
    const put = await t.place({ anchorId: t.r2, position: 'before', recordIds: [t.r3, t.r2] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await t.order()).toEqual([t.r1, t.r3, t.r2, r4]);
    // the anchor first in the view: the block goes before the first record that stays
    const first = await t.place({ anchorId: t.r1, position: 'after', recordIds: [t.r2, t.r1] });
    expect(first.status).toBe(200);
    expect(await t.order()).toEqual([t.r2, t.r1, t.r3, r4]);
    // through a record update too
    const single = await call('update-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: r4 as string },
      body: {
        record: { fields: { Name: 'changed' } },
        order: { viewId: t.viewId, anchorId: r4, position: 'after' },
      },
    });
    expect(single.status).toBe(200);
    expect(await t.order()).toEqual([t.r2, t.r1, t.r3, r4]);
    // every record moving: nowhere to go, nothing moved
    const all = await t.place({ anchorId: t.r1, position: 'after', recordIds: [t.r1, t.r2, t.r3, r4] });
    expect(all.status).toBe(400);
    expect(await t.order()).toEqual([t.r2, t.r1, t.r3, r4]);
  });

  it('a view of another table is a 404, through every route', async () => {
    const t = await threeRecords();
    const other = await newTable();
    const put = await t.place({ anchorId: t.r1, position: 'after', recordIds: [t.r3] }, other.viewId);
    expect(put.status).toBe(404);
    expect(put.body).toMatchObject({ status: 404, code: 'not_found' });
    const created = await call('create-records', {
      token: t.token,
      params: { tableId: t.tableId },
      body: {
        records: [{ fields: { Name: 'x' } }],
        order: { viewId: other.viewId, anchorId: t.r1, position: 'after' },
      },
    });
    expect(created.status).toBe(404);
    expect(await t.order()).toEqual([t.r1, t.r2, t.r3]);
  });

  it('an unknown record to move is a 404', async () => {
    const t = await threeRecords();
    const ghost = newId('record');
    const res = await t.place({ anchorId: t.r1, position: 'after', recordIds: [ghost] });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`Record ${ghost} not found`);
  });
});

describe('record order: views, later records, duplicates and deletes', () => {
  it('records created later without a placement go to the end of the manual order', async () => {
    const t = await threeRecords();
    await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    const [r4, r5] = await t.create(['r4', 'r5']);
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2, r4, r5]);
    // Placing after the last record stays below records created afterwards.
    await t.place({ anchorId: r5, position: 'after', recordIds: [t.r1] });
    const [r6] = await t.create(['r6']);
    expect(await t.order()).toEqual([t.r3, t.r2, r4, r5, t.r1, r6]);
  });

  it('each view has its own order', async () => {
    const t = await threeRecords();
    const second = await call('create-view', {
      token: t.token,
      params: { tableId: t.tableId },
      body: { type: 'grid', name: 'Second' },
    });
    expect(second.status).toBe(201);
    const v2 = second.body.id as string;
    await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    await t.place({ anchorId: t.r3, position: 'after', recordIds: [t.r1] }, v2);
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2]);
    expect(await viewOrderIds(t.tableId, v2)).toEqual([t.r2, t.r3, t.r1]);
    const [n] = await t.create(['n'], { viewId: v2, anchorId: t.r2, position: 'before' });
    expect(await viewOrderIds(t.tableId, v2)).toEqual([n, t.r2, t.r3, t.r1]);
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2, n]);
    // Each record holds a key only for the views where it was placed.
    const items = await getItems([t.r1, t.r3].map((id) => keys.record(t.tableId, id)));
    const ordOf = (id: string) => (items.get(keys.record(t.tableId, id)) as RecordItem).ord;
    expect(Object.keys(ordOf(t.r3) ?? {})).toEqual([t.viewId]);
    expect(Object.keys(ordOf(t.r1) ?? {})).toEqual([v2]);
  });

  it.each([
    ['before', 'r1', ['copy', 'r1', 'r2', 'r3']],
    ['after', 'r1', ['r1', 'copy', 'r2', 'r3']],
    ['after', 'r3', ['r1', 'r2', 'r3', 'copy']],
  ] as const)('duplicate-record with position %s %s lands there', async (position, anchor, expected) => {
    const t = await threeRecords();
    const byName: Record<string, string> = { r1: t.r1, r2: t.r2, r3: t.r3 };
    const res = await call('duplicate-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.r3 },
      body: { viewId: t.viewId, anchorId: byName[anchor], position },
    });
    expect(res.status).toBe(201);
    expect(res.body.records[0].fields).toEqual({ Name: 'r3' });
    byName.copy = res.body.records[0].id;
    expect(await t.order()).toEqual(expected.map((n) => byName[n]));
  });

  it('duplicate-record without a placement goes to the end', async () => {
    const t = await threeRecords();
    await t.place({ anchorId: t.r1, position: 'before', recordIds: [t.r3] });
    const res = await call('duplicate-record', {
      token: t.token,
      params: { tableId: t.tableId, recordId: t.r1 },
    });
    expect(res.status).toBe(201);
    expect(await t.order()).toEqual([t.r3, t.r1, t.r2, res.body.records[0].id]);
  });

  it('deleting a placed record removes its order entry', async () => {
    const t = await threeRecords();
    const [n1, n2] = (await t.create(['n1', 'n2'], {
      viewId: t.viewId,
      anchorId: t.r2,
      position: 'before',
    })) as [string, string];
    expect((await entriesOf(t.viewId)).map((e) => e.recordId)).toEqual([n1, n2]);
    const one = await call('delete-record', { token: t.token, params: { tableId: t.tableId, recordId: n1 } });
    expect(one.status).toBe(200);
    const many = await call('delete-records', {
      token: t.token,
      params: { tableId: t.tableId },
      query: `recordIds[]=${n2}&recordIds[]=${t.r3}`,
    });
    expect(many.status).toBe(200);
    expect(await entriesOf(t.viewId)).toEqual([]);
    expect(await t.order()).toEqual([t.r1, t.r2]);
  });
});

describe('record order: a hot spot', () => {
  // About 6 inserts at one spot lengthen the key by one character: from 9 characters, the 64 of the
  // bound are reached after some 330 inserts, so 400 go through at least one rebalance.
  it('400 inserts one by one before the same anchor keep the exact order, keys rebalanced to at most 64 characters', {
    timeout: 300_000,
  }, async () => {
    const t = await threeRecords();
    const model = [t.r1, t.r2, t.r3];
    const keysNow = async () => {
      const items = await getItems(model.map((id) => keys.record(t.tableId, id)));
      return new Map(
        model.map((id) => [id, (items.get(keys.record(t.tableId, id)) as RecordItem).ord?.[t.viewId]]),
      );
    };
    let snapshot = new Map<string, string | undefined>();
    for (let i = 0; i < 400; i++) {
      const [id] = await t.create([`n${i}`], { viewId: t.viewId, anchorId: t.r2, position: 'before' });
      model.splice(model.indexOf(t.r2), 0, id as string);
      if (i % 50 === 49) expect(await t.order()).toEqual(model);
      if (i === 299) snapshot = await keysNow();
    }
    expect(await t.order()).toEqual(model);

    const final = await keysNow();
    const placed = model.filter((id) => final.get(id) !== undefined);
    const placedKeys = placed.map((id) => final.get(id) as string);
    // Every inserted record has a key of its own (a rebalance may give r1 r2 r3 keys too).
    const inserted = model.filter((id) => ![t.r1, t.r2, t.r3].includes(id));
    expect(inserted.filter((id) => final.get(id) === undefined)).toEqual([]);
    expect(Math.max(...placedKeys.map((k) => k.length))).toBeLessThanOrEqual(MAX_KEY_LENGTH);
    expect([...placedKeys].sort()).toEqual(placedKeys);
    // A rebalance happened: records inserted in the first 300 have new keys now.
    const rewritten = [...snapshot].filter(([id, key]) => key !== undefined && final.get(id) !== key);
    expect(rewritten.length).toBeGreaterThan(0);
    // The view's entries are exactly one per placed record, under the record's own key.
    expect(await entriesOf(t.viewId)).toEqual(placed.map((id) => ({ recordId: id, key: final.get(id) })));
    // The default-order index marks exactly the placed records as placed in this view.
    const numbers = await queryAll(keys.recordNumbersOf(t.tableId));
    const marked = numbers
      .filter((n) => (n.pv as Set<string> | undefined)?.has(t.viewId))
      .map((n) => String(n.recordId));
    expect(marked.sort()).toEqual([...placed].sort());
  });
});

/**
 * Issue 10.4: placements racing for the same records (moves, and `order` on create, update and
 * duplicate) leave every record in the view's order exactly once, its record key and its order
 * entry agreeing. Each racer answers 2xx or 409, never 500.
 */
describe('record order: concurrent placements', () => {
  const table = async (n: number) => {
    const t = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: Array.from({ length: n }, (_, i) => ({ fields: { Name: `r${i}` } })),
    });
    const ids = t.table.records.map((r: Ref) => r.id) as string[];
    const place = (recordIds: string[], anchorId: string, position = 'before') =>
      call('update-record-order', {
        token: t.owner.auth,
        params: { tableId: t.tableId, viewId: t.viewId },
        body: { anchorId, position, recordIds },
      });
    return { ...t, ids, place };
  };

  /** Every record once in the view's order, once in the listing, and its key matching its one entry. */
  const expectOncePerRecord = async (t: Awaited<ReturnType<typeof table>>, count: number) => {
    const entries = await entriesOf(t.viewId);
    const perRecord = new Map<string, number>();
    for (const e of entries) perRecord.set(e.recordId, (perRecord.get(e.recordId) ?? 0) + 1);
    expect([...perRecord].filter(([, n]) => n > 1)).toEqual([]);
    const items = await queryAll(keys.recordsOf(t.tableId));
    expect(items).toHaveLength(count);
    for (const item of items as RecordItem[]) {
      const key = item.ord?.[t.viewId];
      const entry = entries.find((e) => e.recordId === item.id);
      expect(entry?.key, `the entry of ${item.id}`).toBe(key);
    }
    const ordered = await viewOrderIds(t.tableId, t.viewId);
    expect(ordered).toHaveLength(count);
    expect(new Set(ordered).size).toBe(count);
    const listed = await call('list-records', {
      token: t.owner.auth,
      params: { tableId: t.tableId },
      query: `viewId=${t.viewId}&take=1000`,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.records.map((r: Ref) => r.id)).toEqual(ordered);
  };

  const statuses = (answers: { status: number }[]) => [...new Set(answers.map((a) => a.status))].sort();

  it('20 parallel moves of one record before 20 different anchors: it is listed once, before an anchor whose move answered 200', async () => {
    const t = await table(24);
    const [moved, ...anchors] = t.ids as [string, ...string[]];
    const targets = anchors.slice(0, 20);
    const answers = await Promise.all(targets.map((anchor) => t.place([moved], anchor)));

    expect(statuses(answers).every((s) => s === 200 || s === 409)).toBe(true);
    const won = targets.filter((_, i) => answers[i]?.status === 200);
    expect(won.length).toBeGreaterThan(0);
    await expectOncePerRecord(t, 24);
    const ordered = await viewOrderIds(t.tableId, t.viewId);
    expect(won).toContain(ordered[ordered.indexOf(moved) + 1]);
  });

  it('30 parallel moves of different records before one anchor (racing rebalances): every record once', async () => {
    const t = await table(40);
    const anchor = t.ids[20] as string;
    const movers = t.ids.filter((id) => id !== anchor).slice(0, 30);
    const answers = await Promise.all(movers.map((id) => t.place([id], anchor)));

    expect(statuses(answers).every((s) => s === 200 || s === 409)).toBe(true);
    await expectOncePerRecord(t, 40);
  });

  it('4 parallel moves of the same 60 records (journaled writes of over 100 operations): every record once', async () => {
    const t = await table(80);
    const moving = t.ids.slice(0, 60);
    const anchors = t.ids.slice(60, 64);
    const answers = await Promise.all(anchors.map((anchor) => t.place(moving, anchor)));

    expect(statuses(answers).every((s) => s === 200 || s === 409)).toBe(true);
    await expectOncePerRecord(t, 80);
  });

  it('creates, updates, duplicates and moves placed around the same anchors at once: every record once', async () => {
    const t = await table(12);
    const [a, b, c] = t.ids as [string, string, string];
    const order = (anchorId: string) => ({ viewId: t.viewId, anchorId, position: 'after' });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        call('create-records', {
          token: t.owner.auth,
          params: { tableId: t.tableId },
          body: { records: [{ fields: { Name: `new${i}` } }], order: order(i % 2 ? a : b) },
        }),
      ),
      ...t.ids.slice(3, 9).map((recordId, i) =>
        call('update-record', {
          token: t.owner.auth,
          params: { tableId: t.tableId, recordId },
          body: { record: { fields: {} }, order: order(i % 2 ? b : a) },
        }),
      ),
      ...t.ids.slice(3, 9).map((id) => t.place([id], c, 'after')),
      ...t.ids.slice(9, 12).map((recordId) =>
        call('duplicate-record', {
          token: t.owner.auth,
          params: { tableId: t.tableId, recordId },
          body: { viewId: t.viewId, anchorId: a, position: 'after' },
        }),
      ),
    ]);

    expect(answers.filter((r) => ![200, 201, 409].includes(r.status))).toEqual([]);
    const created = answers.filter((r) => r.status === 201).length;
    await expectOncePerRecord(t, 12 + created);
  });
});
