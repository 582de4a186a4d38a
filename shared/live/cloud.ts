/**
 * Live subscriptions in the cloud (data-flow.md 5): API Gateway's WebSocket API holds the sockets;
 * its `$connect`, `$disconnect` and `$default` routes call one Lambda
 * (`functions/workers/live-socket.ts`) with the steps here, and the stream processor fans a base's
 * new entries out to the connections that follow it (`fanOut`), through API Gateway's management
 * API. Connections and subscriptions are items (`entities/live-connections.ts`).
 *
 * Where the cloud differs from the local server: API Gateway chooses the close code of a
 * connection the service closes (not 4401: the `error` message with code `unauthorized` before it
 * says why); it pings nothing (a client sends a message at least every 10 minutes, API Gateway's
 * idle limit, or reconnects with `sinceSeq`); a change that lands while a resume replays the log
 * may come twice, so a client drops an entry whose `seq` it has seen.
 */
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { authenticateToken } from '#shared/auth/authenticate.ts';
import { entryReader } from '#shared/auth/entry-visibility.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { HttpError } from '#shared/core/errors.ts';
import { readAccessTokens } from '#shared/entities/access-tokens.ts';
import { CHANGE_TYPES, type ChangeEntry, headSeqOf } from '#shared/entities/change-log.ts';
import {
  addSubscription,
  type LiveIdentity,
  putConnection,
  readConnection,
  removeConnection,
  removeSubscription,
  setConnectionIdentity,
  subscriptionsOf,
} from '#shared/entities/live-connections.ts';
import { liveAccess, replayAfter } from './access.ts';
import { parseClientMessage, type ServerMessage, targetKey } from './protocol.ts';

/** What the service does to a connection API Gateway holds. */
export interface ConnectionSender {
  /** Sends a message; false when the connection is gone. */
  post(connectionId: string, message: ServerMessage): Promise<boolean>;
  close(connectionId: string): Promise<void>;
}

/** What the service does to a connection API Gateway holds, in text (the realtime socket's). */
export interface TextSender {
  /** Sends a message; false when the connection is gone. */
  post(connectionId: string, text: string): Promise<boolean>;
  close(connectionId: string): Promise<void>;
}

/** API Gateway's management API at a stage's callback URL. */
export const managementPoster = (endpoint: string): TextSender => {
  const client = new ApiGatewayManagementApiClient({ endpoint, maxAttempts: 3 });
  return {
    async post(connectionId, text) {
      try {
        await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: text }));
        return true;
      } catch (error) {
        if ((error as { name?: string }).name === 'GoneException') return false;
        throw error;
      }
    },
    async close(connectionId) {
      await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId })).catch(() => undefined);
    },
  };
};

/** The sender of the live API's stage: its messages as JSON. */
export const managementSender = (endpoint: string): ConnectionSender => {
  const poster = managementPoster(endpoint);
  return {
    post: (connectionId, message) => poster.post(connectionId, JSON.stringify(message)),
    close: (connectionId) => poster.close(connectionId),
  };
};

/** When a token ends (epoch ms): its own expiry, and a temporary token's (its `exp`), whichever is first. */
const tokenEnd = (token: string, principal: Principal): number => {
  const parent = Date.parse(principal.expiredTime ?? '') || Number.POSITIVE_INFINITY;
  if (principal.kind !== 'temporary') return parent;
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: number;
    };
    return Math.min(parent, (payload.exp ?? Number.POSITIVE_INFINITY) * 1000);
  } catch {
    return parent;
  }
};

/** Who a connection acts for, from its token. A bad token throws the 401. */
export const identityOf = async (token: string, now: number): Promise<LiveIdentity> => {
  const principal = await authenticateToken(token, now);
  return {
    userId: principal.userId,
    tokenId: principal.tokenId,
    refreshCount: principal.refreshCount ?? 0,
    tokenExpiresAt: tokenEnd(token, principal),
    scopes: [...principal.scopes],
    ...(principal.spaceIds ? { spaceIds: [...principal.spaceIds] } : {}),
    ...(principal.baseIds ? { baseIds: [...principal.baseIds] } : {}),
  };
};

/** `$connect`: with a token in the URL, checked now (a bad one: the 401 that refuses the upgrade). */
export const onConnect = async (connectionId: string, token: string | undefined, now = Date.now()) => {
  const identity = token === undefined ? undefined : await identityOf(token, now);
  await putConnection(connectionId, identity, now);
};

/** `$disconnect`: the connection and what it follows go. */
export const onDisconnect = (connectionId: string) => removeConnection(connectionId);

/** Closes a connection whose token is not good, saying why first. */
const refuse = async (sender: ConnectionSender, connectionId: string, reason: string) => {
  await sender.post(connectionId, { type: 'error', code: 'unauthorized', message: reason });
  await removeConnection(connectionId);
  await sender.close(connectionId);
};

/** `$default`: a message of the protocol. */
export const onMessage = async (
  connectionId: string,
  text: string,
  sender: ConnectionSender,
  now = Date.now(),
): Promise<void> => {
  const parsed = parseClientMessage(text);
  if (!parsed.ok) {
    await sender.post(connectionId, parsed.error);
    return;
  }
  const m = parsed.message;
  const connection = await readConnection(connectionId);
  if (!connection) return;
  if (m.action === 'auth') {
    if (connection.identity) {
      await sender.post(connectionId, {
        type: 'error',
        code: 'validation_error',
        message: 'already authenticated',
      });
      return;
    }
    try {
      await setConnectionIdentity(connectionId, await identityOf(m.token, now), now);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      await refuse(sender, connectionId, error.message);
    }
    return;
  }
  const identity = connection.identity;
  if (!identity) return refuse(sender, connectionId, 'authenticate first: {"action":"auth","token":…}');
  if (m.action === 'unsubscribe') {
    const base = m.baseId ?? (await liveAccessOf(identity, m)).baseId;
    if (base) await removeSubscription(base, connectionId, targetKey(m));
    await sender.post(connectionId, {
      type: 'unsubscribed',
      ...(m.baseId ? { baseId: m.baseId } : { tableId: m.tableId }),
    });
    return;
  }
  const access = await liveAccessOf(identity, m);
  if (!access.baseId) {
    await sender.post(connectionId, access.error as ServerMessage);
    return;
  }
  const { baseId, readable = [] } = access;
  const seq = m.sinceSeq ?? (await headSeqOf(baseId));
  await addSubscription({ ...connection, identity }, baseId, targetKey(m), m.tableId, readable, now);
  await sender.post(connectionId, {
    type: 'subscribed',
    baseId,
    ...(m.tableId ? { tableId: m.tableId } : {}),
    seq,
  });
  if (m.sinceSeq !== undefined)
    await replayAfter(baseId, followed({ readable, tableId: m.tableId }), m.sinceSeq, async (entry) => {
      await sender.post(connectionId, { type: 'change', entry });
    });
};

/** The access check for a connection's identity (its principal read again from its token's items). */
const liveAccessOf = async (
  identity: LiveIdentity,
  target: { baseId?: string; tableId?: string },
): Promise<{ baseId?: string; readable?: string[]; error?: ServerMessage }> => {
  const tokens = await readAccessTokens([identity]);
  const token = tokens.get(`${identity.userId}#${identity.tokenId}`);
  if (!token)
    return { error: { type: 'error', code: 'unauthorized', message: `token ${identity.tokenId} not found` } };
  if ((token.refreshCount ?? 0) !== identity.refreshCount || !(Date.parse(token.expiredTime) > Date.now()))
    return {
      error: {
        type: 'error',
        code: 'unauthorized',
        message: `token ${identity.tokenId} refreshed or expired`,
      },
    };
  // what the token allowed when it authenticated, never more than the token allows now
  const limit = (had: string[] | undefined, current: string[] | null) =>
    had && current ? had.filter((id) => current.includes(id)) : (had ?? current ?? undefined);
  const spaceIds = limit(identity.spaceIds, token.spaceIds);
  const baseIds = limit(identity.baseIds, token.baseIds);
  const principal: Principal = {
    userId: identity.userId,
    name: '',
    email: '',
    isAdmin: false,
    tokenId: identity.tokenId,
    kind: 'personal',
    scopes: new Set(token.scopes.filter((scope) => identity.scopes.includes(scope))),
    ...(spaceIds ? { spaceIds } : {}),
    ...(baseIds ? { baseIds } : {}),
  };
  const access = await liveAccess(principal, target);
  if ('error' in access) return { error: access.error };
  const may = entryReader(principal, access.source);
  return { baseId: access.baseId, readable: CHANGE_TYPES.filter((type) => may({ type })) };
};

/** Whether a subscription sends an entry: of its table (when it follows one), of a type it may read. */
const followed =
  (s: { readable?: readonly string[]; tableId?: string | undefined }) =>
  (entry: ChangeEntry): boolean =>
    (!s.tableId || entry.tableId === s.tableId) && (!s.readable || s.readable.includes(entry.type));

/**
 * A base's new entries to every connection that follows them: each subscription's token checked
 * first (still there, not refreshed since, not expired: else the connection is closed), then the
 * entries its target follows, in `seq` order; a connection found gone is removed.
 */
export const fanOut = async (
  baseId: string,
  entries: readonly ChangeEntry[],
  sender: ConnectionSender,
  now = Date.now(),
): Promise<void> => {
  const subscriptions = await subscriptionsOf(baseId);
  if (!subscriptions.length || !entries.length) return;
  const tokens = await readAccessTokens(subscriptions);
  await Promise.all(
    subscriptions.map(async (s) => {
      const token = tokens.get(`${s.userId}#${s.tokenId}`);
      const good =
        token &&
        (token.refreshCount ?? 0) === s.refreshCount &&
        Date.parse(token.expiredTime) > now &&
        s.tokenExpiresAt > now;
      if (!good) return refuse(sender, s.connectionId, 'the token was deleted, refreshed or has expired');
      const follows = followed(s);
      for (const entry of entries) {
        if (!follows(entry)) continue;
        if (!(await sender.post(s.connectionId, { type: 'change', entry }))) {
          await removeConnection(s.connectionId);
          return;
        }
      }
    }),
  );
};
