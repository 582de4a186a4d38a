/**
 * The undo stack entity against DynamoDB Local: a push is one update (the web app makes one per
 * write), the list is trimmed when it reaches its slack, a read answers the newest `UNDO_DEPTH`,
 * and an undo's move is conditioned on the revision it read.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/core/errors.ts';
import { getItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { callSummary, resetCalls } from '#shared/db/metrics.ts';
import { moveUndo, pushUndo, readUndoStack, UNDO_DEPTH } from '#shared/entities/undo-stacks.ts';

const stackOf = () => ({ user: `usr${randomUUID()}`, table: `tbl${randomUUID()}`, window: randomUUID() });
const step = (n: number) => ({ tx: `tx-${n}`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() });

describe('undo stacks', () => {
  it('pushes with one update and no read, and empties what could be redone', async () => {
    const { user, table, window } = stackOf();
    await pushUndo(user, table, window, step(1));
    const read = await readUndoStack(user, table, window);
    await moveUndo(user, table, window, read, { done: [], undone: [step(1)] });
    expect((await readUndoStack(user, table, window)).undone).toEqual([step(1)]);

    resetCalls();
    await pushUndo(user, table, window, step(2));
    expect(callSummary().ops).toEqual(['UpdateItem']);
    const after = await readUndoStack(user, table, window);
    expect(after.done).toEqual([step(2)]);
    expect(after.undone).toEqual([]);
    expect(after.revision).toBe(read.revision + 2);
  });

  it('keeps the newest UNDO_DEPTH steps in order, the stored list never past twice that', async () => {
    const { user, table, window } = stackOf();
    const pushes = 2 * UNDO_DEPTH + 25;
    for (let n = 1; n <= pushes; n++) {
      await pushUndo(user, table, window, step(n));
      const stored = await getItem(keys.undoStack(user, table, window));
      expect(Array.isArray(stored?.done) && stored.done.length).toBeLessThanOrEqual(2 * UNDO_DEPTH);
    }
    const read = await readUndoStack(user, table, window);
    expect(read.done).toHaveLength(UNDO_DEPTH);
    expect(read.done[0]).toEqual(step(pushes - UNDO_DEPTH + 1));
    expect(read.done.at(-1)).toEqual(step(pushes));
  });

  it('refuses a move made from a revision another push or move has passed', async () => {
    const { user, table, window } = stackOf();
    await pushUndo(user, table, window, step(1));
    const read = await readUndoStack(user, table, window);
    await pushUndo(user, table, window, step(2));
    await expect(moveUndo(user, table, window, read, { done: [], undone: [step(1)] })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await readUndoStack(user, table, window)).done).toEqual([step(1), step(2)]);
  });
});
