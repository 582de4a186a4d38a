import { describe, expect, it } from 'vitest';
import { handler } from '#functions/workers/live-socket.ts';
import { changesAfter, headSeqOf } from '#shared/entities/change-log.ts';
import { readConnection, subscriptionsOf } from '#shared/entities/live-connections.ts';
import { type ConnectionSender, fanOut, onConnect, onDisconnect, onMessage } from '#shared/live/cloud.ts';
import type { ServerMessage } from '#shared/live/protocol.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newTable } from '#test/support/workspace.ts';

/**
 * Live subscriptions as the cloud runs them (issue 31, data-flow.md 5): the WebSocket API's routes
 * (`functions/workers/live-socket.ts`, `shared/live/cloud.ts`) and the stream processor's fan-out,
 * against DynamoDB Local. API Gateway's management API cannot run here: the connections are a
 * recording sender (what would be posted to each, which were closed, which are gone).
 */

const poller = useStreamPoller();

const recorder = (gone: Set<string> = new Set()) => {
  const posted = new Map<string, ServerMessage[]>();
  const closed: string[] = [];
  const sender: ConnectionSender = {
    async post(connectionId, message) {
      if (gone.has(connectionId)) return false;
      posted.set(connectionId, [...(posted.get(connectionId) ?? []), message]);
      return true;
    },
    async close(connectionId) {
      closed.push(connectionId);
    },
  };
  return { sender, posted, closed, of: (id: string) => posted.get(id) ?? [] };
};

const raw = (auth: string) => auth.replace(/^Bearer /, '');
let n = 0;
const connectionId = () => `conn-${Date.now()}-${n++}=`;
const socketEvent = (routeKey: string, id: string, token?: string) =>
  ({
    requestContext: { routeKey, connectionId: id, domainName: 'example.test', stage: 'live' },
    ...(token === undefined ? {} : { queryStringParameters: { token } }),
  }) as unknown as Parameters<typeof handler>[0];

const table = () => newTable({ fields: [{ type: 'singleLineText', name: 'Name' }], records: [] });
/** Writes records and answers the change-log entries they made (the capture caught up). */
const writeAndRead = async (t: Awaited<ReturnType<typeof table>>, names: string[], tableId = t.tableId) => {
  const before = await headSeqOf(t.baseId);
  await call('create-records', {
    token: t.owner.auth,
    params: { tableId },
    body: { records: names.map((Name) => ({ fields: { Name } })) },
  });
  await poller.caughtUp();
  return changesAfter(t.baseId, before, 100);
};

describe('live subscriptions in the cloud (WebSocket API routes and fan-out)', () => {
  it('$connect refuses a bad token in the URL with a 401 and records a good one; $disconnect forgets it', async () => {
    const t = await table();
    expect(await handler(socketEvent('$connect', connectionId(), 'nope'))).toMatchObject({ statusCode: 401 });
    const id = connectionId();
    expect(await handler(socketEvent('$connect', id, raw(t.owner.auth)))).toMatchObject({ statusCode: 200 });
    expect(await readConnection(id)).toMatchObject({ identity: { userId: t.owner.id } });
    expect(await handler(socketEvent('$disconnect', id))).toMatchObject({ statusCode: 200 });
    expect(await readConnection(id)).toBeUndefined();
  });

  it('subscribes with the API read rights and fans out each entry to the connections that follow it', async () => {
    const t = await table();
    await poller.caughtUp();
    const r = recorder();
    const owner = connectionId();
    const stranger = connectionId();
    await onConnect(owner, raw(t.owner.auth));
    await onConnect(stranger, raw((await newUser()).auth));
    await onMessage(owner, JSON.stringify({ action: 'subscribe', baseId: t.baseId }), r.sender);
    await onMessage(stranger, JSON.stringify({ action: 'subscribe', baseId: t.baseId }), r.sender);
    expect(r.of(owner)).toEqual([{ type: 'subscribed', baseId: t.baseId, seq: await headSeqOf(t.baseId) }]);
    expect(r.of(stranger)).toEqual([expect.objectContaining({ type: 'error', code: 'restricted_resource' })]);

    const entries = await writeAndRead(t, ['a', 'b']);
    await fanOut(t.baseId, entries, r.sender);

    expect(r.of(owner).slice(1)).toEqual(entries.map((entry) => ({ type: 'change', entry })));
    expect(r.of(stranger)).toHaveLength(1);
    expect((await subscriptionsOf(t.baseId)).map((s) => s.connectionId)).toEqual([owner]);
  });

  it('takes the token as the first message, replays the log after sinceSeq, and follows a table alone when asked', async () => {
    const t = await table();
    const other = await call('create-table', {
      token: t.owner.auth,
      params: { baseId: t.baseId },
      body: { name: 'Other', fields: [{ type: 'singleLineText', name: 'Name' }], records: [] },
    });
    const missed = await writeAndRead(t, ['x', 'y']);
    await writeAndRead(t, ['elsewhere'], other.body.id);
    const r = recorder();
    const id = connectionId();
    await onConnect(id, undefined);
    await onMessage(id, JSON.stringify({ action: 'auth', token: raw(t.owner.auth) }), r.sender);
    const since = (missed[0]?.seq as number) - 1;
    await onMessage(
      id,
      JSON.stringify({ action: 'subscribe', tableId: t.tableId, sinceSeq: since }),
      r.sender,
    );

    const got = r.of(id);
    expect(got[0]).toEqual({ type: 'subscribed', baseId: t.baseId, tableId: t.tableId, seq: since });
    // the missed entries of this table, in order; none of the other table
    const replayed = got.slice(1).map((m) => (m.type === 'change' ? m.entry : undefined));
    expect(replayed.map((e) => e?.tableId)).toEqual(replayed.map(() => t.tableId));
    expect(replayed.map((e) => e?.id)).toEqual(
      missed.filter((e) => e.tableId === t.tableId).map((e) => e.id),
    );
  });

  it('closes a connection whose token was deleted, and forgets a connection API Gateway says is gone', async () => {
    const t = await table();
    await poller.caughtUp();
    const made = await call('create-access-token', {
      token: t.owner.auth,
      body: {
        name: 'live',
        scopes: ['base|read'],
        expiredTime: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    const revoked = connectionId();
    const vanished = connectionId();
    const r = recorder(new Set([vanished]));
    await onConnect(revoked, made.body.token);
    await onConnect(vanished, raw(t.owner.auth));
    await onMessage(revoked, JSON.stringify({ action: 'subscribe', baseId: t.baseId }), r.sender);
    await onMessage(vanished, JSON.stringify({ action: 'subscribe', baseId: t.baseId }), r.sender);
    await call('delete-access-token', { token: t.owner.auth, params: { accessTokenId: made.body.id } });

    await fanOut(t.baseId, await writeAndRead(t, ['z']), r.sender);

    expect(r.closed).toEqual([revoked]);
    expect(r.of(revoked).at(-1)).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(r.of(revoked).some((m) => m.type === 'change')).toBe(false);
    expect(await readConnection(revoked)).toBeUndefined();
    expect(await readConnection(vanished)).toBeUndefined();
    expect(await subscriptionsOf(t.baseId)).toEqual([]);
  });

  it('refuses to subscribe before authenticating (closing the connection) and answers a bad message with an error', async () => {
    const t = await table();
    const r = recorder();
    const id = connectionId();
    await onConnect(id, undefined);
    await onMessage(id, '{"action":"dance"}', r.sender);
    expect(r.of(id)).toEqual([expect.objectContaining({ type: 'error', code: 'validation_error' })]);
    await onMessage(id, JSON.stringify({ action: 'subscribe', baseId: t.baseId }), r.sender);
    expect(r.closed).toEqual([id]);
    expect(await readConnection(id)).toBeUndefined();
    await onDisconnect(id);
  });
});
