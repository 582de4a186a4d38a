import { AsyncLocalStorage } from 'node:async_hooks';
import type { Key } from './keys.ts';

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
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `work` in a fresh scope with a deadline `ms` from now. */
export const withRequestScope = <T>(ms: number, work: () => Promise<T>): Promise<T> =>
  storage.run({ deadline: Date.now() + ms, writesSent: 0, openWrites: 0 }, work);

/** The current request's scope, if the code runs inside one (tools and workers run outside). */
export const requestScope = (): RequestScope | undefined => storage.getStore();

/** Milliseconds left before the current request's deadline (Infinity outside a request). */
export const remainingMs = (now = Date.now()): number => {
  const scope = storage.getStore();
  return scope ? scope.deadline - now : Number.POSITIVE_INFINITY;
};

/** Notes that a write call is about to be sent. */
export const noteWriteSent = (): void => {
  const scope = storage.getStore();
  if (scope) scope.writesSent++;
};
