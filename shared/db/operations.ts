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

/**
 * The operations with each item deleted once: a transaction may not touch an item twice, and two
 * parts of one write (a field's deletion, a dependent's) may each delete the same item. The first
 * delete of an item stays. Pure.
 */
export const withoutRepeatedDeletes = (ops: readonly TransactOp[]): TransactOp[] => {
  const seen = new Set<string>();
  return ops.filter((op) => {
    if (!('delete' in op)) return true;
    const key = JSON.stringify(op.delete);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};
