import { createHash } from 'node:crypto';
import { queryAll, type TransactOp } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { count, text } from './attributes.ts';

/**
 * The group counts of a grouped view index (`records/view-indexes/upkeep.ts`): per group tuple
 * `VGRP#<view>` `<hash>#<hash of its key>#<nn>`, in 8 shards a write adds to at random (the count
 * is their sum): `g` the group key (the first part of its records' index keys, which orders the
 * tuples), `r` the grouped cells of one of its records (for the headers' texts and values), `c`
 * the count, `w` how many writes changed the tuple's entries.
 */
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
