/**
 * Undo and redo stacks (contract web-app §4; `changes/undo-redo.ts`): one item per user, table and
 * window (`UNDO#<usr>` `<tbl>#<window>`, a browser tab's `X-Window-Id`), holding the requests its
 * user can undo (`done`, oldest first) and redo (`undone`), each by its request id (`tx`, the
 * `txId` of its change-log entries) and the time it wrote (`at`). A write pushes onto `done` and
 * empties `undone`; an undo moves the top of `done` onto `undone`, a redo back. At most
 * `UNDO_DEPTH` each as read (a push appends without reading: `done` is trimmed at twice that); the
 * item expires a day after its last change.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { getItem, type Item, putItem, transact, updateItem } from '#shared/db/client.ts';
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
    ? {
        done: stepsOf(item.done).slice(-UNDO_DEPTH),
        undone: stepsOf(item.undone),
        revision: count(item.revision),
      }
    : { done: [], undone: [], revision: 0 };
};

const itemOf = (userId: string, tableId: string, windowId: string, stack: UndoStack, now: number): Item => ({
  ...keys.undoStack(userId, tableId, windowId),
  type: 'undoStack',
  done: stack.done.slice(-UNDO_DEPTH),
  undone: stack.undone.slice(-UNDO_DEPTH),
  revision: stack.revision,
  expiresAt: expiryOf(now),
});

/** A day after `now`, in seconds (TTL). */
const expiryOf = (now: number): number => Math.floor(now / 1000) + DAY_SECONDS;

/**
 * `done` may grow to twice `UNDO_DEPTH` between trims: a push appends in one update, and only a
 * push onto a full list reads it and trims it back (once every `UNDO_DEPTH` pushes at most).
 */
const DONE_SLACK = 2 * UNDO_DEPTH;

class StackFull extends ConflictError {}

/**
 * A new write of the user in this window: on top of `done`, and nothing left to redo. One update
 * appending to the list (no condition on the revision: a window's writes come one after another;
 * a lost push only shortens what it can undo); a list at its slack is read and put back trimmed.
 */
export const pushUndo = async (
  userId: string,
  tableId: string,
  windowId: string,
  step: UndoStep,
  now = Date.now(),
): Promise<void> => {
  try {
    await updateItem(
      {
        key: keys.undoStack(userId, tableId, windowId),
        update:
          'SET done = list_append(if_not_exists(done, :none), :step), undone = :none, ' +
          'revision = if_not_exists(revision, :zero) + :one, expiresAt = :expires, #t = :type',
        condition: 'attribute_not_exists(done) OR size(done) < :slack',
        names: { '#t': 'type' },
        values: {
          ':none': [],
          ':step': [step],
          ':zero': 0,
          ':one': 1,
          ':expires': expiryOf(now),
          ':type': 'undoStack',
          ':slack': DONE_SLACK,
        },
      },
      () => new StackFull('the undo list is at its slack'),
      'NONE',
    );
  } catch (error) {
    if (!(error instanceof StackFull)) throw error;
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
  }
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
