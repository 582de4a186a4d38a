import { beforeAll, describe, expect, it } from 'vitest';
import { getItem, queryAll } from '#shared/db/client.ts';
import { callSummary, resetCalls } from '#shared/db/metrics.ts';
import { noteRead, oncePerRequest, readEarlier, withRequestScope } from '#shared/db/request-scope.ts';
import { appendChanges, type ChangeDraft, expiryOf } from '#shared/entities/change-log.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallResult, call } from '#test/support/invoke.ts';

/**
 * What one request reads: the per-request reader (`oncePerRequest`, `readEarlier`) and the round
 * trips of record writes on a warm handler. Counts of DynamoDB calls, never times.
 */
describe('per-request reads', () => {
  it('reads once per request, again in the next request, and keeps no failed read', async () => {
    let reads = 0;
    const read = async () => ++reads;
    await withRequestScope(10_000, async () => {
      expect(await oncePerRequest('x', read)).toBe(1);
      expect(await oncePerRequest('x', read)).toBe(1);
      await expect(oncePerRequest('bad', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
      expect(await oncePerRequest('bad', async () => 'now')).toBe('now');
    });
    await withRequestScope(10_000, async () => expect(await oncePerRequest('x', read)).toBe(2));
    // outside a request nothing is kept
    expect(await oncePerRequest('x', read)).toBe(3);
    expect(await oncePerRequest('x', read)).toBe(4);
  });

  it('a request past its deadline reads no more (what a listing answered at its deadline was still reading stops)', async () => {
    const key = { pk: 'USER#nobody', sk: 'USER' };
    await withRequestScope(10_000, async () => expect(await getItem(key)).toBeUndefined());
    resetCalls();
    await withRequestScope(-1, async () => {
      await expect(getItem(key)).rejects.toMatchObject({ status: 503 });
      await expect(queryAll({ pk: key.pk })).rejects.toMatchObject({ status: 503 });
    });
    expect(callSummary().calls).toBe(0);
    // outside a request (workers, tools) there is no deadline
    expect(await getItem(key)).toBeUndefined();
  });

  it('finds an item noted earlier in the same request only', async () => {
    const key = { pk: 'P', sk: 'S' };
    await withRequestScope(10_000, async () => {
      noteRead([[key, { ...key, v: 1 }]]);
      expect(readEarlier(key)).toEqual({ ...key, v: 1 });
    });
    await withRequestScope(10_000, async () => expect(readEarlier(key)).toBeUndefined());
  });
});

describe('record writes on a warm handler: round trips after authentication', () => {
  let token: string;
  let tableId: string;
  let foreignIds: string[];
  let recordId: string;

  const measured = async (run: () => Promise<CallResult>) => {
    await run(); // warm: the schema cache, as on a warm Lambda
    resetCalls();
    const answer = await run();
    const s = callSummary();
    // the first call is the authentication batch
    return { answer, ops: s.ops, afterAuth: s.sequentialRoundTrips - 1 };
  };

  beforeAll(async () => {
    const owner = await newUser();
    token = owner.auth;
    const space = (await call('create-space', { token, body: { name: 'Reads' } })).body.id;
    const base = (await call('create-base', { token, body: { spaceId: space } })).body.id;
    const foreign = await call('create-table', {
      token,
      params: { baseId: base },
      body: {
        name: 'Foreign',
        fields: [{ type: 'singleLineText', name: 'Name' }],
        records: [{ fields: { Name: 'first' } }, { fields: { Name: 'second' } }],
      },
    });
    foreignIds = foreign.body.records.map((r: { id: string }) => r.id);
    const table = await call('create-table', {
      token,
      params: { baseId: base },
      body: {
        name: 'Here',
        fields: [
          { type: 'singleLineText', name: 'Name' },
          { type: 'user', name: 'Owner' },
          {
            type: 'link',
            name: 'Link',
            options: { relationship: 'manyMany', foreignTableId: foreign.body.id },
          },
          { type: 'singleLineText', name: 'Code', unique: true },
        ],
        records: [],
      },
    });
    tableId = table.body.id;
    const created = await call('create-records', {
      token,
      params: { tableId },
      body: { records: [{ fields: { Name: 'r', Link: [{ id: foreignIds[0] }] } }] },
    });
    recordId = created.body.records[0].id;
  });

  it('create 1 with a link and a unique value: one round of reads, then the write (2)', async () => {
    let n = 0;
    const { answer, ops, afterAuth } = await measured(() =>
      call('create-records', {
        token,
        params: { tableId },
        body: { records: [{ fields: { Name: 'n', Code: `c${n++}`, Link: [{ id: foreignIds[1] }] } }] },
      }),
    );

    expect(answer.status).toBe(201);
    expect(answer.body.records[0].fields.Link).toEqual([{ id: foreignIds[1], title: 'second' }]);
    // no schema query (foreign table read with authentication), no members query (no user cell),
    // and the linked record's title from the read made before the write
    expect(ops).not.toContain('Query');
    expect(afterAuth).toBe(2);
  });

  it('create 1 naming a collaborator reads the collaborators first (3)', async () => {
    const me = (await call('get-current-user', { token })).body.id;
    const { answer, ops, afterAuth } = await measured(() =>
      call('create-records', {
        token,
        params: { tableId },
        body: { records: [{ fields: { Name: 'u', Owner: { id: me } } }] },
      }),
    );

    expect(answer.status).toBe(201);
    expect(answer.body.records[0].fields.Owner).toMatchObject({ id: me });
    expect(ops.filter((op) => op === 'Query')).toHaveLength(1);
    expect(afterAuth).toBe(3);
  });

  it('update 1: the write answers the record, then its link titles (2)', async () => {
    const { answer, ops, afterAuth } = await measured(() =>
      call('update-record', {
        token,
        params: { tableId, recordId },
        body: { record: { fields: { Name: `v${Math.random()}` } } },
      }),
    );

    expect(answer.status).toBe(200);
    expect(answer.body.fields.Link).toEqual([{ id: foreignIds[0], title: 'first' }]);
    // the table's data version moves (UpdateItem) while the link titles are read
    expect([...ops].sort()).toEqual(['BatchGetItem', 'BatchGetItem', 'UpdateItem', 'UpdateItem']);
    expect(afterAuth).toBe(2);
  });
});

describe('the change feed: round trips after authentication', () => {
  let token: string;
  let baseId: string;
  const tableId = 'tblFeedReads';

  const measured = async (query: string) => {
    resetCalls();
    const answer = await call('list-changes', { token, params: { baseId }, query });
    const s = callSummary();
    return { answer, afterAuth: s.sequentialRoundTrips - 1 };
  };

  beforeAll(async () => {
    const owner = await newUser();
    token = owner.auth;
    const space = (await call('create-space', { token, body: { name: 'Feed reads' } })).body.id;
    baseId = (await call('create-base', { token, body: { spaceId: space } })).body.id;
    // 250 entries written straight to the log (no stream needed to count the feed's reads)
    const drafts: ChangeDraft[] = Array.from({ length: 250 }, (_, i) => ({
      sourceId: `feed-reads-${baseId}-${i}`,
      type: 'record.updated',
      baseId,
      tableId,
      recordId: `rec${i}`,
      actor: { id: owner.id },
      occurredAt: new Date().toISOString(),
      txId: `tx${i}`,
      after: { fldA: i },
    }));
    await appendChanges(baseId, drafts, expiryOf(new Date(), 30));
    // warm, as on a warm Lambda (what authentication caches)
    await call('list-changes', { token, params: { baseId }, query: 'limit=1' });
  });

  it('a first page, a page from a cursor, and a poll at the end read once (auth + 1)', async () => {
    const first = await measured('limit=100');
    const next = await measured(`limit=100&cursor=${first.answer.body.cursor}`);
    const last = await measured(`limit=100&cursor=${next.answer.body.cursor}`);
    const poll = await measured(`limit=100&cursor=${last.answer.body.cursor}`);

    expect([first, next, last, poll].map((p) => p.answer.body.changes.length)).toEqual([100, 100, 50, 0]);
    expect([first, next, last, poll].map((p) => p.answer.body.hasMore)).toEqual([true, true, false, false]);
    expect([first, next, last, poll].map((p) => p.afterAuth)).toEqual([1, 1, 1, 1]);
  });

  it('a cursor whose entry is not there (ahead of the log) reads the head as well, and is a 400', async () => {
    const { cursorOf } = await import('#shared/changes/feed.ts');
    const ahead = await measured(`cursor=${cursorOf(999)}`);

    expect(ahead.answer.status).toBe(400);
    expect(ahead.afterAuth).toBe(2);
  });
});
