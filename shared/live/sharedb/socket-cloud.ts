/**
 * The realtime socket in the cloud (contract web-app §2; `README.md` here): API Gateway's
 * WebSocket API holds the sockets and calls one Lambda (`functions/workers/socket.ts`) for
 * `$connect`, `$disconnect` and every message (`$default`); the stream processor hands each
 * base's new log entries to `socketFanOut`. No process holds a session, so each step reads the
 * connection's kept session (`entities/socket-connections.ts`), runs the same `ShareDbHub` the
 * local server runs, saves the session (if no other Lambda saved it meanwhile: else it reads it
 * again and redoes the step) and only then posts what the hub said, cut to API Gateway's 128 KB
 * (`frames.ts`) through the management API.
 *
 * Where the cloud differs from the local server:
 * - the credential is read again at every step (the local server: every 30 s);
 * - a record doc's data is not kept with the session: a record's next op replaces its properties
 *   (`fields` whole) instead of naming each changed cell — the doc ends the same;
 * - a session is kept up to `SOCKET_STATE_MAX_BYTES`: a request that would grow it past that is
 *   refused (`too_large`), a change that would is answered by closing the connection (the client
 *   reconnects and subscribes again);
 * - a fault of ours while a change is fanned out leaves that connection's docs where they were
 *   until the next change of the same collection (the local server retries in a second);
 * - API Gateway enforces no handshake deadline of ours: it closes a connection idle for 10
 *   minutes, and every connection after two hours.
 */
import {
  authenticateKeptAll,
  credentialKeys,
  type KeptCredential,
  keepCredential,
  principalFrom,
  readCredential,
} from '#shared/auth/authenticate.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { checkSameOrigin, ownHostOf } from '#shared/auth/same-origin.ts';
import { config } from '#shared/config.ts';
import { ConflictError, HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import { readBatch } from '#shared/entities/batch-read.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';
import {
  connectionsFollowing,
  putSocketConnection,
  readSocketConnection,
  readSocketConnections,
  removeSocketConnection,
  SOCKET_STATE_MAX_BYTES,
  type SocketConnection,
  saveSocketConnection,
} from '#shared/entities/socket-connections.ts';
import type { TextSender } from '../cloud.ts';
import { bytesOf, splitFrames } from './frames.ts';
import {
  type ConnectionState,
  changesOf,
  type Message,
  type ShareDbConnection,
  ShareDbHub,
} from './socket-hub.ts';

/** The most API Gateway posts to a connection in one message. */
export const CLOUD_FRAME_BYTES = 128 * 1024;
/** A client's message larger than this closes its connection (the local server's limit too). */
export const CLOUD_MESSAGE_MAX_BYTES = 64 * 1024;
/**
 * How often a step is redone when another Lambda saved the same session meanwhile (API Gateway
 * runs a connection's messages side by side: a client sends several at once), after a short
 * random wait that grows.
 */
const ATTEMPTS = 12;
const backOff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * Math.min(attempt, 6)));

/** The request headers of `$connect` (any case). */
export type ConnectHeaders = Record<string, string | undefined>;

const header = (headers: ConnectHeaders, name: string): string | undefined =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * `$connect`: the session cookie (or a bearer token in `Authorization`) is checked and kept; a
 * connection without a good one still connects and answers every read `unauthorized`, as the
 * local server's. A cookie from a foreign `Origin` refuses the connection (the 403 thrown).
 */
export const onSocketConnect = async (connectionId: string, headers: ConnectHeaders, now = Date.now()) => {
  const authorization = header(headers, 'authorization');
  const cookies = (header(headers, 'cookie') ?? '')
    .split(';')
    .map((c) => c.trim())
    .filter(Boolean);
  if (!authorization && cookies.length)
    checkSameOrigin(
      'POST',
      { origin: header(headers, 'origin'), referer: header(headers, 'referer') },
      ownHostOf(headers),
      config.webOrigins,
    );
  let credential: KeptCredential | undefined;
  if (authorization || cookies.length)
    try {
      const c = await readCredential(authorization, cookies);
      credential = keepCredential(c, principalFrom(c, await readBatch(credentialKeys(c)), now));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
    }
  const hub = new ShareDbHub();
  const connection = hub.adopt({ send: () => undefined, close: () => undefined }, undefined);
  connection.id = connectionId;
  await putSocketConnection(connectionId, credential, JSON.stringify(connection.toState()), now);
};

/** `$disconnect`: the connection and its topics go. */
export const onSocketDisconnect = (connectionId: string) => removeSocketConnection(connectionId);

/** A kept session taken up in a hub for one step, and what the hub said to it. */
interface Step {
  item: SocketConnection;
  connection: ShareDbConnection;
  out: string[];
  closing: boolean;
}

/** Takes a kept session up in `hub`, with its principal read again now (none when no longer good). */
const takeUp = (
  hub: ShareDbHub,
  item: SocketConnection,
  credential: Principal | HttpError | undefined,
): Step => {
  const step: Step = { item, connection: undefined as unknown as ShareDbConnection, out: [], closing: false };
  step.connection = hub.adopt(
    {
      send: (text) => step.out.push(text),
      close: () => {
        step.closing = true;
      },
    },
    credential instanceof HttpError ? undefined : credential,
  );
  step.connection.restore(JSON.parse(item.state) as ConnectionState);
  if (credential instanceof HttpError) hub.signOut(step.connection);
  return step;
};

/**
 * Sessions taken up in one hub, their credentials read again together (one batch: the tabs of one
 * user share its items); a credential no longer good signs its session out.
 */
const takeUpAll = async (
  hub: ShareDbHub,
  items: readonly SocketConnection[],
  now: number,
): Promise<Step[]> => {
  const kept = items.flatMap((item) => (item.credential ? [item.credential as KeptCredential] : []));
  const principals = await authenticateKeptAll(kept, now);
  let next = 0;
  return items.map((item) => takeUp(hub, item, item.credential ? principals[next++] : undefined));
};

class StateTooLarge extends Error {}

/** Saves the step's session when it changed; a `ConflictError` when another Lambda saved it first. */
const save = async (step: Step): Promise<void> => {
  const state = JSON.stringify(step.connection.toState());
  if (bytesOf(state) > SOCKET_STATE_MAX_BYTES) throw new StateTooLarge();
  const topics = step.connection.topics().sort();
  if (state === step.item.state && topics.join('\n') === [...step.item.topics].sort().join('\n')) return;
  await saveSocketConnection(step.item, state, topics);
};

/** Posts texts to a connection in order, each cut to API Gateway's limit; a connection found gone is removed. */
const postAll = async (
  sender: TextSender,
  connectionId: string,
  texts: readonly string[],
): Promise<boolean> => {
  for (const text of texts)
    for (const frame of splitFrames(text, CLOUD_FRAME_BYTES))
      if (!(await sender.post(connectionId, frame))) {
        await removeSocketConnection(connectionId);
        return false;
      }
  return true;
};

const close = async (sender: TextSender, connectionId: string) => {
  await removeSocketConnection(connectionId);
  await sender.close(connectionId);
};

const PONG = JSON.stringify({ a: 'pp' });
const isPing = (text: string): boolean => {
  try {
    const m = JSON.parse(text) as Message;
    return m !== null && typeof m === 'object' && m.a === 'pp';
  } catch {
    return false;
  }
};

/** The request a message makes, to answer it with an error of its own. */
const requestOf = (text: string): Message => {
  try {
    const m = JSON.parse(text) as Message;
    const { a, id, c, d, b, ch, seq } = m;
    return Object.fromEntries(Object.entries({ a, id, c, d, b, ch, seq }).filter(([, v]) => v !== undefined));
  } catch {
    return {};
  }
};

/**
 * `$default`: one message of the protocol. The answer is posted once the session it leaves is
 * saved; a presence goes to the other connections on its channel.
 */
export const onSocketMessage = async (
  connectionId: string,
  text: string,
  sender: TextSender,
  now = Date.now(),
): Promise<void> => {
  if (bytesOf(text) > CLOUD_MESSAGE_MAX_BYTES) return close(sender, connectionId);
  // Teable's web app pings every 10 s: answered without reading the session (no database call)
  if (isPing(text)) {
    await sender.post(connectionId, PONG);
    return;
  }
  try {
    await answer(connectionId, text, sender, now);
  } catch (error) {
    // every request is answered: a fault of ours (the database unreachable…) as an error to retry
    const failed = {
      ...requestOf(text),
      error: { code: 'internal_server_error', message: 'The request failed on our side; retry' },
    };
    await sender.post(connectionId, JSON.stringify(failed)).catch(() => undefined);
    throw error;
  }
};

const answer = async (connectionId: string, text: string, sender: TextSender, now: number): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    const item = await readSocketConnection(connectionId);
    if (!item) return;
    const presence: { channel: string; message: Message }[] = [];
    const hub = new ShareDbHub({ presenceTo: (channel, message) => presence.push({ channel, message }) });
    const [step] = await takeUpAll(hub, [item], now);
    if (!step) return;
    await hub.message(step.connection, text);
    try {
      await save(step);
    } catch (error) {
      if (error instanceof ConflictError && attempt < ATTEMPTS) {
        await backOff(attempt);
        continue;
      }
      if (!(error instanceof StateTooLarge)) throw error;
      const refused = {
        ...requestOf(text),
        error: {
          code: 'too_large',
          message: 'This connection holds as much as it can: unsubscribe something first',
        },
      };
      await postAll(sender, connectionId, [JSON.stringify(refused)]);
      return;
    }
    if (!(await postAll(sender, connectionId, step.out))) return;
    if (step.closing) await close(sender, connectionId);
    for (const { channel, message } of presence) {
      const others = (await connectionsFollowing([channel])).filter((id) => id !== connectionId);
      await Promise.all(others.map((id) => postAll(sender, id, [JSON.stringify(message)])));
    }
    return;
  }
};

/**
 * A base's new log entries to the connections they concern (those holding docs or queries of a
 * changed collection, or following an action-trigger channel): each session taken up in one hub
 * (so one read answers the same query for every connection of a user), the changes published,
 * each session saved and what it was told posted. A session another Lambda saved meanwhile is
 * read again and brought up to date on its own.
 */
export const socketFanOut = async (
  baseId: string,
  entries: readonly ChangeEntry[],
  sender: TextSender,
  now = Date.now(),
): Promise<void> => {
  const { collections, triggers } = changesOf(baseId, entries);
  const ids = await connectionsFollowing([...collections.keys(), ...triggers.map((t) => t.channel)]);
  if (!ids.length) return;
  const faults = new Set<string>();
  const publish = async (items: readonly SocketConnection[]): Promise<Step[]> => {
    const hub = new ShareDbHub({ onFault: (connection) => faults.add(connection.id) });
    const steps = await takeUpAll(hub, items, now);
    await hub.publish(baseId, entries);
    await Promise.all(steps.map((s) => s.connection.settled()));
    return steps;
  };
  const steps = await publish(await readSocketConnections(ids));
  await Promise.all(
    steps.map(async (first) => {
      let step: Step | undefined = first;
      for (let attempt = 1; step; attempt++) {
        try {
          await save(step);
          break;
        } catch (error) {
          if (error instanceof StateTooLarge) return close(sender, step.item.connectionId);
          if (!(error instanceof ConflictError) || attempt >= ATTEMPTS) throw error;
          await backOff(attempt);
          const again = await readSocketConnection(step.item.connectionId);
          step = again ? (await publish([again]))[0] : undefined;
        }
      }
      if (!step) return;
      if ((await postAll(sender, step.item.connectionId, step.out)) && step.closing)
        await close(sender, step.item.connectionId);
    }),
  );
  if (faults.size)
    logger.warn('socket fan-out: answers not read again for some connections (a fault of ours)', {
      baseId,
      connections: faults.size,
    });
};
