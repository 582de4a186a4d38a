/**
 * A listing whose order is kept (`kept-orders.ts`): later pages of a filtered or sorted query read
 * the order the first computed, as long as the data versions that signed it hold.
 */
import { logger } from '#shared/core/logger.ts';
import { ORDER_CHUNK, readKeptOrder, writeKeptOrder } from '#shared/entities/query-orders.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import type { QueryResult } from '#shared/query/query-types.ts';
import { keptOrderKey, LOOKAHEAD_PAGES, signatureOf } from './kept-orders.ts';
import { runGeneral } from './list-general.ts';
import { type ListAnswer, type ListContext, pageAnswer } from './list-page.ts';
import type { ListParams } from './params.ts';
import type { ListPlan } from './resolve.ts';

/**
 * A general listing whose order can be kept (`kept-orders.ts`): the data versions and the kept
 * order are read in one round; when the order holds, the page is its ids and their records. Else
 * the order is computed from the table (the versions read before it sign it), from the page's
 * chunk to `LOOKAHEAD_PAGES` pages past it, and kept while the page is read.
 */
export const listKept = async (ctx: ListContext, params: ListParams, plan: ListPlan): Promise<ListAnswer> => {
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
export const lookUpKept = async (ctx: ListContext, plan: ListPlan, from: number, to: number) => {
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
