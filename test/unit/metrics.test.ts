import { beforeEach, describe, expect, it } from 'vitest';
import { callSummary, recordCall, resetCalls } from '#shared/db/metrics.ts';

beforeEach(() => {
  resetCalls();
});

describe('callSummary round trips', () => {
  it('is all zero with no calls', () => {
    expect(callSummary()).toStrictEqual({
      calls: 0,
      sequentialRoundTrips: 0,
      readUnits: 0,
      writeUnits: 0,
      ops: [],
    });
  });

  it.each([
    ['one call', [[0, 10]], 1],
    [
      'two overlapping calls',
      [
        [0, 10],
        [5, 15],
      ],
      1,
    ],
    [
      'two calls started together',
      [
        [0, 10],
        [0, 10],
      ],
      1,
    ],
    [
      'a call inside another',
      [
        [0, 20],
        [5, 10],
      ],
      1,
    ],
    [
      'two sequential calls',
      [
        [0, 10],
        [10, 20],
      ],
      2,
    ],
    [
      'two calls with a gap',
      [
        [0, 10],
        [15, 20],
      ],
      2,
    ],
    [
      'a parallel pair, then one call',
      [
        [0, 10],
        [2, 8],
        [12, 20],
      ],
      2,
    ],
    [
      'a chain where each overlaps the next, the third after the first',
      [
        [0, 10],
        [9, 19],
        [18, 28],
      ],
      2,
    ],
    [
      'a chain where each overlaps the next and all overlap',
      [
        [0, 10],
        [5, 19],
        [9, 28],
      ],
      1,
    ],
    [
      'a pool of two readers, three pages each, staggered',
      [
        [0, 10],
        [5, 15],
        [10, 20],
        [15, 25],
        [20, 30],
        [25, 35],
      ],
      3,
    ],
    [
      'three sequential calls recorded out of order',
      [
        [20, 30],
        [0, 10],
        [10, 20],
      ],
      3,
    ],
  ] as const)('%s → %i round trips', (_what, spans, rounds) => {
    for (const [start, end] of spans) recordCall('GetItem', start, end, undefined);

    const summary = callSummary();

    expect(summary.sequentialRoundTrips).toBe(rounds);
    expect(summary.calls).toBe(spans.length);
  });

  it('lists the operations in the order they were recorded', () => {
    recordCall('BatchGetItem', 0, 5, undefined);
    recordCall('Query', 6, 9, undefined);
    recordCall('TransactWriteItems', 10, 20, undefined);

    expect(callSummary().ops).toStrictEqual(['BatchGetItem', 'Query', 'TransactWriteItems']);
  });

  it('starts over after resetCalls', () => {
    recordCall('GetItem', 0, 1, { CapacityUnits: 1 });

    resetCalls();

    expect(callSummary()).toMatchObject({ calls: 0, sequentialRoundTrips: 0, readUnits: 0 });
  });
});

describe('callSummary capacity units', () => {
  it.each([
    ['a read with one ConsumedCapacity object', 'GetItem', { TableName: 't', CapacityUnits: 1 }, 1, 0],
    ['a query with a fraction', 'Query', { TableName: 't', CapacityUnits: 0.5 }, 0.5, 0],
    ['a write with one ConsumedCapacity object', 'PutItem', { TableName: 't', CapacityUnits: 2 }, 0, 2],
    ['an update', 'UpdateItem', { CapacityUnits: 1 }, 0, 1],
    ['a delete', 'DeleteItem', { CapacityUnits: 1 }, 0, 1],
    [
      'a batch read with a list',
      'BatchGetItem',
      [
        { TableName: 't', CapacityUnits: 3 },
        { TableName: 'u', CapacityUnits: 1.5 },
      ],
      4.5,
      0,
    ],
    ['a transaction with a list', 'TransactWriteItems', [{ TableName: 't', CapacityUnits: 6 }], 0, 6],
    ['a batch write with a list', 'BatchWriteItem', [{ CapacityUnits: 25 }], 0, 25],
    [
      'split read and write units win over CapacityUnits',
      'TransactWriteItems',
      { CapacityUnits: 10, ReadCapacityUnits: 4, WriteCapacityUnits: 6 },
      4,
      6,
    ],
    ['only read units given on a write op', 'UpdateItem', { ReadCapacityUnits: 1 }, 1, 0],
    ['no ConsumedCapacity', 'GetItem', undefined, 0, 0],
    ['an empty list', 'BatchGetItem', [], 0, 0],
    ['an entry without units', 'GetItem', { TableName: 't' }, 0, 0],
  ] as const)('%s → %d read, %d write', (_what, op, consumed, read, write) => {
    recordCall(op, 0, 1, consumed);

    const summary = callSummary();

    expect(summary.readUnits).toBe(read);
    expect(summary.writeUnits).toBe(write);
  });

  it('sums units over every call', () => {
    recordCall('BatchGetItem', 0, 5, [{ CapacityUnits: 2 }, { CapacityUnits: 1 }]);
    recordCall('GetItem', 0, 5, { CapacityUnits: 0.5 });
    recordCall('TransactWriteItems', 6, 10, [{ CapacityUnits: 4 }]);
    recordCall('PutItem', 11, 12, { CapacityUnits: 1 });

    expect(callSummary()).toStrictEqual({
      calls: 4,
      sequentialRoundTrips: 3,
      readUnits: 3.5,
      writeUnits: 5,
      ops: ['BatchGetItem', 'GetItem', 'TransactWriteItems', 'PutItem'],
    });
  });
});
