import { describe, expect, it } from 'vitest';
import { type CallResult, call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newWorkspace } from '#test/support/workspace.ts';

/**
 * Hardening item 10 on DynamoDB Local's real stream: an entry's `occurredAt` is the time of the
 * write that made it, to the millisecond — for records, tables, fields, views, computed and
 * propagated changes and deletions alike — not the stream record's time (which DynamoDB Local
 * rounds down to the minute), so the feed (`GET /base/{baseId}/changes`) is in time order.
 */

const poller = useStreamPoller();

interface Entry {
  seq: number;
  type: string;
  tableId: string;
  txId: string;
  occurredAt: string;
  computed?: true;
}

/** Each request's window: from just before it was sent to just after it answered, by request id. */
const windows = new Map<string, { what: string; from: string; to: string }>();

/** Calls a route, failing on an error answer, and keeps the request's window. */
const step = async (what: string, send: () => Promise<CallResult>): Promise<CallResult> => {
  const from = new Date().toISOString();
  const res = await send();
  const to = new Date().toISOString();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  windows.set(res.headers['x-request-id'] as string, { what, from, to });
  return res;
};

/** The whole feed of a base, page after page. */
const feedOf = async (token: string, baseId: string): Promise<Entry[]> => {
  await poller.caughtUp();
  const out: Entry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call('list-changes', { token, params: { baseId }, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.changes);
    cursor = res.body.cursor;
    if (!res.body.hasMore) return out;
  }
};

describe('the time of change-log entries', () => {
  it("schema, record, computed, propagated and deleted entries carry their write's time to the millisecond, and the feed is in time order", async () => {
    const ws = await newWorkspace();
    const token = ws.owner.auth;
    const baseId = ws.baseId;
    const alpha = (
      await step('create table Alpha', () =>
        call('create-table', {
          token,
          params: { baseId },
          body: {
            name: 'Alpha',
            fields: [
              { name: 'Name', type: 'singleLineText' },
              { name: 'Count', type: 'number' },
            ],
            records: [{ fields: { Name: 'a1', Count: 1 } }, { fields: { Name: 'a2', Count: 2 } }],
          },
        }),
      )
    ).body;
    const fieldOf = (name: string) =>
      alpha.fields.find((f: { name: string }) => f.name === name).id as string;
    const [a1, a2] = alpha.records.map((r: { id: string }) => r.id) as [string, string];
    // a formula over every record: a field.created and the records' computed changes
    const double = (
      await step('create a formula', () =>
        call('create-field', {
          token,
          params: { tableId: alpha.id },
          body: { name: 'Double', type: 'formula', options: { expression: `{${fieldOf('Count')}} * 2` } },
        }),
      )
    ).body;
    const beta = (
      await step('create table Beta', () =>
        call('create-table', {
          token,
          params: { baseId },
          body: {
            name: 'Beta',
            fields: [{ name: 'Name', type: 'singleLineText' }],
            records: [{ fields: {} }],
          },
        }),
      )
    ).body;
    const b1 = beta.records[0].id as string;
    const link = (
      await step('create a link', () =>
        call('create-field', {
          token,
          params: { tableId: beta.id },
          body: {
            name: 'Parts',
            type: 'link',
            options: { relationship: 'manyMany', foreignTableId: alpha.id },
          },
        }),
      )
    ).body;
    await step('create a lookup', () =>
      call('create-field', {
        token,
        params: { tableId: beta.id },
        body: {
          type: 'singleLineText',
          isLookup: true,
          lookupOptions: { foreignTableId: alpha.id, linkFieldId: link.id, lookupFieldId: fieldOf('Name') },
        },
      }),
    );
    // the other side of the link in Alpha is written by propagation
    await step('link a record', () =>
      call('update-record', {
        token,
        params: { tableId: beta.id, recordId: b1 },
        body: { record: { fields: { Parts: [{ id: a1 }] } } },
      }),
    );
    // Beta's lookup follows Alpha's name by propagation
    await step('rename a record', () =>
      call('update-record', {
        token,
        params: { tableId: alpha.id, recordId: a1 },
        body: { record: { fields: { Name: 'a1 renamed' } } },
      }),
    );
    await step('rename a table', () =>
      call('update-table-name', {
        token,
        params: { baseId, tableId: alpha.id },
        body: { name: 'Alpha renamed' },
      }),
    );
    await step('rename a view', () =>
      call('update-view-name', {
        token,
        params: { tableId: alpha.id, viewId: alpha.views[0].id },
        body: { name: 'Everything' },
      }),
    );
    await step('delete a field', () =>
      call('delete-field', { token, params: { tableId: alpha.id, fieldId: double.id } }),
    );
    await step('delete a record', () =>
      call('delete-record', { token, params: { tableId: alpha.id, recordId: a2 } }),
    );
    await step('trash a table', () => call('delete-table', { token, params: { baseId, tableId: beta.id } }));
    const trash = (
      await step('list the trash', () =>
        call('list-trash-items', { token, query: `resourceType=base&resourceId=${baseId}` }),
      )
    ).body;
    await step('restore a table', () =>
      call('restore-trash-item', { token, params: { trashId: trash.trashItems[0].id } }),
    );

    const feed = await feedOf(token, baseId);

    // every kind of entry is there: schema entries of each kind, computed ones, deletions
    expect(new Set(feed.map((e) => e.type))).toEqual(
      new Set([
        'table.created',
        'table.updated',
        'table.deleted',
        'field.created',
        'field.deleted',
        'view.created',
        'view.updated',
        'record.created',
        'record.updated',
        'record.deleted',
      ]),
    );
    expect(feed.filter((e) => e.computed).map((e) => e.tableId)).toEqual(
      expect.arrayContaining([alpha.id, beta.id]),
    );
    // each entry's time lies within the request that made it (a stream time, rounded down to the
    // minute, would lie before it)
    const outside = feed.flatMap((e) => {
      const w = windows.get(e.txId);
      return w && e.occurredAt >= w.from && e.occurredAt <= w.to
        ? []
        : [{ seq: e.seq, type: e.type, occurredAt: e.occurredAt, request: w ?? e.txId }];
    });
    expect(outside).toEqual([]);
    // and the feed, in seq order, is in time order
    const times = feed.map((e) => e.occurredAt);
    expect(times).toEqual([...times].sort());
  });
});
