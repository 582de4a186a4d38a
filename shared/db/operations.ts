import type { Key } from './keys.ts';

/** A stored item as the document client answers it. */
export type Item = Record<string, unknown>;

/** An update expression and its names and values, built by a pure function beside its use. */
export interface UpdateSpec {
  key: Key;
  update: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * One operation of a transaction, in the shapes of the document client. `maintains`, on a record's
 * put, update or delete: the view indexes (`m:` counters, `data-versions.ts`) whose entries for
 * that record the same commit writes, so the write keeps those indexes exact; `counts`: how many
 * entries it adds to each of them (`n:` counters; -1 for one removed).
 */
export type TransactOp = (
  | { put: Item; condition?: string; names?: Record<string, string>; values?: Record<string, unknown> }
  | { update: UpdateSpec }
  | { delete: Key; condition?: string; names?: Record<string, string>; values?: Record<string, unknown> }
  | { check: Key; condition: string; names?: Record<string, string>; values?: Record<string, unknown> }
) & { maintains?: readonly string[]; counts?: Readonly<Record<string, number>> };
