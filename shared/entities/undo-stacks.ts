/**
 * Undo and redo stacks (contract web-app §4; `changes/undo-redo.ts`): one item per user, table and
 * window (`UNDO#<usr>` `<tbl>#<window>`, a browser tab's `X-Window-Id`), holding the requests its
 * user can undo (`done`, oldest first) and redo (`undone`), each by its request id (`tx`, the
 * `txId` of its change-log entries) and the time it wrote (`at`). A write pushes onto `done` and
 * empties `undone`; an undo moves the top of `done` onto `undone`, a redo back. At most
 * `UNDO_DEPTH` each; the item expires a day after its last change.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { getItem, type Item, putItem, transact } from '#shared/db/client.ts';
import { NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, isMap, text } from './attributes.ts';

/** How many writes a window can undo (Teable keeps as many by default). */
export const UNDO_DEPTH = 100;
const DAY_SECONDS = 86_400;

/** A request on a stack. */
export interface UndoStep {
  tx: string;
  /** When it wrote (ISO): its entries are found among the log's entries from then on. */
  at: string;
}

export interface UndoStack {
  done: UndoStep[];
  undone: UndoStep[];
  /** Counts every change: a move is conditioned on the one it read. */
  revision: number;
}

const stepsOf = (value: unknown): UndoStep[] =>
  (Array.isArray(value) ? value : []).flatMap((v) =>
    isMap(v) && typeof v.tx === 'string' ? [{ tx: v.tx, at: text(v.at) }] : [],
  );

/** A user's stacks for a table in a window (empty when it has none). */
export const readUndoStack = async (
  userId: string,
  tableId: string,
  windowId: string,
): Promise<UndoStack> => {
  const item = await getItem(keys.undoStack(userId, tableId, windowId));
  return item
    ? { done: stepsOf(item.done), undone: stepsOf(item.undone), revision: count(item.revision) }
    : { done: [], undone: [], revision: 0 };
};

const itemOf = (userId: string, tableId: string, windowId: string, stack: UndoStack, now: number): Item => ({
  ...keys.undoStack(userId, tableId, windowId),
  type: 'undoStack',
  done: stack.done.slice(-UNDO_DEPTH),
  undone: stack.undone.slice(-UNDO_DEPTH),
  revision: stack.revision,
  expiresAt: Math.floor(now / 1000) + DAY_SECONDS,
});

/**
 * A new write of the user in this window: on top of `done`, and nothing left to redo. Read and
 * put (no condition: a window's writes come one after another; a lost push only shortens what it
 * can undo).
 */
export const pushUndo = async (
  userId: string,
  tableId: string,
  windowId: string,
  step: UndoStep,
  now = Date.now(),
): Promise<void> => {
  const stack = await readUndoStack(userId, tableId, windowId);
  await putItem(
    itemOf(
      userId,
      tableId,
      windowId,
      { done: [...stack.done, step], undone: [], revision: stack.revision + 1 },
      now,
    ),
  );
};

/**
 * Saves the stacks an undo or redo leaves, if no other undo or redo of this window saved them
 * since they were read (else a `ConflictError`).
 */
export const moveUndo = async (
  userId: string,
  tableId: string,
  windowId: string,
  read: UndoStack,
  next: Pick<UndoStack, 'done' | 'undone'>,
  now = Date.now(),
): Promise<void> =>
  transact(
    [
      {
        put: itemOf(userId, tableId, windowId, { ...next, revision: read.revision + 1 }, now),
        condition: read.revision === 0 ? `${NOT_EXISTS} OR revision = :r` : 'revision = :r',
        values: { ':r': read.revision },
      },
    ],
    () => new ConflictError('another undo or redo of this window ran at the same moment; try again'),
  );
