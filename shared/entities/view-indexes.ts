import { createHash } from 'node:crypto';
import { ConflictError } from '#shared/core/errors.ts';
import {
  countBetween,
  deleteItem,
  deleteItems,
  getItem,
  type Item,
  putItem,
  queryAll,
  queryBetween,
  queryRange,
  type TransactOp,
  transact,
} from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { cutRunOf, isOfGroup, SORT_KEY_BUDGET, splitBoundOf } from '#shared/query/index-keys.ts';
import { count, text } from './attributes.ts';
import { recordAtVersionCheck } from './records.ts';

/**
 * A view index (`records/view-indexes.ts`) as stored:
 * - entries `VIDX#<view>` `<hash>#<order key>` (`keys.viewIndexEntry`): one per record that
 *   passes the view's filter, sorted by DynamoDB in the view's order; `id` the record, `k` the
 *   whole key when the order key was cut;
 * - the state `TABLE#<tbl>` `VIDXSTATE#<view>`: which index of the view is built, and the table's
 *   unmaintained-write count it was exact at (`baseline`);
 * - a build under way `TABLE#<tbl>` `VIDXBUILD#<view>`: the table's data-version counters when it
 *   began and how far it got (`IndexBuild`), so a build stopped part-way goes on;
 * - a build request `VIDXWANT` `<tbl>#<view>`: written by a listing that found no usable index,
 *   taken by the repair worker;
 * - for a grouped view, the count of each group tuple `VGRP#<view>` `<hash>#<hash of its key>#<nn>`, in
 *   8 shards a write adds to at random (the count is their sum): `g` the group key (the first part
 *   of its records' index keys, which orders the tuples), `r` the grouped cells of one of its
 *   records (for the headers' texts and values), `c` the count, `w` how many writes changed the
 *   tuple's entries.
 */
export interface IndexEntry {
  /** The entry's sort key (the order key, or its cut form). */
  sk: string;
  id: string;
  /** The whole order key, when `sk` is cut. */
  k?: string;
}

export interface IndexState {
  tableId: string;
  viewId: string;
  indexId: string;
  baseline: number;
  /** Entries when built, and the entry counter then: the count now is `entries + counter − counterBase`. */
  entries: number;
  counterBase: number;
  builtTime: string;
}

export interface IndexWant {
  tableId: string;
  viewId: string;
  indexId: string;
  requestedTime: string;
}

/** The item of an entry. */
export const indexEntryItem = (indexId: string, entry: IndexEntry): Item => ({
  ...keys.viewIndexEntry(indexId, entry.sk),
  type: 'viewIndexEntry',
  id: entry.id,
  ...(entry.k ? { k: entry.k } : {}),
});

const entryOf = (indexId: string, item: Item): IndexEntry => ({
  sk: keys.orderKeyOfIndexEntry(indexId, text(item.sk)),
  id: text(item.id),
  ...(typeof item.k === 'string' ? { k: item.k } : {}),
});

/** The put of an entry (undone by deleting it) and the reverse. */
export const putEntryOp = (indexId: string, entry: IndexEntry): TransactOp => ({
  put: indexEntryItem(indexId, entry),
});
export const deleteEntryOp = (indexId: string, sk: string): TransactOp => ({
  delete: keys.viewIndexEntry(indexId, sk),
});

const runOf = (entry: IndexEntry): string | undefined => cutRunOf(entry.sk);

/** Entries as read (in sort-key order) put in whole-key order: only runs of cut keys move. */
const inKeyOrder = (entries: IndexEntry[]): IndexEntry[] => {
  if (!entries.some((entry) => entry.k)) return entries;
  const whole = (entry: IndexEntry) => entry.k ?? entry.sk;
  return entries.sort((x, y) => (whole(x) < whole(y) ? -1 : whole(x) > whole(y) ? 1 : 0));
};

/**
 * The first `wanted` entries of an index in the view's order (strongly consistent), from the
 * first one or from the first whose sort key is at least `from`: read in sort-key order with,
 * past them, the rest of the run of cut keys the last one is in, then each such run ordered by
 * the whole keys.
 */
export const readIndexOrder = async (indexId: string, wanted: number, from?: string): Promise<IndexEntry[]> =>
  inKeyOrder(await readIndexEntries(indexId, wanted, from));

const readIndexEntries = async (indexId: string, wanted: number, from?: string): Promise<IndexEntry[]> => {
  const { pk, skPrefix } = keys.viewIndexEntriesOf(indexId);
  // this index's entries (order keys are printable ASCII, so DEL is past all of them)
  const range = { pk, from: `${skPrefix}${from ?? ''}`, to: `${skPrefix}\x7f` };
  const entries: IndexEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  if (wanted > 0) {
    const page = await queryBetween({ ...range, limit: wanted });
    for (const item of page.items) entries.push(entryOf(indexId, item));
    startKey = page.lastKey;
  }
  const last = entries[entries.length - 1];
  const run = last && runOf(last);
  while (run !== undefined && startKey) {
    const page = await queryBetween({ ...range, limit: 100, startKey });
    for (const item of page.items) {
      const next = entryOf(indexId, item);
      if (runOf(next) !== run) return entries;
      entries.push(next);
    }
    startKey = page.lastKey;
  }
  return entries;
};

/** Every entry key of an index (to empty it). */
export const indexEntryKeys = async (indexId: string): Promise<Key[]> =>
  (await queryAll({ ...keys.viewIndexEntriesOf(indexId), projection: ['pk', 'sk'] })).map((item) => ({
    pk: text(item.pk),
    sk: text(item.sk),
  }));

const stateOf = (item: Item): IndexState => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  baseline: count(item.baseline),
  entries: count(item.entries),
  counterBase: count(item.counterBase),
  builtTime: text(item.builtTime),
});

export const readIndexState = async (tableId: string, viewId: string): Promise<IndexState | undefined> => {
  const item = await getItem(keys.viewIndexState(tableId, viewId));
  return item ? stateOf(item) : undefined;
};

export const writeIndexState = (state: IndexState): Promise<void> =>
  putItem({ ...keys.viewIndexState(state.tableId, state.viewId), type: 'viewIndexState', ...state });

export const deleteIndexState = (tableId: string, viewId: string): Promise<void> =>
  deleteItem(keys.viewIndexState(tableId, viewId));

/**
 * A build under way (`records/view-index-build.ts`): the table's data-version counters when it
 * began (it is finished only if they have not moved), how many record segments it reads, how
 * many it has finished (their entries written and group counts added), which chunk of group
 * counts of the next segment comes next, and the entries written so far.
 */
export interface IndexBuild {
  tableId: string;
  viewId: string;
  indexId: string;
  versions: Record<string, number>;
  segments: number;
  /** How many of `recordSlices(segments × perSegment)` each segment reads at once. */
  perSegment: number;
  done: number;
  step: number;
  entries: number;
  /**
   * Set while the build puts a segment's entries without conditions (the table unwritten since the
   * build began), cleared by the segment's first group-count chunk: a build that resumes with it
   * set, after writes, cannot tell whether a write raced those puts, and begins again.
   */
  putting?: boolean;
  startedTime: string;
}

const buildOf = (item: Item): IndexBuild => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  versions: Object.fromEntries(
    Object.entries((item.versions ?? {}) as Record<string, unknown>).map(([name, value]) => [
      name,
      count(value),
    ]),
  ),
  segments: count(item.segments),
  perSegment: count(item.perSegment),
  done: count(item.done),
  step: count(item.step),
  entries: count(item.entries),
  ...(item.putting === true ? { putting: true } : {}),
  startedTime: text(item.startedTime),
});

export const readIndexBuild = async (tableId: string, viewId: string): Promise<IndexBuild | undefined> => {
  const item = await getItem(keys.viewIndexBuild(tableId, viewId));
  return item ? buildOf(item) : undefined;
};

export const writeIndexBuild = (build: IndexBuild): Promise<void> =>
  putItem({ ...keys.viewIndexBuild(build.tableId, build.viewId), type: 'viewIndexBuild', ...build });

export const deleteIndexBuild = (tableId: string, viewId: string): Promise<void> =>
  deleteItem(keys.viewIndexBuild(tableId, viewId));

/**
 * Moves a build on from where it was (`done` segments, `step` chunks of the next), on that
 * condition: to the next chunk of the same segment, or to the next segment with its entries
 * counted. Joined to the chunk's group-count additions, so each applies once.
 */
export const advanceBuildOp = (
  build: Pick<IndexBuild, 'tableId' | 'viewId' | 'indexId' | 'done' | 'step'>,
  next: { done: number; step: number; addEntries: number },
): TransactOp => ({
  update: {
    key: keys.viewIndexBuild(build.tableId, build.viewId),
    update: 'SET #done = :nd, #step = :ns ADD #entries :e REMOVE putting',
    condition: '#index = :i AND #done = :d AND #step = :s',
    names: { '#done': 'done', '#step': 'step', '#entries': 'entries', '#index': 'indexId' },
    values: {
      ':nd': next.done,
      ':ns': next.step,
      ':e': next.addEntries,
      ':i': build.indexId,
      ':d': build.done,
      ':s': build.step,
    },
  },
});

/** Notes that a build puts the entries of its next segment without conditions (`IndexBuild.putting`), on the condition of where it is. */
export const notePutting = (build: Pick<IndexBuild, 'tableId' | 'viewId' | 'indexId' | 'done' | 'step'>) =>
  transact(
    [
      {
        update: {
          key: keys.viewIndexBuild(build.tableId, build.viewId),
          update: 'SET putting = :t',
          condition: '#index = :i AND #done = :d AND #step = :s',
          names: { '#done': 'done', '#step': 'step', '#index': 'indexId' },
          values: { ':t': true, ':i': build.indexId, ':d': build.done, ':s': build.step },
        },
      },
    ],
    () => new ConflictError('the build moved on'),
  );

/** Deletes what a table holds about a view's indexes (its built state and any build under way): joined to the view's delete. */
export const viewIndexBookkeepingDeletes = (tableId: string, viewId: string): TransactOp[] => [
  { delete: keys.viewIndexState(tableId, viewId) },
  { delete: keys.viewIndexBuild(tableId, viewId) },
];

/**
 * Where an index's entry at `position` is (`at`, its sort key), noted by a listing that read up
 * to it, with the `signature` of the index then (its build and its maintained-write counter): a
 * later page of the same index, unchanged since, starts its walk there. Kept with the listing
 * orders (`QORDER#<tbl>`, which listings may write), for an hour.
 */
export interface IndexPosition {
  position: number;
  at: string;
  signature: string;
}

/** How long a noted index position may be used. */
const POSITION_TTL_SECONDS = 3_600;

/** The noted position of an index nearest at or before `atMost`, unless it has expired. */
export const readIndexPosition = async (
  tableId: string,
  indexId: string,
  atMost: number,
  now = Date.now(),
): Promise<IndexPosition | undefined> => {
  const bound = keys.viewIndexPosition(tableId, indexId, atMost + 1);
  const [item] = await queryRange({ pk: bound.pk, below: bound.sk, limit: 1 });
  if (!item || item.indexId !== indexId || count(item.expiresAt) <= Math.floor(now / 1000)) return undefined;
  return { position: count(item.position), at: text(item.at), signature: text(item.signature) };
};

export const writeIndexPosition = (
  tableId: string,
  indexId: string,
  noted: IndexPosition,
  now = Date.now(),
): Promise<void> =>
  putItem({
    ...keys.viewIndexPosition(tableId, indexId, noted.position),
    type: 'viewIndexPosition',
    indexId,
    ...noted,
    expiresAt: Math.floor(now / 1000) + POSITION_TTL_SECONDS,
  });

/** Asks for a view's index to be built (unconditional: the latest ask wins). */
export const wantIndex = (want: IndexWant): Promise<void> =>
  putItem({ ...keys.viewIndexWant(want.tableId, want.viewId), type: 'viewIndexWant', ...want });

const wantOf = (item: Item): IndexWant => ({
  tableId: text(item.tableId),
  viewId: text(item.viewId),
  indexId: text(item.indexId),
  requestedTime: text(item.requestedTime),
});

export const readIndexWants = async (): Promise<IndexWant[]> =>
  (await queryAll(keys.viewIndexWants())).map(wantOf);

/** Drops a build request, unless it was asked again since it was read. */
export const dropIndexWant = async (want: IndexWant): Promise<void> => {
  try {
    await transact(
      [
        {
          delete: keys.viewIndexWant(want.tableId, want.viewId),
          condition: 'requestedTime = :t',
          values: { ':t': want.requestedTime },
        },
      ],
      () => new ConflictError('asked again'),
    );
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
};

/** A group tuple of a grouped view index: its key, the grouped cells of one record, its count. */
export interface GroupCount {
  key: string;
  cells: Record<string, unknown>;
  count: number;
}

/** How many shards a group tuple's count has. */
export const GROUP_SHARDS = 8;

const groupHashOf = (groupKey: string): string =>
  createHash('sha256').update(groupKey).digest('base64url').slice(0, 22);

const groupCounterKey = (indexId: string, groupKey: string, shard: number): Key =>
  keys.viewGroupCounter(indexId, groupHashOf(groupKey), String(shard).padStart(2, '0'));

/**
 * Adds `delta` to a group tuple's count, on one of its shards, and 1 to the shard's write counter
 * `w` (a write that changes the tuple's entries, its count moved or not; a settle watches it).
 */
export const groupCountOp = (
  indexId: string,
  group: Omit<GroupCount, 'count'>,
  delta: number,
  shard: number,
): TransactOp => ({
  update: {
    key: groupCounterKey(indexId, group.key, shard),
    update: 'ADD #c :d, #w :one SET #g = :g, #r = if_not_exists(#r, :r), #t = :t',
    names: { '#c': 'c', '#w': 'w', '#g': 'g', '#r': 'r', '#t': 'type' },
    values: { ':d': delta, ':one': 1, ':g': group.key, ':r': group.cells, ':t': 'viewGroupCount' },
  },
});

/** A group tuple's count and how many writes changed its entries (its shards summed). */
export interface TupleTally {
  count: number;
  writes: number;
}

/** Reads one group tuple's shards (strongly consistent): its count and its write counter. */
export const readTupleCount = async (indexId: string, groupKey: string): Promise<TupleTally> => {
  const tally = { count: 0, writes: 0 };
  for (const item of await queryAll(keys.viewGroupCountersOfTuple(indexId, groupHashOf(groupKey)))) {
    tally.count += count(item.c);
    tally.writes += count(item.w);
  }
  return tally;
};

/**
 * Counts the entries of one group tuple (strongly consistent, page by page): those whose whole key
 * begins with its key (read from the sort keys that begin with as much of it as a sort key holds).
 */
export const countTupleEntries = async (indexId: string, groupKey: string): Promise<number> => {
  const { pk, skPrefix } = keys.viewIndexEntriesOf(indexId);
  const head = `${skPrefix}${groupKey.slice(0, SORT_KEY_BUDGET)}`;
  let entries = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await queryBetween({
      pk,
      from: head,
      to: `${head}\x7f`,
      projection: ['sk', 'k'],
      limit: 5_000,
      startKey,
    });
    for (const item of page.items) {
      const entry = entryOf(indexId, { ...item, id: '' });
      if (isOfGroup(entry.k ?? entry.sk, groupKey)) entries++;
    }
    startKey = page.lastKey;
  } while (startKey);
  return entries;
};

/** The group tuples of an index with records, in group order (their shards summed). */
export const readGroupCounts = async (indexId: string): Promise<GroupCount[]> =>
  (await readGroupTuples(indexId)).filter((group) => group.count > 0);

/** Every group tuple an index holds a count of (0 and below too), in group order (their shards summed). */
export const readGroupTuples = async (indexId: string): Promise<GroupCount[]> => {
  const byKey = new Map<string, GroupCount>();
  for (const item of await queryAll(keys.viewGroupCountersOf(indexId))) {
    const key = text(item.g);
    const seen = byKey.get(key);
    if (seen) seen.count += count(item.c);
    else
      byKey.set(key, {
        key,
        cells: typeof item.r === 'object' && item.r !== null ? (item.r as Record<string, unknown>) : {},
        count: count(item.c),
      });
  }
  return [...byKey.values()].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
};

/** How many entries of an index there are. */
export interface EntryTally {
  total: number;
  /** Sort keys of every `every`th entry: where a later tally may split its reads. */
  splits: string[];
}

/** How often a tally notes a sort key to split a later read at. */
export const TALLY_SPLIT_EVERY = 2_000;
/** How many ranges a tally reads at once. */
const TALLY_RANGES = 16;

/**
 * Counts an index's entries (strongly consistent, page by page: memory stays bounded). Given the
 * `splits` an earlier tally noted, reads up to 16 ranges between them at once (a tally is taken
 * in a moment without writes: the shorter, the likelier). It notes a split every `every` entries.
 */
export const tallyIndexEntries = async (
  indexId: string,
  splits: readonly string[] = [],
  every = TALLY_SPLIT_EVERY,
): Promise<EntryTally> => {
  const { pk, skPrefix } = keys.viewIndexEntriesOf(indexId);
  const step = Math.max(1, Math.ceil((splits.length + 1) / TALLY_RANGES));
  const bounds = splits.filter((_, i) => (i + 1) % step === 0);
  const ranges = [undefined, ...bounds].map((from, i) => ({ from, to: bounds[i] }));
  const counted = await Promise.all(
    ranges.map(async ({ from, to }) => {
      // a range ends before its bound (the next range's first key)
      const last = to === undefined ? undefined : `${skPrefix}${to}`;
      const notes: string[] = [];
      let seen = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await queryBetween({
          pk,
          from: `${skPrefix}${from ?? ''}`,
          to: last ?? `${skPrefix}\x7f`,
          projection: ['sk'],
          limit: 2_000,
          startKey,
        });
        for (const item of page.items) {
          if (item.sk === last) continue;
          if ((seen > 0 || from !== undefined) && seen % every === 0)
            notes.push(keys.orderKeyOfIndexEntry(indexId, text(item.sk)));
          seen++;
        }
        startKey = page.lastKey;
      } while (startKey);
      return { seen, notes };
    }),
  );
  return {
    total: counted.reduce((sum, range) => sum + range.seen, 0),
    splits: counted.flatMap((range) => range.notes),
  };
};

/**
 * Bounds that split an index's reads (`IndexSplits` key `VIDX#<view>` `<hash>!splits`), noted by
 * its build from a tally of its entries, about `every` entries apart then (writes since move
 * entries between them, never out of order): a deep page counts the entries between them at once
 * instead of walking them one page after another. At most `MAX_SPLITS` (thinned to fit an item).
 */
export interface IndexSplits {
  bounds: string[];
  every: number;
}

const MAX_SPLITS = 2_000;

/** Notes an index's split bounds (from sort keys in order), thinned to at most `MAX_SPLITS`. */
export const writeIndexSplits = (
  indexId: string,
  sortKeys: readonly string[],
  every: number,
): Promise<void> => {
  const step = Math.ceil(sortKeys.length / MAX_SPLITS) || 1;
  const bounds: string[] = [];
  for (let i = step - 1; i < sortKeys.length; i += step) {
    const bound = splitBoundOf(sortKeys[i] as string);
    if (bound > (bounds[bounds.length - 1] ?? '')) bounds.push(bound);
  }
  return putItem({ ...keys.viewIndexSplits(indexId), type: 'viewIndexSplits', bounds, every: every * step });
};

export const readIndexSplits = async (indexId: string): Promise<IndexSplits | undefined> => {
  const item = await getItem(keys.viewIndexSplits(indexId));
  if (!item || !Array.isArray(item.bounds)) return undefined;
  return { bounds: item.bounds.filter((b): b is string => typeof b === 'string'), every: count(item.every) };
};

/** How many entries of an index lie from bound `from` (the first entry when undefined) to below bound `below`. */
export const countIndexRange = (
  indexId: string,
  from: string | undefined,
  below: string,
): Promise<number> => {
  const { pk, skPrefix } = keys.viewIndexEntriesOf(indexId);
  return countBetween({ pk, from: `${skPrefix}${from ?? ''}`, to: keys.justBelow(`${skPrefix}${below}`) });
};

/**
 * Deletes an entry a build put for a record it read at a version a write has since replaced, on
 * the condition that the record is still as the build last read it (`version`; undefined: gone):
 * an entry a later write of the record puts at the same place then stays.
 */
export const staleEntryDeleteOps = (
  indexId: string,
  sk: string,
  record: { tableId: string; id: string; version: number | undefined },
): TransactOp[] => [
  recordAtVersionCheck(record.tableId, record.id, record.version),
  deleteEntryOp(indexId, sk),
];

/** Deletes every index of a view (entries and group counts, of its current query and of earlier ones). */
export const deleteViewIndexes = async (viewId: string): Promise<void> => {
  const items = await Promise.all(
    keys.viewIndexPartitionsOf(viewId).map((pk) => queryAll({ pk, projection: ['pk', 'sk'] })),
  );
  await deleteItems(
    items.flat().map((item) => ({ pk: text(item.pk), sk: text(item.sk) })),
    8,
  );
};
