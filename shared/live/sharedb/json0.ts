/**
 * What the `/socket` sends about a change, computed from two states (pure): the json0 op that
 * turns one snapshot of a doc into the next, and the query diff that turns one answer's ids into
 * the next. ShareDB's client applies both as sent (`sharedb/lib/client`).
 */

/** One json0 op component: a property or cell replaced (`od` the old value, `oi` the new). */
export interface Json0Component {
  p: string[];
  od?: unknown;
  oi?: unknown;
}

/** Deep equality of JSON values (key order ignored). */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((v, i) => sameJson(v, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  if (keys.length !== Object.keys(bo).filter((k) => bo[k] !== undefined).length) return false;
  return keys.every((k) => sameJson(ao[k], bo[k]));
};

const replace = (p: string[], before: unknown, after: unknown): Json0Component => ({
  p,
  ...(before === undefined ? {} : { od: before }),
  ...(after === undefined ? {} : { oi: after }),
});

/**
 * The op from one snapshot's data to the next: one component per top-level property that
 * differs, and for a record (`cellsKey: 'fields'`) one per cell, `['fields', fieldId]`, as
 * Teable's own ops are (no `oi` when a cell is emptied, no `od` when it was empty). Empty when
 * nothing differs.
 */
export const docOp = (
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  cellsKey?: string,
): Json0Component[] => {
  const op: Json0Component[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    const b = before[key];
    const a = after[key];
    if (sameJson(b, a)) continue;
    if (key === cellsKey && isObject(b) && isObject(a)) {
      for (const cell of new Set([...Object.keys(b), ...Object.keys(a)]))
        if (!sameJson(b[cell], a[cell])) op.push(replace([key, cell], b[cell], a[cell]));
    } else op.push(replace([key], b, a));
  }
  return op;
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** One step of a query's diff, as ShareDB's client applies it (`Query._handleDiff`). */
export type QueryDiffStep<T> =
  | { type: 'insert'; index: number; values: T[] }
  | { type: 'remove'; index: number; howMany: number }
  | { type: 'move'; from: number; to: number; howMany: number };

/**
 * The steps that turn the ids of one answer into the next, applied in order: removals of ids no
 * longer there, then, position by position, a move of an id already there or an insert of a new
 * one (`insertOf` gives what an insert carries). Empty when the answers are the same.
 */
export const queryDiff = <T>(
  before: readonly string[],
  after: readonly string[],
  insertOf: (id: string) => T,
): QueryDiffStep<T>[] => {
  const steps: QueryDiffStep<T>[] = [];
  const keep = new Set(after);
  const current = [...before];
  for (let i = current.length - 1; i >= 0; i--) {
    if (keep.has(current[i] as string)) continue;
    // one step for a run of neighbours going together
    let from = i;
    while (from > 0 && !keep.has(current[from - 1] as string)) from--;
    steps.push({ type: 'remove', index: from, howMany: i - from + 1 });
    current.splice(from, i - from + 1);
    i = from;
  }
  for (let i = 0; i < after.length; i++) {
    const id = after[i] as string;
    if (current[i] === id) continue;
    const at = current.indexOf(id, i + 1);
    if (at >= 0) {
      steps.push({ type: 'move', from: at, to: i, howMany: 1 });
      current.splice(at, 1);
      current.splice(i, 0, id);
    } else {
      steps.push({ type: 'insert', index: i, values: [insertOf(id)] });
      current.splice(i, 0, id);
    }
  }
  return steps;
};
