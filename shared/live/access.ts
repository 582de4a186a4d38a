import { checkAccess, type Principal } from '#shared/auth/permission.ts';
import { locateNow } from '#shared/auth/resources.ts';
import { HttpError } from '#shared/core/errors.ts';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import type { LiveTarget, ServerMessage } from './protocol.ts';

/**
 * Whether a principal may follow a base (`base|read`) or a table (`record|read`), as the API's own
 * check decides: the base the target is in, or the `error` message to send (the API's code).
 */
export const liveAccess = async (
  principal: Principal,
  target: LiveTarget,
): Promise<{ baseId: string } | { error: ServerMessage }> => {
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
    return { baseId: located.baseId ?? (target.baseId as string) };
  } catch (error) {
    if (error instanceof HttpError)
      return { error: { type: 'error', code: error.code, message: error.message } };
    // what cannot be located is answered as what the caller may not see
    return { error: { type: 'error', code: 'not_found', message: 'not found' } };
  }
};

/** Entries read from the log at a time while catching up. */
const CATCH_UP_PAGE = 500;

/**
 * Every entry the log keeps after `afterSeq` that the target follows, a page at a time, handed to
 * `send` in `seq` order; answers the last `seq` read (the filter's own entries included).
 */
export const replayAfter = async (
  baseId: string,
  tableId: string | undefined,
  afterSeq: number,
  send: (entry: ChangeEntry) => Promise<void> | void,
): Promise<number> => {
  let last = afterSeq;
  for (;;) {
    const page = await changesAfter(baseId, last, CATCH_UP_PAGE);
    for (const entry of page) {
      last = entry.seq;
      if (tableId && entry.tableId !== tableId) continue;
      const { expiresAt: _, ...shown } = entry as ChangeEntry & { expiresAt?: number };
      await send(shown);
    }
    if (page.length < CATCH_UP_PAGE) return last;
  }
};
