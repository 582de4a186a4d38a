import {
  countBetween,
  deleteItems,
  getItem,
  type Item,
  putItem,
  queryAll,
  queryBetween,
  type TransactOp,
  writeItems,
} from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { cutRunOf, isOfGroup, SORT_KEY_BUDGET, splitBoundOf } from '#shared/query/index-keys.ts';
import { count, text } from './attributes.ts';
import { recordAtVersionCheck } from './records.ts';

/**
 * The entries of a view index (`records/view-indexes/upkeep.ts`), `VIDX#<view>` `<hash>#<order key>`
 * (`keys.viewIndexEntry`): one per record that passes the view's filter, sorted by DynamoDB in the
 * view's order; `id` the record, `k` the whole key when the order key was cut. Beside them (before
 * them in the partition) the bounds noted to split their reads (`IndexSplits`). The index's state,
 * build, noted positions and build requests are in `view-indexes.ts`; its group counts in
 * `view-index-groups.ts`.
 */
export interface IndexEntry {
  /** The entry's sort key (the order key, or its cut form). */
  sk: string;
  id: string;
  /** The whole order key, when `sk` is cut. */
  k?: string;
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

/**
 * Puts index entries without conditions, in batches (BatchWriteItem, 25 a call, 8 calls at a
 * time): not atomic, for a build that notes what it puts first.
 */
export const putEntriesPlainly = (indexId: string, entries: readonly IndexEntry[]): Promise<void> =>
  writeItems(entries.map((entry) => ({ put: indexEntryItem(indexId, entry) })));
