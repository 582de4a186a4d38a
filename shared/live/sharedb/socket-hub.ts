/**
 * The realtime socket's connections (`README.md`; contract web-app §2), transport apart: ShareDB
 * 4.1's protocol over the API's reads, fed by the change log.
 *
 * What a connection knows of each doc it holds (through a query's answer or a subscription) is the
 * version and data it was last sent. When the log says a table changed, every query of its
 * collections is answered again and compared with what was sent: ids that came or went become
 * the query's diff, a changed `extra` is sent, and each held doc whose version moved gets ops that
 * take it from the version it holds to the current one — the change itself as one json0 op, after
 * an empty op for each version that changed nothing the doc shows (a record placed in a view's
 * order) — so a client's version is always exact and never skips. A doc the client asks for from
 * a version (`f`/`s` with `v`, after a gap or a reconnect) is caught up the same way.
 *
 * Rights are the API's: every answer is read with the connection's principal (the membership read
 * again each time), and the credential is checked again every `reauthMs`.
 */
import type { Principal } from '#shared/auth/permission.ts';
import { checkAccess } from '#shared/auth/permission.ts';
import { locateNow } from '#shared/auth/resources.ts';
import { HttpError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';
import {
  type Collection,
  type DocSnapshot,
  isGone,
  parseCollection,
  type QueryAnswer,
  readDocs,
  readQuery,
  SocketError,
  socketErrorOf,
} from './collections.ts';
import { docOp, type Json0Component, queryDiff, sameJson } from './json0.ts';

/** What the hub needs of a socket. */
export interface SocketTransport {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** The json0 type's name, as ShareDB's client expects it in the handshake. */
export const JSON0_TYPE = 'http://sharejs.org/types/JSONv0';

export interface ShareDbHubOptions {
  /** How often a connection's credential is checked again (30 s). */
  reauthMs?: number;
  /** Queries one connection may hold (200). */
  maxQueries?: number;
  /** Docs one connection may subscribe to one by one (2,000). */
  maxDocs?: number;
  /** After a fault of ours, how long until a connection's answers are read again (1 s). */
  retryMs?: number;
  now?: () => number;
  /**
   * Where a client's presence goes to the other connections on its channel; by default to this
   * hub's own connections (the local server holds every socket; the cloud's Lambda holds one).
   */
  presenceTo?: (channel: string, message: Message, from: ShareDbConnection) => void;
  /**
   * What happens after a fault of ours while a connection's collection was answered again; by
   * default it is answered again in `retryMs` (the cloud's fan-out reports it instead).
   */
  onFault?: (connection: ShareDbConnection, collection: string) => void;
}

interface QueryState {
  id: number;
  collection: Collection;
  query: Record<string, unknown>;
  ids: string[];
  extra: unknown;
}

/**
 * A doc as the client holds it: its version, and the data last sent when it is kept (a record's
 * data is not kept in the cloud's stored state: its next op then replaces every property).
 */
interface DocState {
  v: number;
  data?: Record<string, unknown>;
}

export type Message = Record<string, unknown>;

/**
 * A connection's session as it is kept between messages where no process holds it (the cloud):
 * JSON only. `known` holds `[version]` or `[version, data]` by collection and doc.
 */
export interface ConnectionState {
  id: string;
  handshaken: boolean;
  queries: { id: number; c: string; q: Record<string, unknown>; ids: string[]; extra?: unknown }[];
  known: Record<string, Record<string, [number] | [number, Record<string, unknown>]>>;
  subscribed: Record<string, string[]>;
  channels: string[];
}

let connectionCount = 0;

/** One client connection. */
export class ShareDbConnection {
  id = `${Date.now().toString(36)}${(++connectionCount).toString(36)}`;
  handshaken = false;
  closed = false;
  checkedAt: number;
  readonly queries = new Map<number, QueryState>();
  /** What the client holds, by collection and doc id: the version and data last sent. */
  readonly known = new Map<string, Map<string, DocState>>();
  /** Docs subscribed one by one (`s`, `bs`), by collection. */
  readonly subscribed = new Map<string, Set<string>>();
  readonly channels = new Set<string>();
  /** The collections a refresh waiting its turn will answer again, with the docs deleted meanwhile. */
  pendingRefresh: Map<string, Set<string>> | undefined;
  private work: Promise<void> = Promise.resolve();

  constructor(
    readonly transport: SocketTransport,
    public principal: Principal | undefined,
    /** Checks the connection's credential again; undefined when it had none. */
    readonly reauthenticate: (() => Promise<Principal>) | undefined,
    now: number,
  ) {
    this.checkedAt = now;
  }

  /** Runs tasks of this connection one at a time, in order (messages and publishes alike). */
  run(task: () => Promise<void>): Promise<void> {
    const next = this.work.then(task).catch((error: unknown) => {
      logger.error('socket task failed', { error: error as Error });
    });
    this.work = next;
    return next;
  }

  knownIn(collection: string): Map<string, DocState> {
    let docs = this.known.get(collection);
    if (!docs) {
      docs = new Map();
      this.known.set(collection, docs);
    }
    return docs;
  }

  subscribedCount(): number {
    let n = 0;
    for (const ids of this.subscribed.values()) n += ids.size;
    return n;
  }

  /** The session as JSON, to keep between messages; records' data only when `withRecordData`. */
  toState(withRecordData = false): ConnectionState {
    const known: ConnectionState['known'] = {};
    for (const [name, docs] of this.known) {
      if (!docs.size) continue;
      const keep = withRecordData || !name.startsWith('rec_');
      known[name] = Object.fromEntries(
        [...docs].map(([id, d]) => [id, keep && d.data ? [d.v, d.data] : [d.v]]),
      ) as ConnectionState['known'][string];
    }
    return {
      id: this.id,
      handshaken: this.handshaken,
      queries: [...this.queries.values()].map((q) => ({
        id: q.id,
        c: q.collection.name,
        q: q.query,
        ids: q.ids,
        ...(q.extra === undefined ? {} : { extra: q.extra }),
      })),
      known,
      subscribed: Object.fromEntries(
        [...this.subscribed].filter(([, ids]) => ids.size).map(([name, ids]) => [name, [...ids]]),
      ),
      channels: [...this.channels],
    };
  }

  /** Takes up a kept session (a collection that no longer parses is dropped). */
  restore(state: ConnectionState): void {
    this.id = state.id;
    this.handshaken = state.handshaken;
    for (const q of state.queries) {
      const collection = parseCollection(q.c);
      if (collection)
        this.queries.set(q.id, { id: q.id, collection, query: q.q, ids: q.ids, extra: q.extra });
    }
    for (const [name, docs] of Object.entries(state.known))
      this.known.set(
        name,
        new Map(Object.entries(docs).map(([id, [v, data]]) => [id, data ? { v, data } : { v }])),
      );
    for (const [name, ids] of Object.entries(state.subscribed)) this.subscribed.set(name, new Set(ids));
    for (const ch of state.channels) this.channels.add(ch);
  }

  /**
   * What the session follows: each collection it holds docs or queries of, and each presence
   * channel (the cloud's fan-out finds the connections a change concerns by these).
   */
  topics(): string[] {
    const topics = new Set<string>(this.channels);
    for (const [name, docs] of this.known) if (docs.size) topics.add(name);
    for (const [name, ids] of this.subscribed) if (ids.size) topics.add(name);
    for (const q of this.queries.values()) topics.add(q.collection.name);
    return [...topics];
  }

  /** Resolves once the work queued so far is done. */
  settled(): Promise<void> {
    return this.run(async () => undefined);
  }
}

const errorBody = (error: SocketError) => ({ code: error.code, message: error.message });

/** A refusal the caller is to hear (no right, bad input), not a fault of ours (5xx) to retry. */
const isRefusal = (error: unknown): boolean =>
  error instanceof SocketError || (error instanceof HttpError && error.status < 500);

/** The record cells' key in a record doc: ops name cells as `['fields', fieldId]`. */
const cellsKeyOf = (collection: Collection) => (collection.kind === 'rec' ? 'fields' : undefined);

/** The action triggers of a table's changes (Teable's `action-trigger.listener.ts`). */
const TABLE_TRIGGERS: Partial<Record<ChangeEntry['type'], string>> = {
  'record.created': 'addRecord',
  'record.updated': 'setRecord',
  'record.deleted': 'deleteRecord',
  'field.created': 'addField',
  'field.updated': 'setField',
  'field.deleted': 'setField',
};

/** The action triggers of a view's change, by what changed in it. */
const viewTriggers = (entry: ChangeEntry): string[] => {
  if (entry.type !== 'view.updated') return [];
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const changed = (key: string) => !sameJson(before[key], after[key]);
  const out: string[] = [];
  if (changed('filter')) out.push('applyViewFilter');
  if (changed('group')) out.push('applyViewGroup');
  if (changed('columnMeta')) {
    const meta = (v: unknown) => (v ?? {}) as Record<string, { statisticFunc?: unknown; hidden?: unknown }>;
    const b = meta(before.columnMeta);
    const a = meta(after.columnMeta);
    const ids = new Set([...Object.keys(b), ...Object.keys(a)]);
    if ([...ids].some((id) => !sameJson(b[id]?.statisticFunc, a[id]?.statisticFunc)))
      out.push('applyViewStatisticFunc');
    if ([...ids].some((id) => !sameJson(b[id]?.hidden, a[id]?.hidden))) out.push('showViewField');
  }
  return out;
};

/** Presence channels a client may subscribe to, and the id whose rights decide. */
const CHANNEL =
  /^__(action_trigger|col_user|col_cell_user|notification_user|base_permission_update)_((tbl|viw|usr|bse)[0-9A-Za-z]+)$/;

export class ShareDbHub {
  private readonly connections = new Set<ShareDbConnection>();
  /** Counts up for every op's `seq` and every presence's `pv` the hub sends (both only need to grow). */
  private presenceVersion = 0;
  /**
   * Query answers read since the last change was published, by user, collection and query: one
   * read serves every connection of the same user asking the same query (tabs, clients), and a
   * new change starts a new map, so no answer older than the change is handed out.
   */
  private answers = new Map<string, Promise<QueryAnswer>>();

  constructor(private readonly options: ShareDbHubOptions = {}) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  get size(): number {
    return this.connections.size;
  }

  /** A new connection, with the principal its credential gave (none: every read answers `unauthorized`). */
  adopt(
    transport: SocketTransport,
    principal: Principal | undefined,
    reauthenticate?: () => Promise<Principal>,
  ): ShareDbConnection {
    const connection = new ShareDbConnection(transport, principal, reauthenticate, this.now());
    this.connections.add(connection);
    return connection;
  }

  close(connection: ShareDbConnection): void {
    connection.closed = true;
    this.connections.delete(connection);
  }

  private send(connection: ShareDbConnection, message: Message): void {
    if (!connection.closed) connection.transport.send(JSON.stringify(message));
  }

  /** A message from the client, handled after the connection's earlier work. */
  message(connection: ShareDbConnection, text: string): Promise<void> {
    return connection.run(() => this.handle(connection, text));
  }

  private async handle(connection: ShareDbConnection, text: string): Promise<void> {
    let m: Message;
    try {
      const parsed: unknown = JSON.parse(text);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      m = parsed as Message;
    } catch {
      return this.send(connection, {
        error: { code: 'ERR_MESSAGE_BADLY_FORMED', message: 'A message is one JSON object' },
      });
    }
    const reply = (body: Message) => this.send(connection, body);
    const fail = (error: unknown) => reply({ ...m, error: errorBody(socketErrorOf(error)) });
    try {
      switch (m.a) {
        case 'hs':
          connection.handshaken = true;
          return reply({ a: 'hs', protocol: 1, protocolMinor: 1, id: connection.id, type: JSON0_TYPE });
        case 'pp':
          return reply({ a: 'pp' });
        case 'qs':
        case 'qf':
          return await this.query(connection, m);
        case 'qu':
          this.unsubscribeQuery(connection, Number(m.id));
          return reply({ a: 'qu', id: m.id });
        case 'f':
        case 's':
        case 'u':
          return await this.doc(connection, m);
        case 'bf':
        case 'bs':
        case 'bu':
          return await this.bulk(connection, m);
        case 'op':
          throw new SocketError(
            'forbidden',
            'This socket takes no writes: change records, fields and views through the REST API',
          );
        case 'ps':
          await this.checkChannel(connection, m.ch);
          connection.channels.add(m.ch as string);
          return reply({ a: 'ps', ch: m.ch, seq: m.seq });
        case 'pu':
          connection.channels.delete(String(m.ch));
          return reply({ a: 'pu', ch: m.ch, seq: m.seq });
        case 'p':
          return await this.presence(connection, m);
        case 'pr':
          return;
        default:
          throw new SocketError('ERR_MESSAGE_BADLY_FORMED', `Unknown action ${JSON.stringify(m.a)}`);
      }
    } catch (error) {
      if (error instanceof SocketError || error instanceof HttpError) return fail(error);
      // every request is answered: a fault of ours (the database unreachable…) as an error to retry
      logger.error('socket request failed', { action: String(m.a), error: error as Error });
      return reply({
        ...m,
        error: { code: 'internal_server_error', message: 'The request failed on our side; retry' },
      });
    }
  }

  /** The principal, checked again when due; a `SocketError('unauthorized')` without one. */
  private async principalOf(connection: ShareDbConnection): Promise<Principal> {
    if (connection.principal && connection.reauthenticate) {
      if (this.now() - connection.checkedAt >= (this.options.reauthMs ?? 30_000)) {
        try {
          connection.principal = await connection.reauthenticate();
          connection.checkedAt = this.now();
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          this.signOut(connection);
        }
      }
    }
    if (!connection.principal) throw new SocketError('unauthorized', 'Sign in first');
    return connection.principal;
  }

  /** A connection whose credential is no longer good: its queries fail `unauthorized` and it holds nothing. */
  signOut(connection: ShareDbConnection): void {
    connection.principal = undefined;
    for (const q of connection.queries.values())
      this.send(connection, { a: 'q', id: q.id, error: { code: 'unauthorized', message: 'Sign in again' } });
    connection.queries.clear();
    connection.known.clear();
    connection.subscribed.clear();
  }

  private collectionOf(name: unknown): Collection {
    const collection = parseCollection(name);
    if (!collection)
      throw new SocketError(
        'ERR_MESSAGE_BADLY_FORMED',
        'A collection is rec_<tableId>, fld_<tableId>, viw_<tableId> or tbl_<baseId>',
      );
    return collection;
  }

  private async query(connection: ShareDbConnection, m: Message): Promise<void> {
    const id = m.id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id))
      throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'A query needs a numeric id');
    const collection = this.collectionOf(m.c);
    const query = m.q ?? {};
    if (typeof query !== 'object' || Array.isArray(query))
      throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'A query is an object');
    const principal = await this.principalOf(connection);
    const subscribe = m.a === 'qs';
    if (
      subscribe &&
      !connection.queries.has(id) &&
      connection.queries.size >= (this.options.maxQueries ?? 200)
    )
      throw new SocketError(
        'too_many_queries',
        `At most ${this.options.maxQueries ?? 200} queries a connection`,
      );
    const answer = await readQuery(principal, collection, query as Record<string, unknown>);
    const known = connection.knownIn(collection.name);
    if (subscribe) {
      for (const doc of answer.docs) this.remember(known, doc);
      connection.queries.set(id, {
        id,
        collection,
        query: query as Record<string, unknown>,
        ids: answer.docs.map((d) => d.id),
        extra: answer.extra,
      });
    }
    this.send(connection, {
      a: m.a,
      id,
      data: answer.docs.map((d) => ({ d: d.id, v: d.v, data: d.data })),
      ...(answer.extra === undefined ? {} : { extra: answer.extra }),
    });
    // `r`: a resubscribe names the docs it holds and their versions: catch each up
    if (subscribe && Array.isArray(m.r))
      for (const held of m.r as unknown[]) {
        if (!Array.isArray(held) || typeof held[0] !== 'string' || typeof held[1] !== 'number') continue;
        const doc = answer.docs.find((d) => d.id === held[0]);
        if (doc) this.catchUp(connection, collection, doc, held[1]);
      }
  }

  private unsubscribeQuery(connection: ShareDbConnection, id: number): void {
    const q = connection.queries.get(id);
    if (!q) return;
    connection.queries.delete(id);
    this.forgetUnheld(connection, q.collection.name);
  }

  /** Forgets the docs of a collection no query answers and no subscription holds any more. */
  private forgetUnheld(connection: ShareDbConnection, collection: string): void {
    const known = connection.known.get(collection);
    if (!known) return;
    const held = new Set(connection.subscribed.get(collection));
    for (const q of connection.queries.values())
      if (q.collection.name === collection) for (const id of q.ids) held.add(id);
    for (const id of [...known.keys()]) if (!held.has(id)) known.delete(id);
  }

  private remember(known: Map<string, DocState>, doc: DocSnapshot): void {
    const had = known.get(doc.id);
    if (!had || doc.v >= had.v) known.set(doc.id, { v: doc.v, data: doc.data });
  }

  /**
   * Sends the ops that take a doc the client holds at `fromV` to `current`: an empty op for each
   * version that changed nothing it shows, then the change (from what it was last sent, or every
   * property when that is not known). Nothing when the client is as new or newer.
   */
  private catchUp(
    connection: ShareDbConnection,
    collection: Collection,
    current: DocSnapshot,
    fromV: number,
  ): void {
    const known = connection.knownIn(collection.name);
    const had = known.get(current.id);
    if (current.v <= fromV) return;
    const base = had?.v === fromV ? had.data : undefined;
    const change: Json0Component[] = base
      ? docOp(base, current.data, cellsKeyOf(collection))
      : Object.entries(current.data).map(([key, value]) => ({ p: [key], oi: value }));
    for (let v = fromV; v < current.v; v++)
      this.send(connection, {
        a: 'op',
        c: collection.name,
        d: current.id,
        v,
        src: '',
        seq: ++this.presenceVersion,
        op: v === current.v - 1 ? change : [],
      });
    known.set(current.id, { v: current.v, data: current.data });
  }

  private sendDelete(connection: ShareDbConnection, collection: string, id: string): void {
    const known = connection.known.get(collection);
    const had = known?.get(id);
    if (!had) return;
    known?.delete(id);
    this.send(connection, {
      a: 'op',
      c: collection,
      d: id,
      v: had.v,
      src: '',
      seq: ++this.presenceVersion,
      del: true,
    });
  }

  private async doc(connection: ShareDbConnection, m: Message): Promise<void> {
    const collection = this.collectionOf(m.c);
    const id = m.d;
    if (typeof id !== 'string' || !id) throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'A doc needs an id');
    if (m.a === 'u') {
      connection.subscribed.get(collection.name)?.delete(id);
      this.forgetUnheld(connection, collection.name);
      return this.send(connection, { a: 'u', c: collection.name, d: id });
    }
    const principal = await this.principalOf(connection);
    if (m.a === 's') this.subscribe(connection, collection.name, [id]);
    const current = (await readDocs(principal, collection, [id])).get(id);
    const data = this.answerDoc(connection, collection, id, current, m.v);
    this.send(connection, { a: m.a, c: collection.name, d: id, ...(data ? { data } : {}) });
  }

  /** A doc's answer: its snapshot (asked without a version), or, asked from one, the ops after it and nothing. */
  private answerDoc(
    connection: ShareDbConnection,
    collection: Collection,
    id: string,
    current: DocSnapshot | undefined,
    from: unknown,
  ): { v: number; data?: unknown; type?: null } | undefined {
    if (typeof from === 'number') {
      if (current) this.catchUp(connection, collection, current, from);
      else this.sendDelete(connection, collection.name, id);
      return undefined;
    }
    if (!current) return { v: 0, type: null };
    this.remember(connection.knownIn(collection.name), current);
    return { v: current.v, data: current.data };
  }

  private subscribe(connection: ShareDbConnection, collection: string, ids: readonly string[]): void {
    const max = this.options.maxDocs ?? 2000;
    const mine = connection.subscribed.get(collection) ?? new Set<string>();
    const added = ids.filter((id) => !mine.has(id)).length;
    if (connection.subscribedCount() + added > max)
      throw new SocketError('too_many_docs', `At most ${max} docs subscribed on a connection`);
    for (const id of ids) mine.add(id);
    connection.subscribed.set(collection, mine);
  }

  private async bulk(connection: ShareDbConnection, m: Message): Promise<void> {
    const collection = this.collectionOf(m.c);
    const b = m.b;
    const versions =
      Array.isArray(b) || !b || typeof b !== 'object' ? undefined : (b as Record<string, unknown>);
    const ids = Array.isArray(b) ? b : versions ? Object.keys(versions) : undefined;
    if (!ids?.every((id): id is string => typeof id === 'string' && id !== ''))
      throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'A bulk request names its docs in `b`');
    if (m.a === 'bu') {
      for (const id of ids) connection.subscribed.get(collection.name)?.delete(id);
      this.forgetUnheld(connection, collection.name);
      return this.send(connection, { a: 'bu', c: collection.name, b });
    }
    const principal = await this.principalOf(connection);
    if (m.a === 'bs') this.subscribe(connection, collection.name, ids);
    const current = await readDocs(principal, collection, ids);
    if (versions) {
      for (const id of ids) this.answerDoc(connection, collection, id, current.get(id), versions[id]);
      return this.send(connection, { a: m.a, c: collection.name, b });
    }
    const data: Record<string, unknown> = {};
    for (const id of ids) data[id] = this.answerDoc(connection, collection, id, current.get(id), undefined);
    this.send(connection, { a: m.a, c: collection.name, data });
  }

  /** Refuses a presence channel the user may not follow (another user's notifications, a table they may not read). */
  private async checkChannel(connection: ShareDbConnection, ch: unknown): Promise<void> {
    const match = typeof ch === 'string' ? CHANNEL.exec(ch) : null;
    if (!match) throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'Unknown presence channel');
    const principal = await this.principalOf(connection);
    const id = match[2] as string;
    const kind = match[3];
    if (kind === 'usr' && id !== principal.userId)
      throw new SocketError('restricted_resource', "Another user's notifications");
    if (kind === 'tbl' || kind === 'bse') {
      const located = await locateNow({ kind: kind === 'tbl' ? 'table' : 'base', id }, principal.userId);
      checkAccess({ principal, resource: located, role: located.role, actions: ['table|read'] });
    }
  }

  /** A client's presence: to the other connections on its channel, and back to it as the acknowledgement. */
  private async presence(connection: ShareDbConnection, m: Message): Promise<void> {
    if (typeof m.ch !== 'string' || !connection.channels.has(m.ch))
      throw new SocketError('ERR_MESSAGE_BADLY_FORMED', 'Subscribe to the channel first');
    const out = { a: 'p', ch: m.ch, id: m.id, p: m.p ?? null, pv: m.pv, src: connection.id };
    if (this.options.presenceTo) this.options.presenceTo(m.ch, out, connection);
    else
      for (const other of this.connections)
        if (other !== connection && other.channels.has(m.ch)) this.send(other, out);
    this.send(connection, { ...m, src: connection.id });
  }

  private trigger(channel: string, id: string, actions: readonly string[]): void {
    if (!actions.length) return;
    const pv = ++this.presenceVersion;
    for (const connection of this.connections)
      if (connection.channels.has(channel))
        this.send(connection, { a: 'p', ch: channel, id, p: actions, pv, src: '' });
  }

  /** Entries just written to a base's log: every connection holding what they changed hears of it. */
  async publish(baseId: string, entries: readonly ChangeEntry[]): Promise<void> {
    const { collections, triggers } = changesOf(baseId, entries);
    // answers read before these changes are of no more use
    this.answers = new Map();
    await Promise.all(
      [...this.connections].map((connection) =>
        this.scheduleRefresh(
          connection,
          new Map([...collections].map(([name, ids]) => [name, new Set(ids)])),
        ),
      ),
    );
    for (const { channel, id, actions } of triggers) this.trigger(channel, id, actions);
  }

  /** Answers a connection's queries of a collection again and sends what changed for it. */
  private async refresh(
    connection: ShareDbConnection,
    principal: Principal,
    collection: Collection,
    deleted: ReadonlySet<string> | undefined,
  ): Promise<void> {
    const memo = this.answers;
    const known = connection.knownIn(collection.name);
    for (const id of deleted ?? []) this.sendDelete(connection, collection.name, id);
    const fresh = new Map<string, DocSnapshot>();
    for (const q of [...connection.queries.values()].filter((x) => x.collection.name === collection.name)) {
      const key = `${principal.userId}\u0000${collection.name}\u0000${JSON.stringify(q.query)}`;
      let answer: QueryAnswer;
      try {
        if (!memo.has(key)) memo.set(key, readQuery(principal, collection, q.query));
        answer = await (memo.get(key) as Promise<QueryAnswer>);
      } catch (error) {
        if (isGone(error)) answer = { docs: [], extra: q.extra };
        else if (isRefusal(error)) {
          const refused = socketErrorOf(error);
          connection.queries.delete(q.id);
          this.send(connection, { a: 'q', id: q.id, error: errorBody(refused) });
          continue;
        } else {
          // a fault of ours (the database slow or unreachable): the query stays, answered again soon
          logger.warn('socket query not answered again; retrying', { error: error as Error });
          this.retryLater(connection, collection.name);
          continue;
        }
      }
      for (const doc of answer.docs) fresh.set(doc.id, doc);
      if (!sameJson(q.extra, answer.extra)) {
        q.extra = answer.extra;
        this.send(connection, { a: 'q', id: q.id, extra: answer.extra });
      }
      const ids = answer.docs.map((d) => d.id);
      const was = new Set(q.ids);
      for (const doc of answer.docs) if (was.has(doc.id)) this.catchUpKnown(connection, collection, doc);
      const diff = queryDiff(q.ids, ids, (id) => {
        const doc = fresh.get(id) as DocSnapshot;
        this.remember(known, doc);
        return { d: id, v: doc.v, data: doc.data };
      });
      q.ids = ids;
      if (diff.length) this.send(connection, { a: 'q', id: q.id, diff });
    }
    // docs subscribed one by one that no answer above covered
    const rest = [...(connection.subscribed.get(collection.name) ?? [])].filter(
      (id) => !fresh.has(id) && known.has(id),
    );
    if (rest.length) {
      try {
        const current = await readDocs(principal, collection, rest);
        for (const id of rest) {
          const doc = current.get(id);
          if (doc) this.catchUpKnown(connection, collection, doc);
          else this.sendDelete(connection, collection.name, id);
        }
      } catch (error) {
        if (isGone(error) || isRefusal(error))
          for (const id of rest) this.sendDelete(connection, collection.name, id);
        else {
          logger.warn('socket docs not read again; retrying', { error: error as Error });
          this.retryLater(connection, collection.name);
        }
      }
    }
    this.forgetUnheld(connection, collection.name);
  }

  /**
   * Queues the answering again of a connection's collections (with the docs deleted meanwhile,
   * by collection) behind its earlier work; a refresh already waiting its turn takes these too, so
   * one waits at most. Collections the connection holds nothing of are left alone.
   */
  private scheduleRefresh(connection: ShareDbConnection, changed: Map<string, Set<string>>): Promise<void> {
    const waiting = connection.pendingRefresh;
    if (waiting) {
      for (const [name, deleted] of changed) {
        const ids = waiting.get(name) ?? new Set<string>();
        for (const id of deleted) ids.add(id);
        waiting.set(name, ids);
      }
      return Promise.resolve();
    }
    connection.pendingRefresh = changed;
    return connection.run(async () => {
      connection.pendingRefresh = undefined;
      const mine = [...changed.keys()].filter(
        (c) =>
          connection.known.get(c)?.size ||
          [...connection.queries.values()].some((q) => q.collection.name === c),
      );
      if (!mine.length || !connection.principal) return;
      const principal = await this.principalOf(connection).catch(() => undefined);
      if (!principal) return;
      for (const name of mine)
        await this.refresh(connection, principal, parseCollection(name) as Collection, changed.get(name));
    });
  }

  /** Answers a connection's collection again in a second (after a fault of ours), as a publish would. */
  private retryLater(connection: ShareDbConnection, collection: string): void {
    if (this.options.onFault) {
      this.options.onFault(connection, collection);
      return;
    }
    const timer = setTimeout(() => {
      if (!connection.closed)
        void this.scheduleRefresh(connection, new Map([[collection, new Set<string>()]]));
    }, this.options.retryMs ?? 1000);
    timer.unref?.();
  }

  /** Ops for a doc the client holds, from the version it was last sent. */
  private catchUpKnown(connection: ShareDbConnection, collection: Collection, doc: DocSnapshot): void {
    const had = connection.knownIn(collection.name).get(doc.id);
    if (had) this.catchUp(connection, collection, doc, had.v);
    else this.remember(connection.knownIn(collection.name), doc);
  }
}

/** The action-trigger presence a batch of changes sends: on which channel, for which id, which actions. */
export interface Trigger {
  channel: string;
  id: string;
  actions: string[];
}

/**
 * What a base's new log entries concern: each collection whose docs or queries may have changed
 * (with the docs deleted from it), and the action triggers to send. Pure.
 */
export const changesOf = (
  baseId: string,
  entries: readonly ChangeEntry[],
): { collections: Map<string, Set<string>>; triggers: Trigger[] } => {
  const recordTables = new Set<string>();
  const schemaTables = new Set<string>();
  const deleted = new Map<string, Set<string>>();
  const tableActions = new Map<string, Set<string>>();
  const viewActions = new Map<string, Set<string>>();
  const addTo = <K>(map: Map<K, Set<string>>, key: K, value: string) =>
    map.set(key, (map.get(key) ?? new Set()).add(value));
  for (const e of entries) {
    const kind = e.type.split('.')[0];
    if (kind === 'record') recordTables.add(e.tableId);
    else schemaTables.add(e.tableId);
    const trigger = TABLE_TRIGGERS[e.type];
    if (trigger) addTo(tableActions, e.tableId, trigger);
    if (e.viewId) for (const t of viewTriggers(e)) addTo(viewActions, e.viewId, t);
    if (e.type === 'record.deleted' && e.recordId) addTo(deleted, `rec_${e.tableId}`, e.recordId);
    if (e.type === 'field.deleted' && e.fieldId) addTo(deleted, `fld_${e.tableId}`, e.fieldId);
    if (e.type === 'view.deleted' && e.viewId) addTo(deleted, `viw_${e.tableId}`, e.viewId);
    if (e.type === 'table.deleted') addTo(deleted, `tbl_${baseId}`, e.tableId);
  }
  const names = new Set<string>();
  for (const t of new Set([...recordTables, ...schemaTables])) names.add(`rec_${t}`);
  for (const t of schemaTables) {
    names.add(`fld_${t}`);
    names.add(`viw_${t}`);
  }
  if (schemaTables.size) names.add(`tbl_${baseId}`);
  const triggers = [...tableActions, ...viewActions].map(([id, actions]) => ({
    channel: `__action_trigger_${id}`,
    id,
    actions: [...actions],
  }));
  return {
    collections: new Map([...names].map((name) => [name, deleted.get(name) ?? new Set<string>()])),
    triggers,
  };
};
