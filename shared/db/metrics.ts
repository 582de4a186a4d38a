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
): void => {
  items += itemCount;
  itemsWrittenSoFar += written;
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
};

let itemsWrittenSoFar = 0;

/**
 * Items the writes since the last reset put, updated or deleted (what DynamoDB bills write units
 * for: one per started KB of each, twice inside a transaction). Counted from the requests, since
 * DynamoDB Local under-reports a transaction's consumed capacity.
 */
export const itemsWritten = (): number => itemsWrittenSoFar;

/** Summary of the calls since the last reset. */
export const callSummary = () => {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  // Sequential round trips: calls that overlap in time count once (they ran in parallel).
  let rounds = 0;
  let roundEnd = Number.NEGATIVE_INFINITY;
  for (const c of sorted) {
    if (c.start >= roundEnd) {
      rounds++;
      roundEnd = c.end;
    } else roundEnd = Math.max(roundEnd, c.end);
  }
  return {
    calls: calls.length,
    sequentialRoundTrips: rounds,
    readUnits: calls.reduce((s, c) => s + c.readUnits, 0),
    writeUnits: calls.reduce((s, c) => s + c.writeUnits, 0),
    ops: calls.map((c) => c.op),
  };
};

/** Items the reads since the last reset returned (Query, BatchGetItem, GetItem, TransactGetItems). */
export const itemsRead = (): number => items;
