/**
 * Live subscriptions (data-flow.md 5), transport apart: connections authenticated with a bearer
 * token (in the URL, or as the first message), each following bases or tables; every change-log
 * entry of what it follows is sent as `{"type":"change","entry"}`, in `seq` order, once.
 *
 * - Only what the token may read: a base needs `base|read`, a table `record|read`, checked when
 *   subscribing; the token is checked again at most every `reauthMs` before sending (a token
 *   deleted, refreshed or expired closes the socket with 4401).
 * - `sinceSeq` resumes: the subscription first sends every retained entry after it, from the log,
 *   then goes live. Without it, it starts at the log's head.
 * - The log is the source: a published batch that does not follow on from what a subscription
 *   sent last (entries it missed while catching up) is read from the log instead, so nothing is
 *   skipped or sent twice.
 *
 * The local server feeds it from the stream poller (`publish.ts`) and carries it over the `ws`
 * library (`infra/local/live-server.ts`).
 */
import { authenticateToken } from '#shared/auth/authenticate.ts';
import type { EntrySource } from '#shared/auth/entry-visibility.ts';
import type { Principal } from '#shared/auth/permission.ts';
import { HttpError } from '#shared/core/errors.ts';
import { type ChangeEntry, headSeqOf } from '#shared/entities/change-log.ts';
import { followedBy, liveAccess, replayAfter } from './access.ts';
import { type LiveTarget, parseClientMessage, type ServerMessage, targetKey } from './protocol.ts';

/** What the hub needs of a socket. */
export interface LiveSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** The close code of a connection whose token is not (or no longer) good. */
export const CLOSE_UNAUTHORIZED = 4401;

interface Subscription {
  baseId: string;
  tableId?: string;
  /** Where the base was located at subscribing, with the caller's role there (what it may read). */
  source: EntrySource;
  lastSeq: number;
  catchingUp: boolean;
  again: boolean;
}

/** One client connection. */
export class LiveConnection {
  principal: Principal | undefined;
  checkedAt = 0;
  readonly subscriptions = new Map<string, Subscription>();
  closed = false;

  constructor(
    readonly socket: LiveSocket,
    public token: string | undefined,
  ) {}
}

export class LiveHub {
  private readonly connections = new Set<LiveConnection>();

  constructor(private readonly options: { reauthMs?: number; now?: () => number } = {}) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Connections open now. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * A new connection: with a token from the URL, already authenticated (`authenticateToken`, before
   * the upgrade: a bad one is refused with a 401); without, its first message must be `auth`.
   */
  adopt(socket: LiveSocket, token?: string, principal?: Principal): LiveConnection {
    const connection = new LiveConnection(socket, token);
    if (principal) {
      connection.principal = principal;
      connection.checkedAt = this.now();
    }
    this.connections.add(connection);
    return connection;
  }

  /** Closes a connection (4401) that has not authenticated yet: one that never does is not held open. */
  closeUnauthenticated(connection: LiveConnection, reason: string): void {
    if (!connection.closed && !connection.principal) this.refuse(connection, reason);
  }

  close(connection: LiveConnection): void {
    connection.closed = true;
    this.connections.delete(connection);
  }

  private send(connection: LiveConnection, message: ServerMessage): void {
    if (!connection.closed) connection.socket.send(JSON.stringify(message));
  }

  private refuse(connection: LiveConnection, reason: string): void {
    this.send(connection, { type: 'error', code: 'unauthorized', message: reason });
    connection.socket.close(CLOSE_UNAUTHORIZED, reason.slice(0, 120));
    this.close(connection);
  }

  /** Checks the connection's token again when its last check is older than `reauthMs`; false (and closed) when it fails. */
  private async stillAuthorized(connection: LiveConnection): Promise<boolean> {
    if (connection.closed || !connection.token) return false;
    if (this.now() - connection.checkedAt < (this.options.reauthMs ?? 30_000)) return true;
    try {
      connection.principal = await authenticateToken(connection.token, this.now());
      connection.checkedAt = this.now();
      return true;
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      this.refuse(connection, error.message);
      return false;
    }
  }

  /** A message from the client. */
  async message(connection: LiveConnection, text: string): Promise<void> {
    const parsed = parseClientMessage(text);
    if (!parsed.ok) return this.send(connection, parsed.error);
    const m = parsed.message;
    if (m.action === 'auth') {
      if (connection.principal)
        return this.send(connection, {
          type: 'error',
          code: 'validation_error',
          message: 'already authenticated',
        });
      try {
        connection.token = m.token;
        connection.principal = await authenticateToken(m.token, this.now());
        connection.checkedAt = this.now();
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        this.refuse(connection, error.message);
      }
      return;
    }
    if (!connection.principal)
      return this.refuse(connection, 'authenticate first: {"action":"auth","token":…}');
    if (m.action === 'unsubscribe') {
      connection.subscriptions.delete(targetKey(m));
      return this.send(connection, {
        type: 'unsubscribed',
        ...(m.baseId ? { baseId: m.baseId } : { tableId: m.tableId }),
      });
    }
    await this.subscribe(connection, m, m.sinceSeq);
  }

  private async subscribe(
    connection: LiveConnection,
    target: LiveTarget,
    sinceSeq: number | undefined,
  ): Promise<void> {
    const access = await liveAccess(connection.principal as Principal, target);
    if ('error' in access) return this.send(connection, access.error);
    const { baseId, source } = access;
    const subscription: Subscription = {
      baseId,
      source,
      ...(target.tableId ? { tableId: target.tableId } : {}),
      lastSeq: sinceSeq ?? (await headSeqOf(baseId)),
      catchingUp: false,
      again: false,
    };
    connection.subscriptions.set(targetKey(target), subscription);
    this.send(connection, {
      type: 'subscribed',
      baseId,
      ...(target.tableId ? { tableId: target.tableId } : {}),
      seq: subscription.lastSeq,
    });
    if (sinceSeq !== undefined) await this.catchUp(connection, subscription);
  }

  /** Sends what the log holds after the subscription's last entry, until it holds no more. */
  private async catchUp(connection: LiveConnection, subscription: Subscription): Promise<void> {
    if (subscription.catchingUp) {
      subscription.again = true;
      return;
    }
    subscription.catchingUp = true;
    try {
      do {
        subscription.again = false;
        subscription.lastSeq = await replayAfter(
          subscription.baseId,
          this.follows(connection, subscription),
          subscription.lastSeq,
          (entry) => this.send(connection, { type: 'change', entry }),
        );
      } while (subscription.again && !connection.closed);
    } finally {
      subscription.catchingUp = false;
    }
  }

  /** What a subscription sends: with the token's rights as last checked. */
  private follows(connection: LiveConnection, subscription: Subscription) {
    return followedBy(connection.principal as Principal, subscription.source, subscription.tableId);
  }

  private sendEntries(
    connection: LiveConnection,
    subscription: Subscription,
    entries: readonly ChangeEntry[],
  ) {
    const follows = this.follows(connection, subscription);
    for (const entry of entries) {
      if (entry.seq <= subscription.lastSeq) continue;
      subscription.lastSeq = entry.seq;
      if (!follows(entry)) continue;
      const { expiresAt: _, ...shown } = entry as ChangeEntry & { expiresAt?: number };
      this.send(connection, { type: 'change', entry: shown });
    }
  }

  /** Entries just written to a base's log (in `seq` order): sent to every connection that follows them. */
  async publish(baseId: string, entries: readonly ChangeEntry[]): Promise<void> {
    const first = entries[0];
    if (!first) return;
    await Promise.all(
      [...this.connections].map(async (connection) => {
        const following = [...connection.subscriptions.values()].filter((s) => s.baseId === baseId);
        if (!following.length || !(await this.stillAuthorized(connection))) return;
        for (const subscription of following) {
          if (!subscription.catchingUp && first.seq === subscription.lastSeq + 1)
            this.sendEntries(connection, subscription, entries);
          else if (first.seq > subscription.lastSeq) await this.catchUp(connection, subscription);
        }
      }),
    );
  }

  /** A ping to every connection (every 30 s), and the token checked again where due. */
  async ping(): Promise<void> {
    await Promise.all(
      [...this.connections].map(async (connection) => {
        if (connection.principal && !(await this.stillAuthorized(connection))) return;
        this.send(connection, { type: 'ping' });
      }),
    );
  }
}
