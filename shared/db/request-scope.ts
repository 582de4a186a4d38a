import { AsyncLocalStorage } from 'node:async_hooks';
import { withLogContext } from '#shared/core/logger.ts';
import type { Key } from './keys.ts';
import type { Item } from './operations.ts';

/**
 * What one request has done to the database so far, and by when it must have answered. The HTTP
 * chain opens a scope per invocation; the data layer reads it to refuse a write that cannot
 * finish in time and to tell, at the deadline, whether anything may have been written.
 */
export interface RequestScope {
  /** Epoch ms by which the request must have answered (the Lambda's deadline less a margin). */
  deadline: number;
  /** Write calls sent (whatever their outcome). */
  writesSent: number;
  /** Journaled writes (larger than one transaction) started and not yet finished or undone. */
  openWrites: number;
  /** The request's Idempotency-Key claim: a journaled write names it so the repair can free it. */
  idempotencyKey?: Key;
  /**
   * Items this request has read, by `pk|sk`, noted where code further down may reuse them instead
   * of reading again: the foreign tables of a cached schema (read with authentication), and the
   * foreign records a link write read before writing (their titles do not change by it).
   */
  readEarlier: Map<string, Item>;
  /** What this request has read and may reuse (per kind and id: schemas), while it lasts. */
  memo: Map<string, Promise<unknown>>;
  /** Work started by a write that must be done before the request answers (never rejects). */
  afterWrites: Promise<void>[];
  /** Why the request may take long (`noteSlowBecause`): said in its answer should it run out of time. */
  slowBecause?: string;
  /** The request's id: every item it writes is stamped with it (`tx`), so its changes share a txId. */
  txId?: string;
  /** The user the request acts for, once authenticated (`by` on the schema items it writes). */
  actorId?: string;
  /**
   * The time stamped (`at`) on the items of the write being built: taken by the first item, kept
   * until that write is sent, so every item of one write carries the same time.
   */
  writeAt?: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `work` in a fresh scope with a deadline `ms` from now; answers once its `afterWrites` are done. */
export const withRequestScope = <T>(ms: number, work: () => Promise<T>, txId?: string): Promise<T> => {
  const scope: RequestScope = {
    ...(txId === undefined ? {} : { txId }),
    deadline: Date.now() + ms,
    writesSent: 0,
    openWrites: 0,
    readEarlier: new Map(),
    memo: new Map(),
    afterWrites: [],
  };
  return storage.run(scope, async () => {
    try {
      return await work();
    } finally {
      await Promise.all(scope.afterWrites);
    }
  });
};

/**
 * Runs `work` outside any request's scope (background work started by a request, as a worker runs
 * it): not its deadline, nor its log keys (its lines would carry the request's route).
 */
export const outsideRequestScope = <T>(work: () => T): T => storage.exit(() => withLogContext({}, work));

/**
 * Work a write started that must be done before the request answers, while the request goes on
 * (rendering its answer): in a request it is awaited when the request ends; outside one, now.
 * `task` must not reject.
 */
export const beforeAnswer = (task: Promise<void>): Promise<void> => {
  const scope = storage.getStore();
  if (!scope) return task;
  scope.afterWrites.push(task);
  return Promise.resolve();
};

/** The current request's scope, if the code runs inside one (tools and workers run outside). */
export const requestScope = (): RequestScope | undefined => storage.getStore();

/** Milliseconds left before the current request's deadline (Infinity outside a request). */
export const remainingMs = (now = Date.now()): number => {
  const scope = storage.getStore();
  return scope ? scope.deadline - now : Number.POSITIVE_INFINITY;
};

/**
 * Notes why the current request may run long (a listing computed from every record), for the
 * answer at its deadline to say; the first reason noted stands.
 */
export const noteSlowBecause = (reason: string): void => {
  const scope = storage.getStore();
  if (scope) scope.slowBecause ??= reason;
};

/** Notes the user the current request acts for (after authentication). */
export const noteActor = (userId: string): void => {
  const scope = storage.getStore();
  if (scope) scope.actorId = userId;
};

/** The current request's id (`tx` on what it writes) and how many write calls it has sent. */
export const requestWrites = (): { tx?: string; sent: number } => {
  const scope = storage.getStore();
  return { ...(scope?.txId === undefined ? {} : { tx: scope.txId }), sent: scope?.writesSent ?? 0 };
};

/**
 * The stamps of the items the current request writes (data-flow.md 1: how the change log tells
 * requests and actors apart, and when): `tx`, the request's id, `by`, the user it acts for, and
 * `at`, the time of the write (ISO, to the millisecond: the entry's `occurredAt`, where the
 * stream's own time is rounded, to the minute by DynamoDB Local, to the second in the cloud).
 * Every item of one write (one transaction, one batch) gets the same `at`: the time is taken by
 * the first item built and kept until a write is sent, so the entries of one write never tell
 * apart by a millisecond that the stream may hand over in either order.
 * Nothing outside a request (workers, tools): their changes get the stream record's id and time.
 */
export const writeStamps = (): { tx?: string; by?: string; at?: string } => {
  const scope = storage.getStore();
  if (!scope) return {};
  scope.writeAt ??= new Date().toISOString();
  return {
    ...(scope.txId === undefined ? {} : { tx: scope.txId }),
    ...(scope.actorId === undefined ? {} : { by: scope.actorId }),
    at: scope.writeAt,
  };
};

/**
 * The stamps as parts of an update expression, for an item that is updated rather than put whole
 * (a table moved to the trash, restored, purged): `SET` assignments of `tx`, `by` and `at`, and,
 * outside a request, their removal, so an entry never carries an earlier request's id or time.
 */
export const stampUpdate = (): {
  set: string[];
  remove: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
} => {
  const stamps = writeStamps();
  const out = {
    set: [] as string[],
    remove: [] as string[],
    names: {} as Record<string, string>,
    values: {} as Record<string, unknown>,
  };
  for (const name of ['tx', 'by', 'at'] as const) {
    out.names[`#stamp_${name}`] = name;
    const value = stamps[name];
    if (value === undefined) out.remove.push(`#stamp_${name}`);
    else {
      out.set.push(`#stamp_${name} = :stamp_${name}`);
      out.values[`:stamp_${name}`] = value;
    }
  }
  return out;
};

/**
 * An update expression of `set` assignments and `remove` names (each may be empty), with the
 * stamps (`stampUpdate`) added. Pure but for the stamps.
 */
export const withStamps = (
  set: readonly string[],
  remove: readonly string[] = [],
): { update: string; names: Record<string, string>; values: Record<string, unknown> } => {
  const stamps = stampUpdate();
  const sets = [...set, ...stamps.set];
  const removes = [...remove, ...stamps.remove];
  return {
    update: [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    names: stamps.names,
    values: stamps.values,
  };
};

/** Notes that a write call is about to be sent. */
export const noteWriteSent = (): void => {
  const scope = storage.getStore();
  if (!scope) return;
  scope.writesSent++;
  scope.writeAt = undefined;
};

const keyText = (key: Key) => `${key.pk}|${key.sk}`;

/** Notes items this request read, for `readEarlier` (see `RequestScope.readEarlier`). */
export const noteRead = (items: Iterable<readonly [Key, Item | undefined]>): void => {
  const scope = storage.getStore();
  if (!scope) return;
  for (const [key, item] of items) if (item) scope.readEarlier.set(keyText(key), item);
};

/** An item this request read and noted earlier, if it did. */
export const readEarlier = (key: Key): Item | undefined => storage.getStore()?.readEarlier.get(keyText(key));

/**
 * Reads once per request: the first call under `id` runs `read`, later ones in the same request
 * get its answer (a failed read is not kept). Outside a request, reads every time. Only for what
 * the request itself does not change (a table's schema during a record write).
 */
export const oncePerRequest = <T>(id: string, read: () => Promise<T>): Promise<T> => {
  const scope = storage.getStore();
  if (!scope) return read();
  const known = scope.memo.get(id) as Promise<T> | undefined;
  if (known) return known;
  const started = read();
  scope.memo.set(id, started);
  started.catch(() => scope.memo.delete(id));
  return started;
};
