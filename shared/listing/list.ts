/**
 * Record listing (`GET /table/{tableId}/record`), one dispatcher over its strategies, tried in
 * order: the records of one link cell (`pickers.ts`); a view's manual order alone
 * (`view-order.ts`); a view's own query from its index (`list-indexed.ts`); another query whose
 * order can be kept (`list-kept.ts`); the general path (`list-general.ts`). The counts and the
 * aggregations take the same paths (`matchingSummary`, `allMatching`).
 */
import { readGroupCounts } from '#shared/entities/view-index-groups.ts';
import { pageStretches } from '#shared/query/groups.ts';
import type { QueryResult, Row } from '#shared/query/query-types.ts';
import { isKeepable } from './kept-orders.ts';
import { pickerFilter, pickerOf, runGeneral } from './list-general.ts';
import { collapsedOf, groupsOf, indexServing, listIndexed, whenExact } from './list-indexed.ts';
import { listKept, lookUpKept, orderOrHandOff } from './list-kept.ts';
import { answerOf, type ListAnswer, type ListContext, NO_EXTRA, renderPage } from './list-page.ts';
import type { ListParams } from './params.ts';
import { linkCellIds } from './pickers.ts';
import { type ListPlan, planListing } from './resolve.ts';
import { viewOrderPage } from './view-order.ts';

export type { ListAnswer, ListContext } from './list-page.ts';

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
  const look = await lookUpKept(ctx, plan, 0, 0);
  if (look.kept) return look.kept.header;
  // the same work as the listing's: in the request, or by the worker on a large table
  const result = await orderOrHandOff(ctx, { ...plan, query: { ...plan.query, skip: 0, take: 0 } }, look);
  // The header alone: its ids are kept by a listing of the same query.
  await look.keep({ ...result, ids: [] }, 0);
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
