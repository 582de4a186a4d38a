import {
  ConflictError,
  type HttpError,
  ServiceUnavailableError,
  WriteInterruptedError,
} from '#shared/core/errors.ts';
import { newId } from '#shared/ids.ts';
import {
  applyOne,
  bumpDataVersions,
  deleteItems,
  type Item,
  indexMovesOf,
  MAX_TRANSACTION_ITEMS,
  putItem,
  queryAll,
  type TransactOp,
  transact,
  type UpdateSpec,
  updateItem,
  versionOpOf,
  writeItems,
} from './client.ts';
import { NOT_EXISTS } from './conditions.ts';
import { tablesTouched, tablesWritten } from './data-versions.ts';
import { type Key, keyOfItem, keys } from './keys.ts';
import { remainingMs, requestScope } from './request-scope.ts';

/** One operation of a write and the operation that undoes it once applied. */
export interface Step {
  op: TransactOp;
  /** Puts the previous image back or deletes what `op` created; null when nothing to undo. */
  undo: TransactOp | null;
  /**
   * How many of the steps right after this one belong to it: they land in the same transaction,
   * and their undo is applied with this one's in one transaction, all or nothing (a record and
   * its index entries: when a newer edit of the record skips its undo, its entries stay too).
   */
  joined?: number;
}

/** What a journal keeps per step or joined group: one undo operation, or a group applied atomically. */
type Undo = TransactOp | TransactOp[];

/** A journal item must stay well under DynamoDB's 400 KB item limit. */
const JOURNAL_BYTES = 300_000;
/**
 * Journals without a head (written before heads existed) are undone once this old, at the next
 * large write in their scope.
 */
export const JOURNAL_STALE_MS = 15 * 60_000;
/** How long a writer's lease lasts without a heartbeat; then the repair worker may take over. */
export const LEASE_MS = 20_000;
/** How often a writer renews its lease. */
const HEARTBEAT_MS = 5_000;

/** How often the repair worker runs (the stack's schedule; the local server runs it twice as often). */
export { REPAIR_EVERY_SECONDS } from './repair-schedule.ts';
/**
 * The longest an interrupted write stays before the repair worker (every minute) has finished or
 * undone it: the lease, the schedule and the repair itself. Callers are told to retry after it.
 */
export const REPAIR_WITHIN_SECONDS = 120;
/** Time kept back before the request's deadline for the answer and the last calls in flight. */
const MARGIN_MS = 1_000;

const sizeOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/**
 * Splits steps into chunks that fit one transaction with their journal item and the check of
 * the writer's lease. Pure.
 */
export const chunkSteps = (steps: readonly Step[]): Step[][] => {
  const chunks: Step[][] = [];
  let chunk: Step[] = [];
  let bytes = 0;
  // A step with its joined steps goes whole into one chunk.
  for (const group of joinedGroups(steps)) {
    const size = group.reduce((n, step) => n + sizeOf(step.undo), 0);
    if (
      chunk.length > 0 &&
      (chunk.length + group.length + 1 >= MAX_TRANSACTION_ITEMS || bytes + size > JOURNAL_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(...group);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
};

/** The steps as groups: each step with the steps joined to it. Pure. */
export const joinedGroups = (steps: readonly Step[]): Step[][] => {
  const groups: Step[][] = [];
  for (let i = 0; i < steps.length; ) {
    const group = steps.slice(i, i + 1 + ((steps[i] as Step).joined ?? 0));
    groups.push(group);
    i += group.length;
  }
  return groups;
};

/**
 * The undo a journal keeps for a chunk: each step's guarded undo, and for a step with joined
 * steps one group (its guarded undo first, then theirs) applied as one transaction. Pure.
 */
export const undoOf = (chunk: readonly Step[]): Undo[] => {
  const undo: Undo[] = [];
  for (let i = 0; i < chunk.length; i++) {
    const step = chunk[i] as Step;
    const joined = chunk.slice(i + 1, i + 1 + (step.joined ?? 0));
    if (joined.length === 0) {
      const one = guardedUndo(step);
      if (one) undo.push(one);
      continue;
    }
    const group = [guardedUndo(step), ...joined.map((j) => j.undo)].filter((u) => u !== null);
    if (group.length) undo.push(group);
    i += joined.length;
  }
  return undo;
};

/**
 * The undo of a step, guarded so it never overwrites a newer edit: an item the step changed (a
 * put with a `version` over an earlier image) gets its earlier image back only while it still
 * holds the version the step wrote (a versioned update bumps it by one); an item the step deleted is put back only while nobody has
 * written it since. Decided: an item the step created is deleted whatever happened to it since,
 * with its index entries: the write it belonged to never happened, and a record half-kept would
 * leave its indexes inconsistent. Items without a version are undone as they are. Pure.
 */
export const guardedUndo = (step: Step): TransactOp | null => {
  const { op, undo } = step;
  if (!undo || !('put' in undo)) return undo;
  // The undo is a write of its own: the earlier image at the version after the step's, so a
  // version never goes back (an ETag never names two states; a realtime client that saw the
  // step takes the undo as the next change, `live/sharedb`).
  const guard = (v: number): TransactOp => ({
    ...undo,
    put: { ...undo.put, version: v + 1 },
    condition: '#v = :v',
    names: { '#v': 'version' },
    values: { ':v': v },
  });
  if ('put' in op && typeof op.put.version === 'number' && typeof undo.put.version === 'number')
    return guard(op.put.version);
  // A versioned update (a record's cells) bumps the version by exactly one.
  if ('update' in op && typeof undo.put.version === 'number') return guard(undo.put.version + 1);
  // put back after its delete, which counted as a version (the realtime delete op's)
  if ('delete' in op)
    return {
      ...undo,
      put: typeof undo.put.version === 'number' ? { ...undo.put, version: undo.put.version + 2 } : undo.put,
      condition: NOT_EXISTS,
    };
  return undo;
};

/** Test seam: throws before a unit is sent, to prove compensation (a fault DynamoDB Local cannot stage). */
let faultBeforeChunk: ((index: number) => void) | undefined;
export const injectChunkFault = (fault: ((index: number) => void) | undefined) => {
  faultBeforeChunk = fault;
};

const journalItem = (
  scope: string,
  txnId: string,
  index: number,
  undo: readonly (Undo | null)[],
  now: number,
): Item => ({
  ...keys.journal(scope, txnId, index),
  type: 'journal',
  txnId,
  chunk: index,
  createdAt: now,
  undo: undo.filter((u) => u !== null),
  expiresAt: Math.floor(now / 1000) + 7 * 86_400,
});

/** A journal item as the repair reads it. */
interface Journal {
  key: Key;
  txnId: string;
  chunk: number;
  createdAt: number;
  undo: Undo[];
  fence: boolean;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const journalOf = (item: Item): Journal => ({
  key: keyOfItem(item),
  txnId: str(item.txnId),
  chunk: num(item.chunk),
  createdAt: num(item.createdAt),
  undo: Array.isArray(item.undo) ? (item.undo as Undo[]) : [],
  fence: item.fence === true,
});

/** A write's head item as the repair reads it. */
interface Head {
  key: Key;
  scope: string;
  txnId: string;
  state: string;
  leaseUntil: number;
  chunks: number;
  idempotencyKey?: Key;
}

const headOf = (item: Item): Head => ({
  key: keyOfItem(item),
  scope: str(item.scope),
  txnId: str(item.txnId),
  state: str(item.state),
  leaseUntil: num(item.leaseUntil),
  chunks: num(item.chunks),
  ...(typeof item.idempotencyKey === 'object' && item.idempotencyKey !== null
    ? { idempotencyKey: keyOfItem(item.idempotencyKey as { pk?: unknown; sk?: unknown }) }
    : {}),
});

/** True for a put or delete without a condition: it can go in a batch write instead of a transaction. */
const isPlain = (op: TransactOp): op is { put: Item } | { delete: Key } =>
  ('put' in op || 'delete' in op) && !('condition' in op && op.condition);

/**
 * Runs tasks at most `limit` at a time; the first failure is thrown once all started ones end.
 * Ours, not p-map: after a failure no new task starts and every started one is awaited, so the
 * undo that follows sees each write settled (p-map either stops awaiting or starts the rest).
 */
const pool = async (tasks: (() => Promise<void>)[], limit: number) => {
  const queue = [...tasks];
  let failure: unknown;
  const worker = async () => {
    for (let task = queue.shift(); task && failure === undefined; task = queue.shift()) {
      try {
        await task();
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  if (failure !== undefined) throw failure;
};

/** A guarded undo whose condition fails met a newer edit: it is skipped, not an error. */
class Skipped extends ConflictError {
  constructor() {
    super('a newer edit won');
  }
}

/**
 * Applies undo operations: unguarded plain ones batched, guarded ones one by one (16 at a time),
 * skipping any whose guard fails (a newer edit stays). Answers how many were skipped.
 */
const applyUndo = async (undo: readonly Undo[]): Promise<number> => {
  const single = undo.filter((u): u is TransactOp => !Array.isArray(u));
  await writeItems(single.filter(isPlain));
  // A batch write carries no data version: move it now, after the batch (the guarded undo below
  // goes through `applyOne` and `transact`, which move it themselves).
  await bumpDataVersions(tablesWritten(single.filter(isPlain)));
  let skipped = 0;
  const apply = (run: () => Promise<unknown>) => async () => {
    try {
      await run();
    } catch (error) {
      if (!(error instanceof Skipped)) throw error;
      skipped++;
    }
  };
  await pool(
    [
      ...single.filter((u) => !isPlain(u)).map((op) => apply(() => applyOne(op, () => new Skipped()))),
      // A group: all of it or, when any guard fails (a newer edit), none of it.
      ...undo
        .filter((u): u is TransactOp[] => Array.isArray(u))
        .map((group) => apply(() => transact(group, () => new Skipped()))),
    ],
    16,
  );
  return skipped;
};

/** How many batches and transactions of one large write run at the same time. */
const PARALLEL_UNITS = 8;
/** Plain writes per unit (four BatchWriteItem calls). */
const PLAIN_UNIT = 100;

/**
 * What one round of units took lately in this process (an exponential average), to judge before
 * and during a large write whether it can still finish, or be undone, before the deadline.
 */
let roundMs = 300;
const observeRound = (ms: number) => {
  roundMs = Math.max(50, roundMs * 0.7 + ms * 0.3);
};
/** Test seam: sets the time a round of units is expected to take. */
export const assumeRoundMs = (ms: number) => {
  roundMs = ms;
};
const timeFor = (units: number) => Math.ceil(units / PARALLEL_UNITS) * roundMs;

/** The writer's lease was taken over by the repair worker (it stalled past its lease). */
class LeaseLost extends ConflictError {
  constructor() {
    super('the write lost its lease to the repair worker');
  }
}
/** The request's deadline came before the write could finish: stop, then undo in time. */
class OutOfTime extends Error {}

const APPLYING = 'applying';
const COMPLETE = 'complete';
/** A head the repair worker has claimed: its writer may no longer renew, complete or apply a unit. */
const REPAIRING = 'repairing';

/**
 * Applies steps so that the caller sees all of them or none. One operation: a single-item call
 * (concurrent edits of one record never conflict). Up to 100 operations: one transaction.
 *
 * More: a journaled write. A head item holds the writer's lease (renewed every 5 s) and names the
 * request's Idempotency-Key claim; journals record how to undo every step (guarded so an undo
 * never overwrites a newer edit). The plain puts and deletes go in batch writes, the conditional
 * ones in chunked transactions that each put their journal where none is yet, 8 units at a
 * time (the repair worker fences the indexes of a write it takes over, so a late unit is refused;
 * no unit touches a shared item, so parallel units never contend). Before it starts, and before every unit, the write checks that the request's deadline
 * leaves time to finish or to undo what it applied: a write that cannot start in time is refused
 * with a 503 (nothing written); one that runs short stops and undoes itself before answering the
 * 503. Any other failure is undone the same way and rethrown. When undoing cannot be finished in
 * time, or the lease was lost, the answer is a 504 `write_interrupted` and the repair worker
 * (`repairInterrupted`, every minute) undoes the rest once the lease has run out. On success one
 * transaction completes the write and removes its journal and head. While a large write applies,
 * readers may see part of it; afterwards, all or nothing. Answers the item after the write when
 * the steps were one update, else undefined.
 */
export const commitSteps = async (
  scope: string,
  steps: readonly Step[],
  onConditionFailed: (index: number) => HttpError,
  /** The caller already ran `recoverInterrupted(scope)` (in parallel with its own reads). */
  recovered = false,
  /**
   * Operations that land exactly once with the write's success (counters, an import's progress):
   * in its transaction, or, for a journaled write, in the one that marks it complete. An undone
   * write never applies them; they are never undone. One may carry a condition: should it fail,
   * the write is not complete and is undone (for a journaled write, by the repair, as when its
   * lease is lost; the caller gets the answer of an interrupted write).
   */
  final: readonly TransactOp[] = [],
): Promise<Item | undefined> => {
  // One update answers the item as written (callers then need not read it back).
  if (steps.length === 1 && final.length === 0)
    return applyOne((steps[0] as Step).op, () => onConditionFailed(0));
  const ops = steps.map((s) => s.op);
  // `transact` adds the data version of each table whose records change (`data-versions.ts`);
  // a transaction already full moves it right after.
  if (ops.length + final.length <= MAX_TRANSACTION_ITEMS) {
    await transact([...ops, ...final], onConditionFailed);
    return undefined;
  }
  if (!recovered) await recoverInterrupted(scope);
  // A step and its joined steps stay together: batched when all are plain, else in one transaction.
  const groups = joinedGroups(steps);
  const plain = groups.filter((g) => g.every((s) => isPlain(s.op))).flat();
  const guarded = groups.filter((g) => !g.every((s) => isPlain(s.op))).flat();
  const chunks = chunkSteps(guarded);
  const unitCount = chunks.length + Math.ceil(plain.length / PLAIN_UNIT);
  // Time to apply every unit and, should the last one fail, to undo them all.
  const needed = 2 * timeFor(unitCount) + MARGIN_MS;
  if (remainingMs() < needed)
    throw new ServiceUnavailableError(
      `Not enough time left for a write of ${steps.length} operations (about ${Math.ceil(needed / 1000)} s); nothing was written, retry or send fewer records`,
      Math.max(1, Math.ceil(needed / 1000)),
    );
  // The data versions move with the completion (and again with an undo), so a result computed
  // from the records while the write applied is never reused after it.
  // The view indexes' entry counts of the transactions (`transact`) move with them: the completion
  // moves those of the batched operations only.
  // So do the deletion notes of the batched operations (each transaction carries its own).
  const batched = indexMovesOf(plain.map((s) => s.op));
  const indexes = { ...indexMovesOf(ops), counts: batched.counts, deleted: batched.deleted };
  const versions = tablesWritten(ops).map((tableId) => versionOpOf(tableId, undefined, indexes));
  await new JournaledWrite(scope, chunks, plain, unitCount, [...final, ...versions], tablesTouched(ops)).run(
    onConditionFailed,
    steps,
  );
  return undefined;
};

/** One journaled write in progress: its head, lease and units. */
class JournaledWrite {
  private readonly txnId = newId('record').slice(3);
  private readonly now = Date.now();
  private readonly head: Key;
  private leaseUntil = 0;
  private lost = false;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Units sent (applied, or failed after sending: their outcome is unknown, so they are undone too). */
  private readonly sent: number[] = [];

  constructor(
    private readonly scope: string,
    private readonly chunks: Step[][],
    private readonly plain: Step[],
    private readonly unitCount: number,
    private readonly final: readonly TransactOp[],
    /** The tables whose records or view indexes it changes (`hasOpenWrites`); undefined: any. */
    private readonly tables: readonly string[] | undefined,
  ) {
    this.head = keys.txnHead(scope, this.txnId);
  }

  private get plainJournals() {
    return chunkSteps(this.plain);
  }

  private journalKeys(): Key[] {
    return Array.from({ length: this.chunks.length + this.plainJournals.length }, (_, i) =>
      keys.journal(this.scope, this.txnId, i),
    );
  }

  private async open(): Promise<void> {
    this.leaseUntil = Date.now() + LEASE_MS;
    const request = requestScope();
    await putItem({
      ...this.head,
      type: 'txnHead',
      scope: this.scope,
      txnId: this.txnId,
      state: APPLYING,
      leaseUntil: this.leaseUntil,
      chunks: this.chunks.length,
      ...(this.tables ? { tables: [...this.tables] } : {}),
      createdAt: this.now,
      ...(request?.idempotencyKey ? { idempotencyKey: request.idempotencyKey } : {}),
      expiresAt: Math.floor(this.now / 1000) + 7 * 86_400,
    });
    if (request) request.openWrites++;
    this.heartbeat = setInterval(() => void this.renew(), HEARTBEAT_MS);
    this.heartbeat.unref?.();
  }

  /** Extends the lease while it is still ours; a failed renewal means the repair worker took over. */
  private async renew(): Promise<void> {
    const next = Date.now() + LEASE_MS;
    try {
      await updateItem(
        {
          key: this.head,
          update: 'SET leaseUntil = :next',
          condition: '#s = :applying AND leaseUntil > :now',
          names: { '#s': 'state' },
          values: { ':next': next, ':applying': APPLYING, ':now': Date.now() },
        },
        () => new LeaseLost(),
        'NONE',
      );
      this.leaseUntil = next;
    } catch (error) {
      if (error instanceof LeaseLost) this.lost = true;
      // A failed renewal for any other reason leaves the lease to run out; the units check it.
    }
  }

  private close(): void {
    clearInterval(this.heartbeat);
    const request = requestScope();
    if (request) request.openWrites--;
  }

  /** Throws unless there is time and lease left for one more unit and the undo of all sent so far. */
  private checkTime(): void {
    if (this.lost || Date.now() > this.leaseUntil - 2_000) throw new LeaseLost();
    if (remainingMs() < timeFor(1) + timeFor(this.sent.length + 1) + MARGIN_MS) throw new OutOfTime();
  }

  async run(onConditionFailed: (index: number) => HttpError, steps: readonly Step[]): Promise<void> {
    const { chunks, plain, scope, txnId, now } = this;
    const units: (() => Promise<void>)[] = [];
    let unit = 0;
    for (const [index, chunk] of chunks.entries()) {
      const at = unit++;
      units.push(async () => {
        this.checkTime();
        faultBeforeChunk?.(at);
        this.sent.push(at);
        const undo = undoOf(chunk);
        // The journal is put only where none is: the repair worker fences every index it takes
        // over, so a unit arriving after that is refused whole (no shared item to contend on).
        const journal: TransactOp = {
          put: journalItem(scope, txnId, index, undo, now),
          condition: NOT_EXISTS,
        };
        await transact([...chunk.map((s) => s.op), journal], (failed) =>
          failed === chunk.length ? new LeaseLost() : onConditionFailed(steps.indexOf(chunk[0] as Step)),
        );
      });
    }
    for (let i = 0; i < plain.length; i += PLAIN_UNIT) {
      const at = unit++;
      const slice = plain.slice(i, i + PLAIN_UNIT);
      units.push(async () => {
        this.checkTime();
        faultBeforeChunk?.(at);
        this.sent.push(at);
        await writeItems(slice.map((s) => s.op as { put: Item } | { delete: Key }));
      });
    }
    const started = performance.now();
    // The head and the plain units' journals in one round. Should the head fail, nothing was
    // applied: the journals already written have no head and are undone once stale
    // (`recoverInterrupted`), which changes nothing (their undo is guarded, or deletes records
    // that were never created).
    const [opened, journaled] = await Promise.allSettled([
      this.open(),
      writeItems(
        this.plainJournals.map((chunk, i) => ({
          put: journalItem(scope, txnId, chunks.length + i, undoOf(chunk), now),
        })),
      ),
    ]);
    if (opened.status === 'rejected') throw opened.reason;
    try {
      if (journaled.status === 'rejected') throw journaled.reason;
      await pool(units, PARALLEL_UNITS);
      observeRound((performance.now() - started) / Math.max(1, Math.ceil(this.unitCount / PARALLEL_UNITS)));
      await this.complete();
    } catch (error) {
      await this.compensate(error);
    } finally {
      this.close();
    }
  }

  /**
   * Marks the write complete while the lease holds (else the worker is undoing it), with the
   * write's final operations in the same transaction (exactly once). When the transaction has
   * room it is also the cleanup: the journals and the head go, and the request's Idempotency-Key
   * claim says `applied` until the answer is stored (what the repair worker would otherwise write
   * from a complete head, should the answer be lost). Else the head is marked complete and the
   * journals and then the head are deleted after it.
   */
  private async complete(): Promise<void> {
    if (remainingMs() < MARGIN_MS / 2) throw new OutOfTime();
    const holds = {
      condition: '#s = :applying AND leaseUntil > :now',
      names: { '#s': 'state' },
      values: { ':applying': APPLYING, ':now': Date.now() },
    };
    const journals: TransactOp[] = this.journalKeys().map((key) => ({ delete: key }));
    const claim = requestScope()?.idempotencyKey;
    const claimOps: TransactOp[] = claim ? [{ update: appliedClaim(claim) }] : [];
    if (1 + claimOps.length + this.final.length + journals.length <= MAX_TRANSACTION_ITEMS) {
      await transact(
        [{ delete: this.head, ...holds }, ...claimOps, ...this.final, ...journals],
        () => new LeaseLost(),
      );
      return;
    }
    const mark: UpdateSpec = {
      key: this.head,
      update: 'SET #s = :complete',
      ...holds,
      values: { ...holds.values, ':complete': COMPLETE },
    };
    if (this.final.length) await transact([{ update: mark }, ...this.final], () => new LeaseLost());
    else await updateItem(mark, () => new LeaseLost(), 'NONE');
    // Complete: from here the write stands whatever happens; the worker removes what is left,
    // the head (still saying complete, for the worker and an Idempotency-Key retry) last.
    await deleteItems(this.journalKeys()).catch(() => undefined);
    await deleteItems([this.head]).catch(() => undefined);
  }

  /**
   * Undoes every unit sent, in time, and answers the truth: the original error (or a 503 for a
   * deadline) once all is undone; a 504 `write_interrupted` when the worker must finish the undo.
   */
  private async compensate(error: unknown): Promise<never> {
    clearInterval(this.heartbeat);
    const handOver = async () => {
      // Let the worker take over at once: the lease ends now.
      await updateItem(
        {
          key: this.head,
          update: 'SET leaseUntil = :zero',
          condition: '#s = :applying',
          names: { '#s': 'state' },
          values: { ':zero': 0, ':applying': APPLYING },
        },
        () => new LeaseLost(),
        'NONE',
      ).catch(() => undefined);
      return new WriteInterruptedError(REPAIR_WITHIN_SECONDS);
    };
    if (error instanceof LeaseLost || this.lost) throw await handOver();
    if (remainingMs() < timeFor(this.sent.length) + MARGIN_MS) throw await handOver();
    try {
      const journals = await queryAll({ ...keys.journalsOf(this.scope), skPrefix: `${this.txnId}#` });
      await undoJournals(journals, this.chunks.length, this.sent);
      await deleteItems([...this.journalKeys(), this.head]);
    } catch {
      throw await handOver();
    }
    if (error instanceof OutOfTime)
      throw new ServiceUnavailableError(
        'The write could not finish within the time limit and was undone; nothing was written, retry or send fewer records',
        1,
      );
    throw error;
  }
}

/**
 * Applies the undo of journal items, newest chunk first. With `sent`, only the guarded chunks
 * whose units were sent (the plain journals are always undone: their undo is harmless when the
 * write never happened, or guarded).
 */
const undoJournals = async (items: readonly Item[], guardedChunks?: number, sent?: readonly number[]) => {
  let skipped = 0;
  const ordered = items.map(journalOf).sort((a, b) => b.chunk - a.chunk);
  for (const { chunk, undo } of ordered) {
    if (sent && guardedChunks !== undefined && chunk < guardedChunks && !sent.includes(chunk)) continue;
    skipped += await applyUndo(undo);
  }
  return skipped;
};

/** What one repair did. */
export interface RepairReport {
  /** Interrupted writes undone. */
  undone: number;
  /** Writes found complete, whose journal was only cleaned up. */
  completed: number;
  /** Undo operations skipped because a newer edit had replaced what the write wrote. */
  skipped: number;
}

/**
 * The repair worker's pass (every minute in the stack, on a timer locally): every journaled
 * write whose writer's lease has run out is taken over (a conditional claim, so two workers
 * never repair the same write), then finished or undone. A write marked complete keeps its
 * effect: only its journal is removed, and its Idempotency-Key claim is marked `applied` (a retry
 * learns the write happened). Any other is undone from its journal, guarded so no newer edit is
 * overwritten, and its Idempotency-Key claim is freed (a retry runs again). With `scope`, only
 * that scope's writes.
 */
export const repairInterrupted = async (
  options: { scope?: string; now?: number } = {},
): Promise<RepairReport> => {
  const now = options.now ?? Date.now();
  const heads = await queryAll({
    ...keys.txnHeads(),
    skPrefix: options.scope ? `${options.scope}#` : undefined,
  });
  const report: RepairReport = { undone: 0, completed: 0, skipped: 0 };
  for (const head of heads.map(headOf)) {
    if (head.leaseUntil >= now) continue;
    const { key, scope, txnId, idempotencyKey: idempotency } = head;
    const complete = head.state === COMPLETE;
    try {
      // The claim ends the writer's hold: it can no longer renew, complete or (fenced below) apply.
      await updateItem(
        {
          key,
          update: 'SET leaseUntil = :mine, #s = :next',
          condition: 'leaseUntil = :seen AND #s = :state',
          names: { '#s': 'state' },
          values: {
            ':mine': now + LEASE_MS * 3,
            ':seen': head.leaseUntil,
            ':state': head.state,
            ':next': complete ? COMPLETE : REPAIRING,
          },
        },
        () => new Skipped(),
        'NONE',
      );
    } catch (error) {
      if (error instanceof Skipped) continue; // another worker, or the writer renewed just now
      throw error;
    }
    if (!complete) await fenceUnits(scope, txnId, head.chunks, now);
    const journals = await queryAll({ ...keys.journalsOf(scope), skPrefix: `${txnId}#` });
    if (complete) {
      report.completed++;
      if (idempotency) await markApplied(idempotency);
    } else {
      report.undone++;
      report.skipped += await undoJournals(journals);
      if (idempotency) await deleteItems([idempotency]);
    }
    const undoable = journals.map(journalOf).filter((j) => !j.fence);
    await deleteItems([...undoable.map((j) => j.key), key]);
  }
  return report;
};

/**
 * Puts an empty journal (a fence) at every unit index of a claimed write that has none, so a unit
 * of its writer still in flight is refused whole instead of landing after the undo. An index whose
 * journal appears meanwhile was applied: the caller reads it afterwards and undoes it. Fences stay
 * after the repair (empty, expiring with the journal's TTL, or removed by `recoverInterrupted` once
 * stale), so even a unit frozen in flight for minutes is refused. Not fenced: the plain batch units,
 * which DynamoDB cannot make conditional; the writer stops them 2 s before its own lease ends, so
 * only a process frozen between that check and the send for longer than its lease (15 s and more)
 * could land one after the repair.
 */
const fenceUnits = async (scope: string, txnId: string, chunks: number, now: number) => {
  const present = new Set(
    (await queryAll({ ...keys.journalsOf(scope), skPrefix: `${txnId}#` })).map((j) => journalOf(j).chunk),
  );
  for (let index = 0; index < chunks; index++) {
    if (present.has(index)) continue;
    await applyOne(
      {
        put: { ...journalItem(scope, txnId, index, [], now), fence: true },
        condition: NOT_EXISTS,
      },
      () => new Skipped(),
    ).catch((error: unknown) => {
      if (!(error instanceof Skipped)) throw error;
    });
  }
};

/**
 * The update that marks an Idempotency-Key claim `applied`: its write is made but its answer may
 * be lost, so a retry is told so rather than run again (the answer, once stored, replaces it).
 */
const appliedClaim = (key: Key): UpdateSpec => ({
  key,
  update: 'SET #s = :applied, expiresAt = :day',
  // Applied already: a second large write of the same request.
  condition: '#s IN (:running, :applied)',
  names: { '#s': 'state' },
  // Kept as long as a remembered answer, so a late retry is still told rather than run again.
  values: {
    ':applied': 'applied',
    ':running': 'running',
    ':day': Math.floor(Date.now() / 1000) + 86_400,
  },
});

/** A request whose write completed but whose answer was lost: its retry is told so, not run again. */
const markApplied = (key: Key) =>
  updateItem(appliedClaim(key), () => new Skipped(), 'NONE').catch((error: unknown) => {
    if (!(error instanceof Skipped)) throw error;
  });

/**
 * Repairs a scope before a large write in it: its writes whose lease ran out (`repairInterrupted`)
 * and journals without a head (left by an older version) once they are `JOURNAL_STALE_MS` old.
 * Answers how many writes it undid or finished.
 */
export const recoverInterrupted = async (scope: string, now = Date.now()): Promise<number> => {
  const readScope = () =>
    Promise.all([queryAll(keys.journalsOf(scope)), queryAll({ ...keys.txnHeads(), skPrefix: `${scope}#` })]);
  let [items, heads] = await readScope();
  // Only a write whose lease ran out is repaired: with none (the usual case) this one round of
  // reads is all. Else the writes with a head first, then read what is left (a journal repaired
  // just now is gone).
  let repaired: Pick<RepairReport, 'undone' | 'completed'> = { undone: 0, completed: 0 };
  if (heads.some((h) => headOf(h).leaseUntil < now)) {
    repaired = await repairInterrupted({ scope, now });
    [items, heads] = await readScope();
  }
  const withHead = new Set(heads.map((h) => headOf(h).txnId));
  const stale = items.filter((i) => {
    const j = journalOf(i);
    return !withHead.has(j.txnId) && now - j.createdAt > JOURNAL_STALE_MS;
  });
  const byTxn = new Map<string, Item[]>();
  for (const item of stale) {
    const { txnId } = journalOf(item);
    byTxn.set(txnId, [...(byTxn.get(txnId) ?? []), item]);
  }
  for (const chunks of byTxn.values()) {
    await undoJournals(chunks);
    await deleteItems(chunks.map((c) => keyOfItem(c)));
  }
  return byTxn.size + repaired.undone + repaired.completed;
};

/**
 * Whether a journaled write (larger than one transaction) that changes a table's records or view
 * indexes is applying now, or was left unfinished, whatever its scope (a write in one table
 * reaches others through links and lookups; its head lists every table it changes). A head that
 * lists none (written before heads listed them, or changing an index with no record) counts for
 * every table.
 */
export const hasOpenWrites = async (tableId: string): Promise<boolean> =>
  (await queryAll(keys.txnHeads())).some(
    (head) => !Array.isArray(head.tables) || head.tables.includes(tableId),
  );

export { withoutRepeatedDeletes } from './operations.ts';
export type { TransactOp };
/**
 * The one transaction writer, for feature modules: they compose the operations entity modules
 * build and send them here (only `db/` and `entities/` import the client itself).
 */
export { MAX_TRANSACTION_ITEMS, transact };
