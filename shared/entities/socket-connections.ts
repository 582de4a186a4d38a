/**
 * The realtime socket in the cloud (`/socket`, contract web-app §2), where API Gateway holds the
 * sockets and Lambdas are stateless: a connection (`SOCKCONN#<id>`: the credential it kept, the
 * state of its ShareDB session as JSON, the topics it follows and a revision that every save
 * counts up) and one item per topic (`SOCKTOPIC#<collection or channel>` `<id>`), so the fan-out
 * of a change finds its connections with one query a collection. Both expire (TTL) two hours
 * after the connection opened, API Gateway's limit on a connection.
 */

import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { ConflictError } from '#shared/core/errors.ts';
import {
  deleteItems,
  getItem,
  getItems,
  type Item,
  queryAll,
  type TransactOp,
  transact,
  updateItem,
  writeItems,
} from '#shared/db/client.ts';
import { NOT_EXISTS } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { count, isMap, text, textsOrNull } from './attributes.ts';

/** API Gateway closes a WebSocket connection after two hours. */
export const SOCKET_CONNECTION_SECONDS = 2 * 3600;

/**
 * The largest session state kept (JSON bytes, before compression): an item holds 400 KB at most,
 * and the state compresses to well under half (ids and small numbers).
 */
export const SOCKET_STATE_MAX_BYTES = 600_000;

/**
 * The state is kept compressed (brotli, a binary attribute `stateZ`): a save writes the whole
 * item, and a write costs a unit per KB, so a smaller item is cheaper at every message and change.
 */
const pack = (state: string): Uint8Array =>
  brotliCompressSync(Buffer.from(state, 'utf8'), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: state.length },
  });
const unpack = (value: unknown): string =>
  value instanceof Uint8Array ? brotliDecompressSync(value).toString('utf8') : '';

export interface SocketConnection {
  connectionId: string;
  /**
   * The credential it authenticated with as the socket keeps it (`KeptCredential`, opaque here:
   * never a secret); absent when it came without one (every read answers `unauthorized`).
   */
  credential?: Readonly<Record<string, unknown>>;
  /** The ShareDB session (`ConnectionState`), as JSON. */
  state: string;
  topics: string[];
  revision: number;
  /** TTL (epoch seconds). */
  expiresAt: number;
}

const connectionOf = (item: Item): SocketConnection => ({
  connectionId: text(item.connectionId),
  ...(isMap(item.credential) ? { credential: item.credential } : {}),
  state: unpack(item.stateZ),
  topics: textsOrNull(item.topics) ?? [],
  revision: count(item.revision),
  expiresAt: count(item.expiresAt),
});

/** Records a new connection with its first state. */
export const putSocketConnection = async (
  connectionId: string,
  credential: Readonly<Record<string, unknown>> | undefined,
  state: string,
  now: number,
): Promise<void> =>
  transact(
    [
      {
        put: {
          ...keys.socketConnection(connectionId),
          type: 'socketConnection',
          connectionId,
          ...(credential ? { credential } : {}),
          stateZ: pack(state),
          topics: [],
          revision: 0,
          expiresAt: Math.floor(now / 1000) + SOCKET_CONNECTION_SECONDS,
        },
        condition: NOT_EXISTS,
      },
    ],
    () => new ConflictError(`socket connection ${connectionId} exists`),
  );

/** A connection, or undefined when it is gone. */
export const readSocketConnection = async (connectionId: string): Promise<SocketConnection | undefined> => {
  const item = await getItem(keys.socketConnection(connectionId));
  return item ? connectionOf(item) : undefined;
};

/** Many connections (one batch read); those gone are left out. */
export const readSocketConnections = async (ids: readonly string[]): Promise<SocketConnection[]> => {
  const found = await getItems(ids.map((id) => keys.socketConnection(id)));
  return ids.flatMap((id) => {
    const item = found.get(keys.socketConnection(id));
    return item ? [connectionOf(item)] : [];
  });
};

/**
 * Saves a connection's new state and topics, if no other Lambda saved it since it was read
 * (its revision): else a `ConflictError`, and the caller reads it again and redoes its work. With
 * the same topics it is one conditional update; else the update and the first topic changes go in
 * one transaction, and topics past a transaction's size follow it (a topic item too many only
 * costs a fan-out a read).
 */
export const saveSocketConnection = async (
  read: SocketConnection,
  state: string,
  topics: readonly string[],
): Promise<void> => {
  const id = read.connectionId;
  const had = new Set(read.topics);
  const now = new Set(topics);
  const writes: ({ put: Item } | { delete: Key })[] = [
    ...topics
      .filter((t) => !had.has(t))
      .map((t) => ({
        put: { ...keys.socketTopic(t, id), type: 'socketTopic', connectionId: id, expiresAt: read.expiresAt },
      })),
    ...read.topics.filter((t) => !now.has(t)).map((t) => ({ delete: keys.socketTopic(t, id) })),
  ];
  const update = {
    key: keys.socketConnection(id),
    update: 'SET stateZ = :state, topics = :topics, revision = :next',
    condition: 'revision = :revision',
    values: {
      ':state': pack(state),
      ':topics': [...topics],
      ':next': read.revision + 1,
      ':revision': read.revision,
    },
  };
  const conflict = () => new ConflictError(`socket connection ${id} changed or gone`);
  if (!writes.length) {
    await updateItem(update, conflict, 'NONE');
    return;
  }
  const first = writes.slice(0, 99);
  await transact([{ update }, ...first.map((w): TransactOp => w)], conflict);
  if (writes.length > first.length) await writeItems(writes.slice(first.length));
};

/** Removes a connection and its topic items. */
export const removeSocketConnection = async (connectionId: string): Promise<void> => {
  const connection = await readSocketConnection(connectionId);
  await deleteItems([
    ...(connection?.topics ?? []).map((t) => keys.socketTopic(t, connectionId)),
    keys.socketConnection(connectionId),
  ]);
};

/** The connections that follow any of these topics (one query a topic). */
export const connectionsFollowing = async (topics: Iterable<string>): Promise<string[]> => {
  const ids = new Set<string>();
  await Promise.all(
    [...new Set(topics)].map(async (t) => {
      for (const item of await queryAll({ ...keys.socketTopicOf(t), projection: ['connectionId'] }))
        ids.add(text(item.connectionId));
    }),
  );
  return [...ids].filter(Boolean);
};
