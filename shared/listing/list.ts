import { logger } from '#shared/core/logger.ts';
import { unmaintainedWrites } from '#shared/db/data-versions.ts';
import { noteSlowBecause } from '#shared/db/request-scope.ts';
import { ORDER_CHUNK, readKeptOrder, writeKeptOrder } from '#shared/entities/query-orders.ts';
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
import type { Field } from '#shared/fields/field-types.ts';
import { queryFieldIds, runQuery, searchHits } from '#shared/query/engine.ts';
import { groupPointsOfTuples, pageStretches } from '#shared/query/groups.ts';
import { isCut } from '#shared/query/index-keys.ts';
import type { QueryResult, Row } from '#shared/query/query-types.ts';
import { linkTitlesFor } from '#shared/records/links.ts';
import { renderRecords } from '#shared/records/read.ts';
import {
  readAllRecords,
  readRecordParts,
  readRecords,
  rowAttributes,
  slicesFor,
  toRow,
} from '#shared/records/rows.ts';
import { type ViewIndex, viewIndexOf } from '#shared/records/view-indexes.ts';
import type { FieldKeyType } from '#shared/schema/schema.ts';
import { primaryField, type TableSchema } from '#shared/schema/schema.ts';
import { isKeepable, keptOrderKey, LOOKAHEAD_PAGES, signatureOf } from './kept-orders.ts';
import type { ListParams } from './params.ts';
import {
  candidateFilter,
  candidateRule,
  findPickerLink,
  linkCellIds,
  linkedThroughColumn,
  type PickerLink,
} from './pickers.ts';
import { type ListPlan, planListing } from './resolve.ts';
import { viewOrderPage } from './view-order.ts';

export interface ListContext {
  schema: TableSchema;
  userId: string;
  canUpdate: boolean;
  canDelete: boolean;
  now?: Date;
}

export interface ListAnswer {
  records: ReturnType<typeof renderRecords> extends Promise<infer R> ? R : never;
  extra: Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs' | 'searchHitIndex'>;
}

/**
 * Reads the page's records in the given order and renders them. On the general path this reads
 * the page a second time (the query read only the attributes it filters, sorts and groups on), on
 * purpose: reading every record whole so the page could come from that one read costs the same
 * read units (a Query bills the items' size, whatever the projection) but took 2.2–2.3 times as
 * long for a 10,000 × 50 table (880–920 ms against 385–426 ms; 21.9 MB of JSON against 1.7 MB),
 * for one round trip saved. Measured by `npm run bench` (listing: "the general path's read"),
 * 2026-11-26.
 */
const renderPage = async (
  ctx: ListContext,
  params: ListParams,
  plan: Pick<ListPlan, 'projection'>,
  ids: readonly string[],
) => renderRecords(ctx.schema, await readPage(ctx, plan, ids), renderOptions(ctx, params, plan));

/** The page's records: whole, or the primary field, the projection and `alsoCells`. */
const readPage = (
  ctx: ListContext,
  plan: Pick<ListPlan, 'projection'>,
  ids: readonly string[],
  alsoCells: Iterable<string> = [],
) =>
  readRecords(
    ctx.schema.table.id,
    ids,
    plan.projection
      ? [...new Set([primaryField(ctx.schema).id, ...plan.projection, ...alsoCells])]
      : undefined,
  );

const renderOptions = (ctx: ListContext, params: ListParams, plan: Pick<ListPlan, 'projection'>) => ({
  keyType: params.fieldKeyType as FieldKeyType,
  cellFormat: params.cellFormat,
  projection: plan.projection,
  canUpdate: ctx.canUpdate,
  canDelete: ctx.canDelete,
});

/** What the engine needs besides the rows: the fields, the caller, now and link titles. */
const queryContext = (ctx: ListContext, titles: Awaited<ReturnType<typeof linkTitlesFor>> | undefined) => ({
  fields: new Map(ctx.schema.fields.map((f) => [f.id, f])),
  userId: ctx.userId,
  now: ctx.now ?? new Date(),
  linkTitle: (fieldId: string, recordId: string) => titles?.linkTitle(fieldId, recordId),
});

/**
 * The page's records rendered, and the search hits among them (a kept order's page: the hits
 * are found on the page's records, read with the searched cells).
 */
const renderPageWithHits = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  ids: readonly string[],
) => {
  const { schema } = ctx;
  const search = plan.query.search;
  if (!search) return { records: await renderPage(ctx, params, plan, ids), hits: null };
  const searched = new Set(search.fieldIds);
  const items = await readPage(ctx, plan, ids, searched);
  const fields = schema.fields.filter((f) => searched.has(f.id));
  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link').map((f) => f.id));
  const [records, titles] = await Promise.all([
    renderRecords(schema, items, renderOptions(ctx, params, plan)),
    linkFieldIds.size ? linkTitlesFor(schema, items, linkFieldIds) : undefined,
  ]);
  const hits = searchHits(
    items.map((item) => toRow(item, fields, plan.view.id)),
    search,
    queryContext(ctx, titles),
  );
  return { records, hits };
};

const NO_EXTRA: ListAnswer['extra'] = { groupPoints: null, searchHitIndex: null };

/** Lists records per the contract; see the file comment for how. */
export const listRecords = async (ctx: ListContext, params: ListParams): Promise<ListAnswer> => {
  const { schema } = ctx;
  const tableId = schema.table.id;
  const link = await pickerOf(ctx, params);
  const plan = planListing(schema, params, pickerFilter(ctx, params, link));

  // The records in one cell, in the cell's order: view, filter and sort do not apply.
  if (params.filterLinkCellSelected?.recordId && link) {
    const cell = await linkCellIds(link, params.filterLinkCellSelected.recordId);
    const ids = cell.slice(params.skip, params.skip + params.take);
    return { records: await renderPage(ctx, params, plan, ids), extra: NO_EXTRA };
  }

  if (plan.viewOrderOnly) {
    const ids = await viewOrderPage(tableId, plan.view.id, params.skip, params.take, schema.table.autoNumber);
    return { records: await renderPage(ctx, params, plan, ids), extra: NO_EXTRA };
  }

  if (isKeepable(params, plan)) {
    const index = indexServing(ctx.schema, plan);
    const indexed = index && (await listIndexed(ctx, params, plan, index));
    return indexed || listKept(ctx, params, plan);
  }
  const { result } = await runGeneral(ctx, params, plan, link);
  return answerOf(await renderPage(ctx, params, plan, result.ids), result, result.searchHitIndex);
};

/** A page's answer: its records, and the group points and search hits of the listing. */
const answerOf = (
  records: ListAnswer['records'],
  page: Pick<QueryResult, 'groupPoints' | 'allGroupHeaderRefs'>,
  hits: QueryResult['searchHitIndex'],
): ListAnswer => ({
  records,
  extra: {
    groupPoints: page.groupPoints,
    ...(page.allGroupHeaderRefs ? { allGroupHeaderRefs: page.allGroupHeaderRefs } : {}),
    searchHitIndex: hits?.length ? hits : null,
  },
});

/**
 * The view index that answers a listing: the view's own, when the listing asks exactly the view's
 * query (nothing added by the request: its `groupBy` is the view's group) without search.
 * Collapsed headers are answered from the group counts (`listIndexedByTuples`).
 */
const indexServing = (schema: TableSchema, plan: ListPlan): ViewIndex | undefined => {
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
const listIndexed = async (
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
const whenExact = async <T>(
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
const collapsedOf = (plan: ListPlan): ReadonlySet<string> =>
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

const groupsOf = (
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

/**
 * What the answer of a request that reads every record says should it run out of time
 * (`noteSlowBecause`, noted by `runGeneral`): in general, or for a view whose index this request
 * asked for.
 */
const COMPUTED_FROM_EVERY_RECORD =
  "It computes its answer from every record of the table, which at this table's size takes longer than the time limit allows. Record lists of a view's own filter, sort and group are served from the view's index at any size (built in the background once the view is saved).";
const INDEX_NOT_READY =
  "This view's index is not ready (its build was asked for now and runs in the background); until it is, the view's records are computed from every record of the table, which at this table's size takes longer than the time limit allows. Retry in a few minutes.";

/** The listings (by their context) that asked for their view's index. */
const askedForIndex = new WeakSet<ListContext>();

/** Asks the repair worker to build a view's index (a failure to ask is logged: the next listing asks again). */
const askForIndex = (ctx: ListContext, index: ViewIndex): Promise<void> => {
  askedForIndex.add(ctx);
  return wantIndex({
    tableId: index.tableId,
    viewId: index.viewId,
    indexId: index.indexId,
    requestedTime: (ctx.now ?? new Date()).toISOString(),
  }).catch((error: unknown) => {
    logger.warn('asking for a view index failed', { tableId: index.tableId, error: String(error) });
  });
};

/**
 * A general listing whose order can be kept (`kept-orders.ts`): the data versions and the kept
 * order are read in one round; when the order holds, the page is its ids and their records. Else
 * the order is computed from the table (the versions read before it sign it), from the page's
 * chunk to `LOOKAHEAD_PAGES` pages past it, and kept while the page is read.
 */
const listKept = async (ctx: ListContext, params: ListParams, plan: ListPlan): Promise<ListAnswer> => {
  const from = plan.query.skip;
  const to = from + plan.query.take;
  const { kept, keep } = await lookUpKept(ctx, plan, from, to);
  if (kept) {
    const ids = kept.ids.slice(from - kept.from, to - kept.from);
    return pageAnswer(ctx, params, plan, { ...kept.header, ids });
  }
  const start = Math.floor(from / ORDER_CHUNK) * ORDER_CHUNK;
  const end = Math.ceil((to + LOOKAHEAD_PAGES * plan.query.take) / ORDER_CHUNK) * ORDER_CHUNK;
  const wide = { ...plan, query: { ...plan.query, skip: start, take: end - start } };
  const { result } = await runGeneral(ctx, params, wide, undefined);
  const [answer] = await Promise.all([
    pageAnswer(ctx, params, plan, { ...result, ids: result.ids.slice(from - start, to - start) }),
    keep(result, start),
  ]);
  return answer;
};

/**
 * Reads a query's kept order for positions [from, to) and the data versions in one round:
 * `kept` when it holds; `keep` stores a result computed afterwards, signed by the versions read
 * here, before it (a failure to keep is logged: the next request computes it again).
 */
const lookUpKept = async (ctx: ListContext, plan: ListPlan, from: number, to: number) => {
  const tableId = ctx.schema.table.id;
  const now = ctx.now ?? new Date();
  const key = keptOrderKey(ctx.schema, plan, ctx.userId, now);
  const [versions, check] = await Promise.all([
    readDataVersions(key.tables),
    readKeptOrder(tableId, key.hash, from, to),
  ]);
  const signature = signatureOf(key, versions);
  const keep = (result: QueryResult, start: number) =>
    writeKeptOrder(
      tableId,
      key.hash,
      {
        signature,
        total: result.total,
        groupPoints: result.groupPoints,
        ...(result.allGroupHeaderRefs ? { allGroupHeaderRefs: result.allGroupHeaderRefs } : {}),
      },
      start,
      result.ids,
      now.getTime(),
    ).catch((error: unknown) => {
      logger.warn('keeping a listing order failed', { tableId, error: String(error) });
    });
  return { kept: check(signature, now.getTime()), keep };
};

/** The answer for a page whose ids and group points are known: its records, rendered. */
const pageAnswer = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  page: Pick<QueryResult, 'ids' | 'groupPoints' | 'allGroupHeaderRefs'>,
): Promise<ListAnswer> => {
  const { records, hits } = await renderPageWithHits(ctx, params, plan, page.ids);
  return answerOf(records, page, hits);
};

/**
 * How many records the listing would answer, all pages, and its group points: from a kept header
 * when the data has not changed since it was kept (its versions and one item read), else computed
 * from the table (the versions read first sign it) and kept for the next count or page of the
 * same query.
 */
export const matchingSummary = async (
  ctx: ListContext,
  params: ListParams,
  /** False when only the total is wanted (a view index then reads no group counts). */
  withGroups = true,
): Promise<Pick<QueryResult, 'total' | 'groupPoints'>> => {
  const link = await pickerOf(ctx, params);
  const plan = planListing(ctx.schema, params, pickerFilter(ctx, params, link));
  if (!isKeepable(params, plan)) return (await allMatching(ctx, params)).result;
  // the view's own query: its index's count (less the rows under collapsed headers), when it is exact
  const index = indexServing(ctx.schema, plan);
  const collapsed = collapsedOf(plan);
  const byTuples = Boolean(index?.groupOf) && (withGroups || collapsed.size > 0);
  const read =
    index &&
    (await whenExact(ctx, index, byTuples ? readGroupCounts(index.indexId) : Promise.resolve(undefined)));
  if (read && index) {
    if (!read.with) return { total: read.count, groupPoints: null };
    const walk = groupsOf(ctx, index, read.with, collapsed);
    const total = collapsed.size
      ? pageStretches(
          read.with.map((tuple) => tuple.count),
          walk.visible,
          0,
          0,
        ).total
      : read.count;
    return { total, groupPoints: withGroups ? walk.groupPoints : null };
  }
  const { kept, keep } = await lookUpKept(ctx, plan, 0, 0);
  if (kept) return kept.header;
  const { result } = await allMatching(ctx, params);
  // The header alone: its ids are kept by a listing of the same query.
  await keep({ ...result, ids: [] }, 0);
  return result;
};

/**
 * Every record the listing would answer, on all pages, in answer order (`result.ids`), with the
 * cells of the query's fields and of `extra` (`rows` by id): what the aggregation routes measure.
 */
export const allMatching = async (
  ctx: ListContext,
  params: ListParams,
  extra: ReadonlySet<string> = new Set(),
): Promise<{ result: QueryResult; rows: Map<string, Row>; plan: ListPlan }> => {
  const link = await pickerOf(ctx, params);
  const paged = planListing(ctx.schema, params, pickerFilter(ctx, params, link));
  const plan = { ...paged, query: { ...paged.query, skip: 0, take: Number.MAX_SAFE_INTEGER } };
  return { ...(await runGeneral(ctx, params, plan, link, extra)), plan };
};

/** The link field of a picker parameter, found and checked; undefined without one. */
const pickerOf = (ctx: ListContext, params: ListParams): Promise<PickerLink | undefined> => {
  const ref = params.filterLinkCellCandidate ?? params.filterLinkCellSelected;
  const param = params.filterLinkCellCandidate ? 'filterLinkCellCandidate' : 'filterLinkCellSelected';
  return ref ? findPickerLink(ctx.schema, ref, param) : Promise.resolve(undefined);
};

/** A candidate picker's limits (the link's filter and filter view); the selected picker has none. */
const pickerFilter = (ctx: ListContext, params: ListParams, link: PickerLink | undefined) =>
  link && params.filterLinkCellCandidate ? candidateFilter(ctx.schema, link) : null;

/** The general path: rows with the needed attributes, restricted by pickers, through the engine. */
const runGeneral = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  link: PickerLink | undefined,
  extra: ReadonlySet<string> = new Set(),
): Promise<{ result: QueryResult; rows: Map<string, Row> }> => {
  const { schema } = ctx;
  const tableId = schema.table.id;
  const queried = queryFieldIds(plan.query);
  const needed = new Set([...queried, ...extra]);
  if (link?.symmetricFieldId) needed.add(link.symmetricFieldId);
  const fields: Field[] = schema.fields.filter((f) => needed.has(f.id));
  const attrs = rowAttributes(schema.fields, needed);

  const candidate = params.filterLinkCellCandidate;
  const selectedLink = params.filterLinkCellSelected;
  const linkedAnywhere =
    link && !link.symmetricFieldId && (selectedLink || candidateRule(link).excludeLinkedAnywhere);
  // Only selected records: read just those. Otherwise the whole table, sliced.
  const onlySelected = params.selectedRecordIds && !candidate;
  if (!onlySelected) noteSlowBecause(askedForIndex.has(ctx) ? INDEX_NOT_READY : COMPUTED_FROM_EVERY_RECORD);
  const [items, linkedSet, cell] = await Promise.all([
    onlySelected
      ? readRecordParts(tableId, [...new Set(params.selectedRecordIds)], attrs)
      : readAllRecords(tableId, attrs, slicesFor(schema.table.autoNumber)),
    linkedAnywhere && link ? linkedThroughColumn(link) : undefined,
    candidate?.recordId && link ? linkCellIds(link, candidate.recordId) : undefined,
  ]);

  let rows: Row[] = items.map((item) => toRow(item, fields, plan.view.id));
  if (link) {
    const isLinked = (row: Row) =>
      link.symmetricFieldId
        ? Array.isArray(row.cells[link.symmetricFieldId]) &&
          (row.cells[link.symmetricFieldId] as unknown[]).length > 0
        : (linkedSet?.has(row.id) ?? false);
    if (selectedLink) rows = rows.filter(isLinked);
    else {
      const exclude = new Set([...(cell ?? []), ...(params.selectedRecordIds ?? [])]);
      const anywhere = candidateRule(link).excludeLinkedAnywhere;
      rows = rows.filter((row) => !exclude.has(row.id) && !(anywhere && isLinked(row)));
    }
  }

  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link' && queried.has(f.id)).map((f) => f.id));
  const titles = linkFieldIds.size ? await linkTitlesFor(schema, items, linkFieldIds) : undefined;
  const result = runQuery(rows, plan.query, queryContext(ctx, titles));
  return { result, rows: new Map(rows.map((row) => [row.id, row])) };
};
