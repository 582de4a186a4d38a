import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { injectChunkFault } from '#shared/db/commit.ts';
import { useApiGatewaySocket } from '#test/support/api-gateway-socket.ts';
import { call } from '#test/support/invoke.ts';
import { type ShareDbQuery, subscribeQuery, useSocketServer } from '#test/support/sharedb-client.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newWorkspace } from '#test/support/workspace.ts';

/**
 * A property of the realtime socket (issue 46): whatever REST writes happen on two tables joined
 * by a link — with a formula, a lookup, records created, deleted, batch-updated, and a batch
 * update interrupted and undone (110 records: two units of a journaled write) — a client subscribed to both tables' records holds, once the change log
 * has caught up, exactly what the REST listing answers: the same records, in the same order, with
 * the same cells. Run on the local server's socket, and on the cloud's (API Gateway staged on this
 * machine, the sessions kept in DynamoDB between messages and changes).
 */

const poller = useStreamPoller();
const local = useSocketServer({ reauthMs: 0 });
const cloud = useApiGatewaySocket();
afterAll(() => injectChunkFault(undefined));

type Step =
  | { kind: 'set'; row: number; name: string; count: number | null }
  | { kind: 'create'; name: string }
  | { kind: 'delete'; row: number }
  | { kind: 'link'; row: number }
  | { kind: 'batch'; count: number }
  | { kind: 'interrupted'; count: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    row: fc.nat(20),
    name: fc.string({ minLength: 1, maxLength: 8 }),
    count: fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('create' as const), name: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('delete' as const), row: fc.nat(20) }),
  fc.record({ kind: fc.constant('link' as const), row: fc.nat(20) }),
  fc.record({ kind: fc.constant('batch' as const), count: fc.integer({ min: -9, max: 9 }) }),
  fc.record({ kind: fc.constant('interrupted' as const), count: fc.integer({ min: 100, max: 200 }) }),
);

interface Listed {
  ids: string[];
  fields: Record<string, unknown>[];
}

const restListing = async (token: string, tableId: string, viewId: string): Promise<Listed> => {
  const res = await call('list-records', {
    token,
    params: { tableId },
    query: `viewId=${viewId}&fieldKeyType=id&take=300`,
  });
  expect(res.status).toBe(200);
  const records = res.body.records as { id: string; fields: Record<string, unknown> }[];
  return { ids: records.map((r) => r.id), fields: records.map((r) => r.fields) };
};

const heldBy = (query: ShareDbQuery): Listed => ({
  ids: query.results.map((d) => d.id),
  fields: query.results.map((d) => (d.data as { fields: Record<string, unknown> }).fields),
});

/** Waits until the client holds what REST answers (the log caught up first), or fails showing both. */
const agree = async (query: ShareDbQuery, rest: () => Promise<Listed>) => {
  // beside the other capture files the capture of a batch can take tens of seconds
  await poller.caughtUp(60_000);
  // a busy machine's capture and reads take seconds: the budget is generous, the check exact
  const end = Date.now() + 30_000;
  for (;;) {
    const expected = await rest();
    try {
      expect(heldBy(query)).toEqual(expected);
      return;
    } catch (error) {
      if (Date.now() > end) throw error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Fails after `ms`, naming the step that did not finish (the property never hangs silently). */
const within = <T>(ms: number, what: string, work: Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

// Up to 10 minutes a variant: beside the other capture files the capture of each 110-record batch
// can take tens of seconds (issue 49), and a clean-clone run took over 5 minutes for one variant;
// the checks are exact whatever the wait.
describe.each([
  { where: 'the local server', sockets: local, numRuns: 3 },
  { where: 'the cloud (API Gateway staged)', sockets: cloud, numRuns: 2 },
])('a subscribed client holds what REST answers, whatever the writes: $where', ({ sockets, numRuns }) => {
  it('random writes on two linked tables with a formula and a lookup', async () => {
    const ws = await newWorkspace();
    const token = ws.owner.auth;
    const items = await call('create-table', {
      token,
      params: { baseId: ws.baseId },
      body: {
        name: 'Items',
        fields: [
          { name: 'Name', type: 'singleLineText' },
          { name: 'Count', type: 'number' },
        ],
        records: Array.from({ length: 110 }, (_, i) => ({ fields: { Name: `item ${i}`, Count: i } })),
      },
    });
    const itemsId = items.body.id as string;
    const itemsView = items.body.views[0].id as string;
    const count = items.body.fields.find((f: { name: string }) => f.name === 'Count').id as string;
    const name = items.body.fields.find((f: { name: string }) => f.name === 'Name').id as string;
    await call('create-field', {
      token,
      params: { tableId: itemsId },
      body: { name: 'Double', type: 'formula', options: { expression: `{${count}} * 2` } },
    });
    const orders = await call('create-table', {
      token,
      params: { baseId: ws.baseId },
      body: {
        name: 'Orders',
        fields: [
          { name: 'Title', type: 'singleLineText' },
          { name: 'Item', type: 'link', options: { relationship: 'manyOne', foreignTableId: itemsId } },
        ],
        records: [{ fields: { Title: 'o1' } }, { fields: { Title: 'o2' } }],
      },
    });
    const ordersId = orders.body.id as string;
    const ordersView = orders.body.views[0].id as string;
    const link = orders.body.fields.find((f: { name: string }) => f.name === 'Item').id as string;
    const orderIds = orders.body.records.map((r: { id: string }) => r.id) as string[];
    await call('create-field', {
      token,
      params: { tableId: ordersId },
      body: {
        type: 'singleLineText',
        isLookup: true,
        lookupOptions: { foreignTableId: itemsId, linkFieldId: link, lookupFieldId: name },
      },
    });
    await poller.caughtUp();
    const client = await sockets.connect({ authorization: token });
    const itemsQuery = (
      await subscribeQuery(client.connection, `rec_${itemsId}`, { viewId: itemsView, take: 300 })
    ).query;
    const ordersQuery = (
      await subscribeQuery(client.connection, `rec_${ordersId}`, { viewId: ordersView, take: 300 })
    ).query;
    const itemIds = async () => (await restListing(token, itemsId, itemsView)).ids;

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 6 }), async (steps) => {
        for (const s of steps) {
          const ids = await itemIds();
          const pick = (row: number) => ids[row % Math.max(ids.length, 1)];
          if (s.kind === 'set' && pick(s.row))
            await call('update-record', {
              token,
              params: { tableId: itemsId, recordId: pick(s.row) as string },
              body: { fieldKeyType: 'id', record: { fields: { [name]: s.name, [count]: s.count } } },
            });
          else if (s.kind === 'create')
            await call('create-records', {
              token,
              params: { tableId: itemsId },
              body: { fieldKeyType: 'id', records: [{ fields: { [name]: s.name } }] },
            });
          else if (s.kind === 'delete' && ids.length > 2 && pick(s.row))
            await call('delete-record', {
              token,
              params: { tableId: itemsId, recordId: pick(s.row) as string },
            });
          else if (s.kind === 'link' && pick(s.row))
            await call('update-record', {
              token,
              params: { tableId: ordersId, recordId: orderIds[s.row % 2] as string },
              body: { fieldKeyType: 'id', record: { fields: { [link]: { id: pick(s.row) } } } },
            });
          else if (s.kind === 'batch')
            await call('update-records', {
              token,
              params: { tableId: itemsId },
              body: { fieldKeyType: 'id', records: ids.map((id) => ({ id, fields: { [count]: s.count } })) },
            });
          else if (s.kind === 'interrupted') {
            // a batch update too large for one transaction, failing after its first unit: undone,
            // each record put back at the version after the one the unit gave it
            injectChunkFault((i) => {
              if (i === 1) throw new Error('fault injected after the first unit');
            });
            const res = await call('update-records', {
              token,
              params: { tableId: itemsId },
              body: { fieldKeyType: 'id', records: ids.map((id) => ({ id, fields: { [count]: s.count } })) },
            });
            injectChunkFault(undefined);
            expect(res.status).toBeGreaterThanOrEqual(500);
          }
          await within(
            120_000,
            `after ${JSON.stringify(s)}, the items`,
            agree(itemsQuery, () => restListing(token, itemsId, itemsView)),
          );
          await within(
            120_000,
            `after ${JSON.stringify(s)}, the orders`,
            agree(ordersQuery, () => restListing(token, ordersId, ordersView)),
          );
        }
      }),
      // no shrinking: a failing run is reported as it happened (shrinking re-runs it for minutes)
      { numRuns, endOnFailure: true },
    );
  }, 600_000);
});
