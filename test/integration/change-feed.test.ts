import { describe, expect, it } from 'vitest';
import { appendChanges, type ChangeDraft, type ChangeType, expiryOf } from '#shared/entities/change-log.ts';
import { error, invalid } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { bearer, createToken } from '#test/support/tokens.ts';
import { newMember, newTable } from '#test/support/workspace.ts';

/** Issue 28: `GET /base/{baseId}/changes` (data-flow.md 3) over a base's change log. */

type World = Awaited<ReturnType<typeof newTable>>;

const drafts = (
  w: World,
  n: number,
  type: (i: number) => ChangeType = () => 'record.updated',
  tableId = w.tableId,
) =>
  Array.from(
    { length: n },
    (_, i): ChangeDraft => ({
      sourceId: `${w.baseId}-${tableId}-${type(i)}-${i}-${Math.random()}`,
      type: type(i),
      baseId: w.baseId,
      tableId,
      recordId: `rec${String(i).padStart(16, '0')}`,
      actor: { id: w.owner.id },
      occurredAt: new Date().toISOString(),
      txId: 'tx',
    }),
  );

const feed = (w: World, query = '', token = w.owner.auth) =>
  call('list-changes', { token, params: { baseId: w.baseId }, query });

describe('GET /base/{baseId}/changes', () => {
  it('pages the whole log in seq order; reading until hasMore is false, then polling, sees each change once', async () => {
    const w = await newTable();
    const log = appendChanges.bind(null, w.baseId);
    await log(drafts(w, 7), expiryOf(new Date(), 30));

    const seen: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await feed(w, `limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      seen.push(...res.body.changes.map((c: { seq: number }) => c.seq));
      cursor = res.body.cursor;
      if (!res.body.hasMore) break;
    }
    await log(drafts(w, 2), expiryOf(new Date(), 30));
    const polled = await feed(w, `cursor=${encodeURIComponent(cursor as string)}`);

    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(polled.body.changes.map((c: { seq: number }) => c.seq)).toEqual([8, 9]);
    expect(polled.body.hasMore).toBe(false);
    expect(polled.body.changes[0]).toEqual({
      seq: 8,
      id: expect.stringMatching(/^evt[0-9A-Za-z]{16}$/),
      type: 'record.updated',
      baseId: w.baseId,
      tableId: w.tableId,
      recordId: 'rec0000000000000000',
      actor: { id: w.owner.id },
      occurredAt: expect.any(String),
      txId: 'tx',
    });
  });

  it('cursor=latest answers no changes and the cursor of now; what comes after is read from it', async () => {
    const w = await newTable();
    await appendChanges(w.baseId, drafts(w, 4), expiryOf(new Date(), 30));

    const latest = await feed(w, 'cursor=latest');
    await appendChanges(w.baseId, drafts(w, 1), expiryOf(new Date(), 30));
    const next = await feed(w, `cursor=${encodeURIComponent(latest.body.cursor)}`);

    expect(latest.body).toEqual({ changes: [], cursor: expect.any(String), hasMore: false });
    expect(next.body.changes.map((c: { seq: number }) => c.seq)).toEqual([5]);
  });

  it('types and tableId narrow the entries; the cursor moves past what they leave out', async () => {
    const w = await newTable();
    const other = 'tblOTHER00000000000';
    await appendChanges(
      w.baseId,
      [
        ...drafts(w, 3, (i) => (i === 1 ? 'record.created' : 'record.updated')),
        ...drafts(w, 2, () => 'record.created', other),
      ],
      expiryOf(new Date(), 30),
    );

    const created = await feed(w, 'types=record.created,record.deleted');
    const ofTable = await feed(w, `tableId=${w.tableId}&types=record.created`);

    expect(created.body.changes.map((c: { seq: number }) => c.seq)).toEqual([2, 4, 5]);
    expect(ofTable.body.changes.map((c: { seq: number }) => c.seq)).toEqual([2]);
    expect(ofTable.body.hasMore).toBe(false);
  });

  it('a cursor older than the retention is a 410 cursor_expired; no cursor starts at the oldest kept entry', async () => {
    const w = await newTable();
    const first = await feed(w, 'cursor=latest');
    await appendChanges(w.baseId, drafts(w, 3), Math.floor(Date.now() / 1000) - 60); // expired, not yet removed
    await appendChanges(w.baseId, drafts(w, 2), expiryOf(new Date(), 30));

    const stale = await feed(w, `cursor=${encodeURIComponent(first.body.cursor)}`);
    const fresh = await feed(w);

    expect(stale).toMatchObject(
      error(410, 'cursor_expired', /older than the feed keeps \(its oldest entry is seq 4\)/),
    );
    expect(fresh.body.changes.map((c: { seq: number }) => c.seq)).toEqual([4, 5]);
  });

  it.each([
    ['a cursor that does not parse', 'cursor=nonsense', /^Invalid query\.cursor/],
    [
      'a cursor ahead of the feed',
      `cursor=c1.${Buffer.from('99').toString('base64url')}`,
      /ahead of this base/,
    ],
    [
      'an unknown type',
      'types=record.created,record.moved',
      'Invalid query.types: unknown type record.moved',
    ],
    ['a limit of 0', 'limit=0', /^Invalid query\.limit: must be a whole number from 1 to 1000/],
    ['a limit of 1001', 'limit=1001', /^Invalid query\.limit: must be a whole number from 1 to 1000/],
    ['a limit of 10000', 'limit=10000', /^Invalid query\.limit: must be a whole number from 1 to 1000/],
    ['a limit of 1.5', 'limit=1.5', /^Invalid query\.limit: must be a whole number from 1 to 1000/],
    ['a table id of the wrong shape', 'tableId=x', /^Invalid query\.tableId/],
  ])('%s is a 400', async (_, query, message) => {
    const w = await newTable();
    expect(await feed(w, query)).toMatchObject(invalid(message));
  });

  it('a viewer of the space reads the feed; a user outside it does not', async () => {
    const w = await newTable();
    const viewer = await newMember(w, 'viewer');
    const stranger = await newUser();

    expect((await feed(w, '', viewer.auth)).status).toBe(200);
    expect((await feed(w, '', stranger.auth)).status).toBe(403);
  });

  it('leaves out the entries the token may not read: record entries need record|read, field entries field|read', async () => {
    const w = await newTable();
    const types: ChangeType[] = ['table.created', 'field.created', 'record.created', 'record.updated'];
    await appendChanges(
      w.baseId,
      drafts(w, 4, (i) => types[i] as ChangeType),
      expiryOf(new Date(), 30),
    );
    const seen = async (scopes: string[]) => {
      const token = await createToken(w.owner, { name: 'Feed', scopes });
      const res = await feed(w, '', bearer(token.token));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.changes.map((c: { type: string }) => c.type);
    };

    expect(await seen(['base|read'])).toEqual([]);
    expect(await seen(['base|read', 'table|read', 'field|read'])).toEqual(['table.created', 'field.created']);
    expect(await seen(['base|read', 'record|read'])).toEqual(['record.created', 'record.updated']);
    expect(await seen(['base|read', 'table|read', 'field|read', 'record|read'])).toEqual(types);
  });
});
