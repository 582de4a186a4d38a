/** One DynamoDB call of the current request, as the benchmark and the request log see it. */
export interface DbCall {
  op:
    | 'GetItem'
    | 'BatchGetItem'
    | 'Query'
    | 'PutItem'
    | 'UpdateItem'
    | 'DeleteItem'
    | 'TransactWriteItems'
    | 'TransactGetItems'
    | 'BatchWriteItem'
    | 'Scan';
  start: number;
  end: number;
  readUnits: number;
  writeUnits: number;
}

let calls: DbCall[] = [];
/** Items returned by reads since the last reset (the listing bench reports it). */
let items = 0;

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const WRITE_OPS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

/** Notes a finished call; consumed capacity may be one object or a list (batch calls). */
export const recordCall = (
  op: DbCall['op'],
  start: number,
  end: number,
  consumed: unknown,
  itemCount = 0,
  written = 0,
  billed = 0,
): void => {
  items += itemCount;
  itemsWrittenSoFar += written;
  billedSoFar += billed;
  const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as Capacity[];
  let readUnits = 0;
  let writeUnits = 0;
  for (const c of list) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      readUnits += c.ReadCapacityUnits ?? 0;
      writeUnits += c.WriteCapacityUnits ?? 0;
    } else if (WRITE_OPS.has(op)) writeUnits += c.CapacityUnits ?? 0;
    else readUnits += c.CapacityUnits ?? 0;
  }
  calls.push({ op, start, end, readUnits, writeUnits });
};

/** Starts a fresh record of calls (one per request). */
export const resetCalls = (): void => {
  calls = [];
  items = 0;
  itemsWrittenSoFar = 0;
  billedSoFar = 0;
};

let itemsWrittenSoFar = 0;
let billedSoFar = 0;

/**
 * The write units DynamoDB would bill the writes since the last reset, counted from the requests
 * (each item one per KB started, twice in a transaction; updates and deletes as 1 KB items):
 * DynamoDB Local reports a transaction of 10 small puts as 4 units where DynamoDB bills 20.
 */
export const billedWriteUnits = (): number => billedSoFar;

/**
 * Items the writes since the last reset put, updated or deleted (what DynamoDB bills write units
 * for: one per started KB of each, twice inside a transaction). Counted from the requests, since
 * DynamoDB Local under-reports a transaction's consumed capacity.
 */
export const itemsWritten = (): number => itemsWrittenSoFar;

/**
 * Sequential round trips: the longest chain of calls each of which started after the one before
 * it ended (calls that overlap in time ran in parallel and count once; a pool of readers that
 * each send one page after another counts its longest run of pages). O(n log n): calls by start,
 * each one's chain is one more than the longest among the calls that ended before it started (a
 * Fenwick tree of maxima over the calls ranked by end).
 */
const longestChain = (all: readonly DbCall[]): number => {
  const byEnd = all.map((_, i) => i).sort((a, b) => (all[a] as DbCall).end - (all[b] as DbCall).end);
  const ends = byEnd.map((i) => (all[i] as DbCall).end);
  const rank = new Array<number>(all.length);
  for (const [r, i] of byEnd.entries()) rank[i] = r;
  const tree = new Array<number>(all.length + 1).fill(0);
  /** How many calls ended at or before `t`. */
  const endedBy = (t: number) => {
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let longest = 0;
  const byStart = all.map((_, i) => i).sort((a, b) => (all[a] as DbCall).start - (all[b] as DbCall).start);
  for (const i of byStart) {
    let before = 0;
    for (let k = endedBy((all[i] as DbCall).start); k > 0; k -= k & -k)
      before = Math.max(before, tree[k] as number);
    const depth = before + 1;
    for (let k = (rank[i] as number) + 1; k < tree.length; k += k & -k)
      tree[k] = Math.max(tree[k] as number, depth);
    longest = Math.max(longest, depth);
  }
  return longest;
};

/** Summary of the calls since the last reset. */
export const callSummary = () => {
  return {
    calls: calls.length,
    sequentialRoundTrips: longestChain(calls),
    readUnits: calls.reduce((s, c) => s + c.readUnits, 0),
    writeUnits: calls.reduce((s, c) => s + c.writeUnits, 0),
    ops: calls.map((c) => c.op),
  };
};

/** Items the reads since the last reset returned (Query, BatchGetItem, GetItem, TransactGetItems). */
export const itemsRead = (): number => items;
