import { type EntrySource, entryReader } from '#shared/auth/entry-visibility.ts';
import { checkAccess, type Principal } from '#shared/auth/permission.ts';
import { locateNow } from '#shared/auth/resources.ts';
import { HttpError } from '#shared/core/errors.ts';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import type { LiveTarget, ServerMessage } from './protocol.ts';

/**
 * Whether a principal may follow a base (`base|read`) or a table (`record|read`), as the API's own
 * check decides: the base the target is in and where it is located (for `entryReader`: a base's
 * follower gets only the entries it may read), or the `error` message to send (the API's code).
 */
export const liveAccess = async (
  principal: Principal,
  target: LiveTarget,
): Promise<{ baseId: string; source: EntrySource } | { error: ServerMessage }> => {
  try {
    const ref = target.tableId
      ? ({ kind: 'table', id: target.tableId } as const)
      : ({ kind: 'base', id: target.baseId as string } as const);
    const located = await locateNow(ref, principal.userId);
    checkAccess({
      principal,
      resource: located,
      role: located.role,
      actions: target.tableId ? ['record|read'] : ['base|read'],
    });
    const { id, spaceId, baseId, role } = located;
    return {
      baseId: baseId ?? (target.baseId as string),
      source: { id, spaceId, ...(baseId ? { baseId } : {}), role },
    };
  } catch (error) {
    if (error instanceof HttpError)
      return { error: { type: 'error', code: error.code, message: error.message } };
    // what cannot be located is answered as what the caller may not see
    return { error: { type: 'error', code: 'not_found', message: 'not found' } };
  }
};

/** Entries read from the log at a time while catching up. */
const CATCH_UP_PAGE = 500;

/** Whether a subscription sends an entry: of its table (when it follows one) and readable by its principal. */
export const followedBy = (principal: Principal, source: EntrySource, tableId: string | undefined) => {
  const readable = entryReader(principal, source);
  return (entry: ChangeEntry): boolean => (!tableId || entry.tableId === tableId) && readable(entry);
};

/**
 * Every entry the log keeps after `afterSeq` that `follows`, a page at a time, handed to `send` in
 * `seq` order; answers the last `seq` read (the entries left out included).
 */
export const replayAfter = async (
  baseId: string,
  follows: (entry: ChangeEntry) => boolean,
  afterSeq: number,
  send: (entry: ChangeEntry) => Promise<void> | void,
): Promise<number> => {
  let last = afterSeq;
  for (;;) {
    const page = await changesAfter(baseId, last, CATCH_UP_PAGE);
    for (const entry of page) {
      last = entry.seq;
      if (!follows(entry)) continue;
      const { expiresAt: _, ...shown } = entry as ChangeEntry & { expiresAt?: number };
      await send(shown);
    }
    if (page.length < CATCH_UP_PAGE) return last;
  }
};
