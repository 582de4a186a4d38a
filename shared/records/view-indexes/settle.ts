/**
 * The settle of a view index build that writes raced (`build.ts`): writes keep an
 * index during its build as after it, but a write's group-count additions for records the build
 * had not read yet counted them twice, and its removals for them counted them away. So the counts
 * and the entry total are made exact at the end:
 * - each group tuple on its own (`settleTuple`): its count and write counter read, its entries
 *   counted, its shards read again; if no write changed its entries meanwhile (every write that
 *   does adds to the tuple's write counter, a move within it too), the count is corrected by the
 *   difference (an addition, which later writes' additions do not disturb);
 * - then the total, at a moment no write changed what the index reads (the counters of record
 *   puts and deletes and of the attributes it reads the same before and after): the sum of the
 *   counts, or for a view without groups the entries tallied (`tallyIndexEntries`, in up to 16
 *   ranges at once from the second try).
 *
 * No journaled write that changes this table's records may be open meanwhile (its transactions may
 * keep a record's entries and its group counts apart; `hasOpenWrites` also sees a write of another
 * table that reaches this one through links or lookups). Journaled writes of unrelated tables do
 * not hold it up. A tuple or
 * (without groups) an index written without a pause for as long as counting it takes keeps the
 * build waiting, and listings on the general path.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { hasOpenWrites, transact } from '#shared/db/commit.ts';
import { counterOf, unmaintainedWrites, WHOLE } from '#shared/db/data-versions.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import {
  countTupleEntries,
  TALLY_SPLIT_EVERY,
  tallyIndexEntries,
} from '#shared/entities/view-index-entries.ts';
import {
  type GroupCount,
  groupCountOp,
  readGroupTuples,
  readTupleCount,
} from '#shared/entities/view-index-groups.ts';
import type { ViewIndex } from './upkeep.ts';

/** A table's data-version counters (`db/data-versions.ts`). */
export type Counters = ReadonlyMap<string, number>;

/** Reads the table's data-version counters. */
export const countersOf = async (tableId: string): Promise<Counters> =>
  (await readDataVersions([tableId])).get(tableId) ?? new Map<string, number>();

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a build waits before a look at the data version, for writes just made to move it. */
export const SETTLE_MS = 300;
/** How many moments without writes a settle looks for in one run. */
const SETTLE_TRIES = 4;

/** Test seams: runs in a settle between its first look and its count; how far apart tallies note splits. */
let beforeCount: ((tuple?: Record<string, unknown>) => Promise<void>) | undefined;
let splitEvery = TALLY_SPLIT_EVERY;

/** Test seam (set through `buildInPieces`). */
export const settleInPieces = (options: {
  beforeCount?: (tuple?: Record<string, unknown>) => Promise<void>;
  splitEvery: number;
}) => {
  beforeCount = options.beforeCount;
  splitEvery = options.splitEvery;
};

/** What a settle found: the entries and the entry counter at one moment, and the counters then. */
export interface Settled {
  entries: number;
  counterBase: number;
  counters: Counters;
  /** For an index without groups, the sort keys its tally noted (`writeIndexSplits`). */
  splits?: string[];
}

/**
 * Whether a write that may change an index's entries came between two reads of the counters:
 * a record put or deleted, or an attribute the index reads updated.
 */
const entriesMayHaveMoved = (index: ViewIndex, a: Counters, b: Counters): boolean =>
  [WHOLE, ...index.attributes.map(counterOf)].some((name) => (a.get(name) ?? 0) !== (b.get(name) ?? 0));

/**
 * Settles a build that writes raced (see the file comment): a grouped view's counts tuple by tuple
 * (`settleTuple`), then the entry total at a moment no write changed what the index reads: the
 * sum of the settled counts, or the entries tallied for a view without groups. Answers what it
 * found; 'unmaintained' when a write did not keep the index; undefined when a tuple or the total
 * found no such moment before `deadline` in `SETTLE_TRIES` looks.
 */
export const settle = async (
  index: ViewIndex,
  begun: Counters,
  deadline: number,
): Promise<Settled | 'unmaintained' | undefined> => {
  if (index.groupOf && !(await settleTuples(index, deadline))) return undefined;
  // where the last tally noted its reads may split, so the next one reads in parallel
  let splits: string[] = [];
  for (let attempt = 0; attempt < SETTLE_TRIES && Date.now() < deadline; attempt++) {
    if (attempt) await sleep(SETTLE_MS * 2 ** attempt);
    const [first, open] = await Promise.all([countersOf(index.tableId), hasOpenWrites(index.tableId)]);
    if (unmaintainedWrites(first, index.mark) !== unmaintainedWrites(begun, index.mark))
      return 'unmaintained';
    if (open) continue;
    let entries: number;
    if (index.groupOf) entries = (await readGroupTuples(index.indexId)).reduce((sum, t) => sum + t.count, 0);
    else {
      await beforeCount?.();
      const tally = await tallyIndexEntries(index.indexId, splits, splitEvery);
      splits = tally.splits;
      entries = tally.total;
    }
    const [last, stillOpen] = await Promise.all([countersOf(index.tableId), hasOpenWrites(index.tableId)]);
    if (entriesMayHaveMoved(index, first, last) || stillOpen) continue;
    return {
      entries,
      counterBase: first.get(index.counter) ?? 0,
      counters: first,
      ...(index.groupOf ? {} : { splits }),
    };
  }
  return undefined;
};

/** How many group tuples a settle counts at once. */
const TUPLES_AT_ONCE = 8;

/**
 * Settles every group tuple of an index (`settleTuple`), 8 at once, trying those that met writes
 * again, up to `SETTLE_TRIES` rounds before `deadline`. Answers whether all settled. A tuple
 * created meanwhile needs none: its entries all came with writes that counted them.
 */
const settleTuples = async (index: ViewIndex, deadline: number): Promise<boolean> => {
  let left = await readGroupTuples(index.indexId);
  for (let attempt = 0; attempt < SETTLE_TRIES && left.length && Date.now() < deadline; attempt++) {
    if (attempt) await sleep(SETTLE_MS * 2 ** attempt);
    const queue = [...left];
    const failed: GroupCount[] = [];
    const worker = async () => {
      for (let tuple = queue.shift(); tuple; tuple = queue.shift())
        if (!(await settleTuple(index, tuple))) failed.push(tuple);
    };
    await Promise.all(Array.from({ length: TUPLES_AT_ONCE }, worker));
    left = failed;
  }
  return left.length === 0;
};

/**
 * Settles one group tuple's count: its shards read, its entries counted, its shards read again;
 * when no write changed the tuple's entries in between (its write counter the same, and no
 * journaled write of the table open, which may keep a record's entry and its tuple's count apart), the count
 * is corrected by the difference (an addition, which later writes' additions do not disturb).
 * Answers whether it settled.
 */
const settleTuple = async (index: ViewIndex, tuple: GroupCount): Promise<boolean> => {
  const [before, open] = await Promise.all([
    readTupleCount(index.indexId, tuple.key),
    hasOpenWrites(index.tableId),
  ]);
  if (open) return false;
  await beforeCount?.(tuple.cells);
  const entries = await countTupleEntries(index.indexId, tuple.key);
  const [after, stillOpen] = await Promise.all([
    readTupleCount(index.indexId, tuple.key),
    hasOpenWrites(index.tableId),
  ]);
  if (stillOpen || after.writes !== before.writes) return false;
  if (entries !== before.count)
    await transact(
      [groupCountOp(index.indexId, tuple, entries - before.count, 0)],
      () => new ConflictError('never'),
    );
  return true;
};
