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
} from './client.ts';
import { keys } from './keys.ts';

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

const undoChunk = async (undo: TransactOp[]) => {
  // Undo operations are unconditional puts and deletes: they cannot fail on a condition.
  for (let i = 0; i < undo.length; i += MAX_TRANSACTION_ITEMS) {
    await transact(undo.slice(i, i + MAX_TRANSACTION_ITEMS).reverse(), () => new ServiceUnavailableError());
  }
};

/**
 * Applies steps so that the caller sees all of them or none. One operation: a single-item
 * call (concurrent edits of one record never conflict). Up to 100 operations: one transaction. More: chunked transactions, each also writing a journal item (in `scope`, e.g.
 * the table) with its undo operations; when a chunk fails, the chunks already applied are undone
 * in reverse and the error is rethrown; on success the journal is removed. A write interrupted
 * by a crash is undone by `recoverInterrupted` at the start of the next large write in the scope.
 * While a large write applies, readers may see part of it; afterwards, all or nothing.
 */
export const commitSteps = async (
  scope: string,
  steps: readonly Step[],
  onConditionFailed: (index: number) => HttpError,
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
  await recoverInterrupted(scope);
  const txnId = newId('record').slice(3);
  const chunks = chunkSteps(steps);
  const applied: TransactOp[][] = [];
  let offset = 0;
  try {
    for (const [index, chunk] of chunks.entries()) {
      faultBeforeChunk?.(index);
      const undo = chunk.map((s) => s.undo);
      const base = offset;
      await transact(
        [...chunk.map((s) => s.op), { put: journalItem(scope, txnId, index, undo, Date.now()) }],
        (i) => onConditionFailed(base + i),
      );
      applied.push(undo.filter((u): u is TransactOp => u !== null));
      offset += chunk.length;
    }
  } catch (error) {
    for (const undo of applied.reverse()) await undoChunk(undo);
    await deleteItems(chunks.map((_, i) => keys.journal(scope, txnId, i)));
    throw error;
  }
  await deleteItems(chunks.map((_, i) => keys.journal(scope, txnId, i)));
};

/** Undoes large writes in the scope that were interrupted (their journal is older than any Lambda run). */
export const recoverInterrupted = async (scope: string, now = Date.now()): Promise<number> => {
  const items = await queryAll(keys.journalsOf(scope));
  const stale = items.filter((i) => now - Number(i.createdAt) > JOURNAL_STALE_MS);
  const byTxn = new Map<string, Item[]>();
  for (const item of stale) byTxn.set(String(item.txnId), [...(byTxn.get(String(item.txnId)) ?? []), item]);
  for (const chunks of byTxn.values()) {
    for (const chunk of chunks.sort((a, b) => Number(b.chunk) - Number(a.chunk)))
      await undoChunk(chunk.undo as TransactOp[]);
    await deleteItems(chunks.map((c) => ({ pk: String(c.pk), sk: String(c.sk) })));
  }
  return byTxn.size;
};
