/**
 * A view's own query from the view's index (`records/view-indexes/`): a page read from its
 * entries (walked, jumped to through the split bounds, or by way of the group counts), exact only
 * when no write since its build left it unkept; else the index is asked for and the caller takes
 * another path.
 */
import { logger } from '#shared/core/logger.ts';
import { unmaintainedWrites } from '#shared/db/data-versions.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import {
  countIndexRange,
  type IndexEntry,
  type IndexSplits,
  readIndexOrder,
  readIndexSplits,
} from '#shared/entities/view-index-entries.ts';
import { type GroupCount, readGroupCounts } from '#shared/entities/view-index-groups.ts';
import {
  type IndexState,
  readIndexPosition,
  readIndexState,
  wantIndex,
  writeIndexPosition,
} from '#shared/entities/view-indexes.ts';
import { groupPointsOfTuples, pageStretches } from '#shared/query/groups.ts';
import { isCut } from '#shared/query/index-keys.ts';
import type { QueryResult } from '#shared/query/query-types.ts';
import { type ViewIndex, viewIndexOf } from '#shared/records/view-indexes/upkeep.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { noteIndexAsked } from './list-general.ts';
import { type ListAnswer, type ListContext, pageAnswer, queryContext } from './list-page.ts';
import type { ListParams } from './params.ts';
import type { ListPlan } from './resolve.ts';

/**
 * The view index that answers a listing: the view's own, when the listing asks exactly the view's
 * query (nothing added by the request: its `groupBy` is the view's group) without search.
 * Collapsed headers are answered from the group counts (`listIndexedByTuples`).
 */
export const indexServing = (schema: TableSchema, plan: ListPlan): ViewIndex | undefined => {
  const index = viewIndexOf(schema, plan.view);
  if (!index || plan.query.search) return undefined;
  const asked = { filter: plan.query.filter ?? null, sort: plan.query.sort, groupBy: plan.query.groupBy };
  const kept = { filter: index.query.filter ?? null, sort: index.query.sort, groupBy: index.query.groupBy };
  return JSON.stringify(asked) === JSON.stringify(kept) ? index : undefined;
};

/**
 * A page of a view from its index: the data version, the index's state and the entries up to the
 * page's end are read in one round; when the index is exact (built for this query, and no write
 * since that did not keep it), the page is those entries' records. Else undefined, after asking
 * for the index to be built (the caller answers through the general path).
 */
export const listIndexed = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  index: ViewIndex,
): Promise<ListAnswer | undefined> => {
  const from = plan.query.skip;
  const to = from + plan.query.take;
  const collapsed = collapsedOf(plan);
  if (index.groupOf && (from >= jumpFrom || collapsed.size > 0))
    return listIndexedByTuples(ctx, params, plan, index, collapsed);
  if (!index.groupOf && from >= jumpFrom) return listIndexedFromPosition(ctx, params, plan, index);
  // an ungrouped index reads one entry past the page: where the next page starts, noted if deep
  const read = await whenExact(
    ctx,
    index,
    Promise.all([readIndexOrder(index.indexId, index.groupOf ? to : to + 1), indexedGroups(ctx, index)]),
  );
  if (!read) return undefined;
  const [entries, groups] = read.with;
  return entriesPage(ctx, params, plan, index, read.signature, { entries, start: 0, groups });
};

/**
 * A deep page of an ungrouped view from its index: the position a page before it noted (the
 * nearest at or before the page, read with the version, the state and the index's split bounds)
 * is where the walk starts when the index has not changed since; else from the first entry.
 * Scrolling down a grid reads each page's entries once: authentication + 3 round trips. A page
 * farther than a split from where it would start (a jump) counts the entries between the bounds
 * before it, all at once, while reading the entries after them (`jumpTo`): authentication + 3
 * round trips when writes have not moved it out of the range expected. The page notes where the
 * next starts.
 */
const listIndexedFromPosition = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  index: ViewIndex,
): Promise<ListAnswer | undefined> => {
  const from = plan.query.skip;
  const to = from + plan.query.take;
  const read = await whenExact(
    ctx,
    index,
    Promise.all([
      readIndexPosition(ctx.schema.table.id, index.indexId, from),
      readIndexSplits(index.indexId),
    ]),
  );
  if (!read) return undefined;
  const [position, splits] = read.with;
  const noted = position?.signature === read.signature ? position : undefined;
  const start: Start = noted ? { position: noted.position, at: noted.at } : { position: 0 };
  const jumped =
    splits && from - start.position > splits.every ? await jumpTo(index, splits, start, from, to) : undefined;
  const { entries, first } = jumped ?? {
    entries: await readIndexOrder(index.indexId, to + 1 - start.position, start.at),
    first: start.position,
  };
  return entriesPage(ctx, params, plan, index, read.signature, {
    entries,
    start: first,
    groups: { groupPoints: null },
  });
};

/** Where a read of an index's entries starts: at a position, from a sort key (the first entry without). */
interface Start {
  position: number;
  at?: string;
}

/** At most this many ranges of an index are counted at once. */
const RANGES_AT_ONCE = 32;

/**
 * The entries of an index from a split bound at or before position `from` up to `to` (and one
 * more), and the position of the first: found from `start` by counting the entries between the
 * bounds expected before `from` (the bounds were `every` entries apart when noted), all at once
 * and merged so that they are at most `RANGES_AT_ONCE`, while the entries after the last of them
 * are read alongside (one range and the page). When writes moved the page elsewhere: farther, the
 * ranges expected in what is left, the same way; nearer, the entries from the bound before it (a
 * round more). Reads the entries before the page as a walk would (a count reads them), up to a
 * range more, in fewer rounds: authentication + 3 round trips when the page is where expected.
 */
const jumpTo = async (
  index: ViewIndex,
  splits: IndexSplits,
  start: Start,
  from: number,
  to: number,
): Promise<{ entries: IndexEntry[]; first: number }> => {
  const bounds = splits.bounds.filter((bound) => start.at === undefined || bound > start.at);
  const every = Math.max(1, splits.every);
  const merge = Math.max(1, Math.ceil(Math.floor((from - start.position) / every) / RANGES_AT_ONCE));
  const merged = bounds.filter((_, i) => (i + 1) % merge === 0);
  let at = start;
  for (let i = 0; i < merged.length; ) {
    const expected = Math.floor((from - at.position) / (every * merge));
    if (expected < 1) break;
    const wave = merged.slice(i, i + Math.min(expected, RANGES_AT_ONCE));
    const wanted = every * merge + (to - from) + 1;
    const [counts, ahead] = await Promise.all([
      Promise.all(
        wave.map((below, j) => countIndexRange(index.indexId, j === 0 ? at.at : wave[j - 1], below)),
      ),
      readIndexOrder(index.indexId, wanted, wave[wave.length - 1]),
    ]);
    for (const [j, n] of counts.entries()) {
      // the page begins in this range: read from its bound
      if (at.position + n > from)
        return {
          entries: await readIndexOrder(index.indexId, to + 1 - at.position, at.at),
          first: at.position,
        };
      at = { position: at.position + n, at: wave[j] };
    }
    // past the last bound counted: the page is in what was read alongside, unless writes moved it farther
    if (to + 1 - at.position <= ahead.length || ahead.length < wanted)
      return { entries: ahead, first: at.position };
    i += wave.length;
  }
  return { entries: await readIndexOrder(index.indexId, to + 1 - at.position, at.at), first: at.position };
};

/**
 * The page of an index whose entries were read from position `start` on: its records rendered,
 * and, for an ungrouped index, where the next page starts noted.
 */
const entriesPage = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  index: ViewIndex,
  signature: string,
  read: {
    entries: readonly { id: string; sk: string }[];
    start: number;
    groups: Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs'>;
  },
): Promise<ListAnswer> => {
  const { entries, start } = read;
  const from = plan.query.skip;
  const to = from + plan.query.take;
  const ids = entries.slice(from - start, to - start).map((entry) => entry.id);
  const [answer] = await Promise.all([
    pageAnswer(ctx, params, plan, { ids, ...read.groups }),
    index.groupOf ? undefined : notePosition(ctx, index, signature, to, entries[to - start]),
  ]);
  return answer;
};

/**
 * Notes where an index's entry at `position` is, for a later page to start its walk there: only
 * deep enough to save a walk, and not at a cut key (its run is ordered when read). A failure to
 * note is logged: the next page walks.
 */
const notePosition = async (
  ctx: ListContext,
  index: ViewIndex,
  signature: string,
  position: number,
  entry: { sk: string } | undefined,
): Promise<void> => {
  if (!entry || position < jumpFrom || isCut(entry.sk)) return;
  await writeIndexPosition(ctx.schema.table.id, index.indexId, { position, at: entry.sk, signature }).catch(
    (error: unknown) => {
      logger.warn('noting a view index position failed', { tableId: index.tableId, error: String(error) });
    },
  );
};

/**
 * Reads whether a view's index is exact (the data version and its state) in one round with
 * `alongside`: its result and the index's entry count when exact; else undefined, after asking
 * for the index to be built.
 */
export const whenExact = async <T>(
  ctx: ListContext,
  index: ViewIndex,
  alongside: Promise<T>,
): Promise<{ with: T; count: number; signature: string } | undefined> => {
  const tableId = ctx.schema.table.id;
  const [versions, state, result] = await Promise.all([
    readDataVersions([tableId]),
    readIndexState(tableId, index.viewId),
    alongside,
  ]);
  const counters = versions.get(tableId);
  const count = indexedCount(index, counters, state);
  // what changes the index's entries: a build, or a write that keeps it
  if (count !== undefined && state)
    return { with: result, count, signature: `${state.builtTime} ${counters?.get(index.mark) ?? 0}` };
  await askForIndex(ctx, index);
  return undefined;
};

/**
 * How deep a page of a grouped view starts for it to jump to its group instead of walking the
 * entries before it: past about one Query page of entries (1 MB, ~3,000 entries of ~300 bytes),
 * where the walk would take more round trips than the jump's one more.
 */
let jumpFrom = 2_000;
/** Test seam: sets how deep a grouped page starts for it to jump. */
export const jumpDeepPagesFrom = (skip: number) => {
  jumpFrom = skip;
};

/** The headers a listing collapses (none without groups: an ungrouped listing has no headers). */
export const collapsedOf = (plan: ListPlan): ReadonlySet<string> =>
  new Set(plan.query.groupBy.length ? plan.query.collapsedGroupIds : []);

/**
 * A page of a grouped view from its index by way of its group counts, for a deep page or one with
 * collapsed headers: the counts (read with the version and the state) tell which group tuples hold
 * the page's rows, leaving out those under a collapsed header, and how many rows come before each;
 * each run of consecutive visible tuples the page overlaps is read from its first tuple's group
 * key (every entry of a tuple starts with it), in parallel, so only the entries of that tuple before
 * the page are walked. Authentication + 3 round trips.
 */
const listIndexedByTuples = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  index: ViewIndex,
  collapsed: ReadonlySet<string>,
): Promise<ListAnswer | undefined> => {
  const from = plan.query.skip;
  const take = plan.query.take;
  const read = await whenExact(ctx, index, readGroupCounts(index.indexId));
  if (!read) return undefined;
  const tuples = read.with;
  const walk = groupsOf(ctx, index, tuples, collapsed);
  const { stretches } = pageStretches(
    tuples.map((tuple) => tuple.count),
    walk.visible,
    from,
    from + take,
  );
  const keyOf = (tuple: number) => (tuples[tuple] as GroupCount).key;
  let ids: string[];
  if (stretches.every((stretch) => !isCut(keyOf(stretch.tuple)))) {
    const reads = await Promise.all(
      stretches.map((stretch) =>
        readIndexOrder(index.indexId, stretch.skip + stretch.take, keyOf(stretch.tuple)),
      ),
    );
    ids = stretches.flatMap((stretch, k) =>
      (reads[k] ?? []).slice(stretch.skip, stretch.skip + stretch.take).map((entry) => entry.id),
    );
  } else if (collapsed.size === 0) {
    // a group key longer than a sort key holds: walk from the first entry
    ids = (await readIndexOrder(index.indexId, from + take))
      .slice(from, from + take)
      .map((entry) => entry.id);
  } else return undefined; // collapsed headers over a cut group key: the general path answers
  return pageAnswer(ctx, params, plan, { ids, ...walk });
};

/** A grouped index's group points, from its group counts (none for an index without groups). */
const indexedGroups = async (
  ctx: ListContext,
  index: ViewIndex,
): Promise<Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs'>> =>
  index.groupOf ? groupsOf(ctx, index, await readGroupCounts(index.indexId)) : { groupPoints: null };

export const groupsOf = (
  ctx: ListContext,
  index: ViewIndex,
  tuples: readonly GroupCount[],
  collapsed: ReadonlySet<string> = new Set(),
) => groupPointsOfTuples(tuples, index.query.groupBy, queryContext(ctx, undefined), collapsed);

/**
 * How many entries an index holds, when it is exact: built for this query, and no write since
 * that did not keep it (its counter and the table's moved alike). Else undefined. Pure.
 */
const indexedCount = (
  index: ViewIndex,
  counters: ReadonlyMap<string, number> | undefined,
  state: IndexState | undefined,
): number | undefined => {
  if (!state || state.indexId !== index.indexId) return undefined;
  const now = counters ?? new Map<string, number>();
  if (unmaintainedWrites(now, index.mark) !== state.baseline) return undefined;
  return state.entries + (now.get(index.counter) ?? 0) - state.counterBase;
};

/** Asks the repair worker to build a view's index (a failure to ask is logged: the next listing asks again). */
const askForIndex = (ctx: ListContext, index: ViewIndex): Promise<void> => {
  noteIndexAsked(ctx);
  return wantIndex({
    tableId: index.tableId,
    viewId: index.viewId,
    indexId: index.indexId,
    requestedTime: (ctx.now ?? new Date()).toISOString(),
  }).catch((error: unknown) => {
    logger.warn('asking for a view index failed', { tableId: index.tableId, error: String(error) });
  });
};
