/**
 * Live subscriptions in the cloud, where API Gateway holds the sockets and Lambdas are stateless:
 * a connection (`LIVECONN#<id>`: the user and token it authenticated with, once it has, and what
 * it follows) and each base or table it follows (`LIVESUB#<bse>` `<id>#<target>`, in the base's
 * partition, so the fan-out of a base's changes is one query). Both expire (TTL) when the token
 * does, or after API Gateway's two-hour limit on a connection, whichever is first.
 */

import { ConflictError } from '#shared/core/errors.ts';
import { deleteItems, getItem, type Item, queryAll, type TransactOp, transact } from '#shared/db/client.ts';
import { and, EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, isMap, optionalText, text, textsOrNull } from './attributes.ts';

/** API Gateway closes a WebSocket connection after two hours. */
export const CONNECTION_SECONDS = 2 * 3600;

/** Who a connection acts for: enough to check the token again at each fan-out. */
export interface LiveIdentity {
  userId: string;
  tokenId: string;
  refreshCount: number;
  /** Epoch ms the token ends. */
  tokenExpiresAt: number;
  /** What the token allowed when it authenticated (a temporary token's narrowed scopes and limits). */
  scopes: string[];
  spaceIds?: string[];
  baseIds?: string[];
}

export interface LiveConnectionItem {
  connectionId: string;
  identity?: LiveIdentity;
  /** Each base and target it follows (to remove the subscriptions with the connection). */
  follows: { baseId: string; target: string }[];
}

export interface LiveSubscriptionItem extends LiveIdentity {
  connectionId: string;
  baseId: string;
  tableId?: string;
  /**
   * The entry types its subscriber may read, decided when it subscribed (`entryReader`). Absent on
   * subscriptions made before it was kept (they end within two hours): every type.
   */
  readable?: string[];
}

const expiry = (identity: LiveIdentity | undefined, now: number) =>
  Math.floor(
    Math.min(now + CONNECTION_SECONDS * 1000, identity?.tokenExpiresAt ?? Number.POSITIVE_INFINITY) / 1000,
  );

const texts = (value: unknown): string[] | undefined => textsOrNull(value) ?? undefined;

const identityOf = (item: Item): LiveIdentity | undefined => {
  if (typeof item.userId !== 'string') return undefined;
  const spaceIds = texts(item.spaceIds);
  const baseIds = texts(item.baseIds);
  return {
    userId: item.userId,
    tokenId: text(item.tokenId),
    refreshCount: count(item.refreshCount),
    tokenExpiresAt: count(item.tokenExpiresAt),
    scopes: texts(item.scopes) ?? [],
    ...(spaceIds ? { spaceIds } : {}),
    ...(baseIds ? { baseIds } : {}),
  };
};

/** Records a connection (authenticated when its token came with it). */
export const putConnection = async (connectionId: string, identity: LiveIdentity | undefined, now: number) =>
  transact(
    [
      {
        put: {
          ...keys.liveConnection(connectionId),
          type: 'liveConnection',
          connectionId,
          ...identity,
          follows: [],
          expiresAt: expiry(identity, now),
        },
      },
    ],
    () => new ConflictError('connection exists'),
  );

/** A connection, or undefined when it is gone. */
export const readConnection = async (connectionId: string): Promise<LiveConnectionItem | undefined> => {
  const item = await getItem(keys.liveConnection(connectionId));
  if (!item) return undefined;
  const identity = identityOf(item);
  return {
    connectionId,
    ...(identity ? { identity } : {}),
    follows: (Array.isArray(item.follows) ? item.follows : []).flatMap((f) =>
      isMap(f) && typeof f.baseId === 'string' && typeof f.target === 'string'
        ? [{ baseId: f.baseId, target: f.target }]
        : [],
    ),
  };
};

/** Follows a base or table: the subscription item, and its note on the connection (one write). */
export const addSubscription = async (
  connection: LiveConnectionItem & { identity: LiveIdentity },
  baseId: string,
  target: string,
  tableId: string | undefined,
  readable: readonly string[],
  now: number,
): Promise<void> => {
  const { identity } = connection;
  const ops: TransactOp[] = [
    {
      put: {
        ...keys.liveSubscription(baseId, connection.connectionId, target),
        type: 'liveSubscription',
        connectionId: connection.connectionId,
        baseId,
        ...(tableId ? { tableId } : {}),
        readable: [...readable],
        ...identity,
        expiresAt: expiry(identity, now),
      },
    },
    {
      update: {
        key: keys.liveConnection(connection.connectionId),
        update: 'SET follows = list_append(if_not_exists(follows, :none), :one)',
        values: { ':none': [], ':one': [{ baseId, target }] },
      },
    },
  ];
  await transact(ops, () => new ConflictError('subscription changed'));
};

/** Stops following a base or table (the note on the connection stays: removing a gone item is harmless). */
export const removeSubscription = (baseId: string, connectionId: string, target: string) =>
  deleteItems([keys.liveSubscription(baseId, connectionId, target)]);

/** Removes a connection and everything it follows. */
export const removeConnection = async (connectionId: string): Promise<void> => {
  const connection = await readConnection(connectionId);
  const subscriptions = (connection?.follows ?? []).map((f) =>
    keys.liveSubscription(f.baseId, connectionId, f.target),
  );

  await deleteItems([...subscriptions, keys.liveConnection(connectionId)]);
};

/** Every subscription of a base's changes (one query). */
export const subscriptionsOf = async (baseId: string): Promise<LiveSubscriptionItem[]> =>
  (await queryAll(keys.liveSubscriptionsOf(baseId))).flatMap((item) => {
    const identity = identityOf(item);
    const tableId = optionalText(item.tableId);
    const readable = textsOrNull(item.readable) ?? undefined;
    return identity
      ? [
          {
            ...identity,
            connectionId: text(item.connectionId),
            baseId,
            ...(tableId ? { tableId } : {}),
            ...(readable ? { readable } : {}),
          },
        ]
      : [];
  });

/** Sets who a connection acts for (its first message authenticated it). */
export const setConnectionIdentity = async (connectionId: string, identity: LiveIdentity, now: number) =>
  transact(
    [
      {
        update: {
          key: keys.liveConnection(connectionId),
          update: `SET userId = :u, tokenId = :t, refreshCount = :r, tokenExpiresAt = :e, expiresAt = :x, scopes = :s${
            identity.spaceIds ? ', spaceIds = :sp' : ''
          }${identity.baseIds ? ', baseIds = :bs' : ''}`,
          condition: and(EXISTS, 'attribute_not_exists(userId)'),
          values: {
            ':u': identity.userId,
            ':t': identity.tokenId,
            ':r': identity.refreshCount,
            ':e': identity.tokenExpiresAt,
            ':x': expiry(identity, now),
            ':s': identity.scopes,
            ...(identity.spaceIds ? { ':sp': identity.spaceIds } : {}),
            ...(identity.baseIds ? { ':bs': identity.baseIds } : {}),
          },
        },
      },
    ],
    () => new ConflictError('already authenticated, or gone'),
  );
