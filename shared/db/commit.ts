import { type HttpError, ServiceUnavailableError } from '#shared/http/errors.ts';
import { newId } from '#shared/ids.ts';
import {
  applyOne,
  deleteItems,
  type Item,
  MAX_TRANSACTION_ITEMS,
  queryAll,
  type TransactOp,
  transact,
  writeItems,
} from './client.ts';
import { type Key, keys } from './keys.ts';

/** One operation of a write and the operation that undoes it once applied. */
export interface Step {
  op: TransactOp;
  /** Puts the previous image back or deletes what `op` created; null when nothing to undo. */
  undo: TransactOp | null;
}

/** A journal item must stay well under DynamoDB's 400 KB item limit. */
const JOURNAL_BYTES = 300_000;
/** How long an interrupted write may stay before the next large write on the table undoes it. */
export const JOURNAL_STALE_MS = 15 * 60_000;

const sizeOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** Splits steps into chunks that fit one transaction with their journal item. Pure. */
export const chunkSteps = (steps: readonly Step[]): Step[][] => {
  const chunks: Step[][] = [];
  let chunk: Step[] = [];
  let bytes = 0;
  for (const step of steps) {
    const size = sizeOf(step.undo);
    if (chunk.length > 0 && (chunk.length + 1 >= MAX_TRANSACTION_ITEMS || bytes + size > JOURNAL_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(step);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
};

/** Test seam: throws before a chunk is sent, to prove compensation (a fault DynamoDB Local cannot stage). */
let faultBeforeChunk: ((index: number) => void) | undefined;
export const injectChunkFault = (fault: ((index: number) => void) | undefined) => {
  faultBeforeChunk = fault;
};

const journalItem = (
  scope: string,
  txnId: string,
  index: number,
  undo: (TransactOp | null)[],
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

/** True for a put or delete without a condition: it can go in a batch write instead of a transaction. */
const isPlain = (op: TransactOp): op is { put: Item } | { delete: Key } =>
  ('put' in op || 'delete' in op) && !('condition' in op && op.condition);

/** Applies undo operations: plain ones batched, updates one by one (none can fail on a condition). */
const applyUndo = async (undo: readonly TransactOp[]) => {
  await writeItems(undo.filter(isPlain));
  for (const op of undo.filter((u) => !isPlain(u))) await applyOne(op, () => new ServiceUnavailableError());
};

/** Runs tasks at most `limit` at a time; the first failure is thrown once all started ones end. */
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

/** How many batches and transactions of one large write run at the same time. */
const PARALLEL_UNITS = 8;
/** Plain writes per unit (four BatchWriteItem calls). */
const PLAIN_UNIT = 100;

/**
 * Applies steps so that the caller sees all of them or none. One operation: a single-item
 * call (concurrent edits of one record never conflict). Up to 100 operations: one transaction.
 * More: a journal first records how to undo the plain puts and deletes (undoing one that never
 * happened is harmless), then the plain ones go in batch writes (half the write capacity of a
 * transaction) and the conditional ones in chunked transactions that each write their own
 * journal item, up to 8 units at a time. When any unit fails, everything applied is undone and
 * the error is rethrown; on success the journal is removed. A write interrupted by a crash is
 * undone by `recoverInterrupted` at the start of the next large write in the scope. While a large
 * write applies, readers may see part of it; afterwards, all or nothing.
 */
export const commitSteps = async (
  scope: string,
  steps: readonly Step[],
  onConditionFailed: (index: number) => HttpError,
  /** The caller already ran `recoverInterrupted(scope)` (in parallel with its own reads). */
  recovered = false,
): Promise<void> => {
  if (steps.length === 1) {
    await applyOne((steps[0] as Step).op, () => onConditionFailed(0));
    return;
  }
  if (steps.length <= MAX_TRANSACTION_ITEMS) {
    await transact(
      steps.map((s) => s.op),
      onConditionFailed,
    );
    return;
  }
  if (!recovered) await recoverInterrupted(scope);
  const txnId = newId('record').slice(3);
  const now = Date.now();
  const plain = steps.filter((s) => isPlain(s.op));
  const guarded = steps.filter((s) => !isPlain(s.op));
  const chunks = chunkSteps(guarded);
  // Journal items: one per guarded chunk (written with it), then those of the plain writes.
  const plainJournals = chunkSteps(plain.map((s) => ({ op: s.op, undo: s.undo })));
  const journalKeys = [...chunks, ...plainJournals].map((_, i) => keys.journal(scope, txnId, i));
  const applied: TransactOp[][] = [];
  const units: (() => Promise<void>)[] = [];
  let unit = 0;
  for (const [index, chunk] of chunks.entries()) {
    const at = unit++;
    units.push(async () => {
      faultBeforeChunk?.(at);
      const undo = chunk.map((s) => s.undo);
      await transact([...chunk.map((s) => s.op), { put: journalItem(scope, txnId, index, undo, now) }], () =>
        onConditionFailed(steps.indexOf(chunk[0] as Step)),
      );
      applied.push(undo.filter((u): u is TransactOp => u !== null));
    });
  }
  for (let i = 0; i < plain.length; i += PLAIN_UNIT) {
    const at = unit++;
    const slice = plain.slice(i, i + PLAIN_UNIT);
    units.push(async () => {
      faultBeforeChunk?.(at);
      await writeItems(slice.map((s) => s.op as { put: Item } | { delete: Key }));
    });
  }
  const plainUndo = plain.map((s) => s.undo).filter((u): u is TransactOp => u !== null);
  try {
    await writeItems(
      plainJournals.map((chunk, i) => ({
        put: journalItem(
          scope,
          txnId,
          chunks.length + i,
          chunk.map((s) => s.undo),
          now,
        ),
      })),
    );
    await pool(units, PARALLEL_UNITS);
  } catch (error) {
    for (const undo of applied.reverse()) await applyUndo(undo);
    await applyUndo(plainUndo);
    await deleteItems(journalKeys);
    throw error;
  }
  await deleteItems(journalKeys);
};

/** Undoes large writes in the scope that were interrupted (their journal is older than any Lambda run). */
export const recoverInterrupted = async (scope: string, now = Date.now()): Promise<number> => {
  const items = await queryAll(keys.journalsOf(scope));
  const stale = items.filter((i) => now - Number(i.createdAt) > JOURNAL_STALE_MS);
  const byTxn = new Map<string, Item[]>();
  for (const item of stale) byTxn.set(String(item.txnId), [...(byTxn.get(String(item.txnId)) ?? []), item]);
  for (const chunks of byTxn.values()) {
    for (const chunk of chunks.sort((a, b) => Number(b.chunk) - Number(a.chunk)))
      await applyUndo(chunk.undo as TransactOp[]);
    await deleteItems(chunks.map((c) => ({ pk: String(c.pk), sk: String(c.sk) })));
  }
  return byTxn.size;
};
