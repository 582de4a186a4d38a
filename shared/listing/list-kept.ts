/**
 * A listing whose order is kept (`kept-orders.ts`): later pages of a filtered or sorted query read
 * the order the first computed, as long as the data versions that signed it hold.
 */
import { logger } from '#shared/core/logger.ts';
import { readComputation } from '#shared/entities/query-computations.ts';
import { ORDER_CHUNK, readKeptOrder, writeKeptOrder } from '#shared/entities/query-orders.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import type { QueryResult } from '#shared/query/query-types.ts';
import { keptOrderKey, LOOKAHEAD_PAGES, signatureOf } from './kept-orders.ts';
import { indexAsked, noteReadingEveryRecord } from './list-general.ts';
import { type ListAnswer, type ListContext, pageAnswer } from './list-page.ts';
import {
  computeOrder,
  computingError,
  handOff,
  requestReadUntil,
  unkeepableError,
} from './order-computation.ts';
import type { ListParams } from './params.ts';
import type { ListPlan } from './resolve.ts';

/**
 * A general listing whose order can be kept (`kept-orders.ts`): the data versions and the kept
 * order are read in one round; when the order holds, the page is its ids and their records. Else
 * the order is computed from the table (the versions read before it sign it), from the page's
 * chunk to `LOOKAHEAD_PAGES` pages past it, and kept while the page is read; or, on a table too
 * large to compute it in a request, by the worker (`orderOrHandOff`).
 */
export const listKept = async (ctx: ListContext, params: ListParams, plan: ListPlan): Promise<ListAnswer> => {
  const from = plan.query.skip;
  const to = from + plan.query.take;
  const look = await lookUpKept(ctx, plan, from, to);
  const { kept } = look;
  if (kept) {
    const ids = kept.ids.slice(from - kept.from, to - kept.from);
    return pageAnswer(ctx, params, plan, { ...kept.header, ids });
  }
  const start = Math.floor(from / ORDER_CHUNK) * ORDER_CHUNK;
  const end = Math.ceil((to + LOOKAHEAD_PAGES * plan.query.take) / ORDER_CHUNK) * ORDER_CHUNK;
  const wide = { ...plan, query: { ...plan.query, skip: start, take: end - start } };
  const result = await orderOrHandOff(ctx, wide, look);
  const [answer] = await Promise.all([
    pageAnswer(ctx, params, plan, { ...result, ids: result.ids.slice(from - start, to - start) }),
    look.keep(result, start),
  ]);
  return answer;
};

/**
 * The order of a query that is not kept (`order-computation.ts`): answered by the worker's
 * computation when one is under way or the table is known to be too large for a request (a
 * `503` with `Retry-After`, asking again if writes made the computation's versions old; a `422`
 * when the worker computed it but could not keep it, until writes make its versions old); else
 * computed here, positions `plan.query.skip` to `skip + take`, or handed to the worker when the
 * read cannot finish in time.
 */
export const orderOrHandOff = async (
  ctx: ListContext,
  plan: ListPlan,
  look: Awaited<ReturnType<typeof lookUpKept>>,
): Promise<QueryResult> => {
  const { computation, slowAt, key, signature } = look;
  const busy = (c?: Parameters<typeof computingError>[0]) => computingError(c, Date.now(), indexAsked(ctx));
  if (computation) {
    const current = computation.signature === signature;
    if (current && computation.unkeepable) throw unkeepableError();
    if (!current) await handOff(ctx, plan, key, signature);
    throw busy(current ? computation : undefined);
  }
  const size = ctx.schema.table.autoNumber;
  if (slowAt !== undefined && size >= slowAt) {
    await handOff(ctx, plan, key, signature);
    throw busy();
  }
  noteReadingEveryRecord(ctx);
  const window = { skip: plan.query.skip, take: plan.query.take };
  const result = await computeOrder(ctx, plan, window, requestReadUntil());
  if (result) return result;
  await handOff(ctx, plan, key, signature, size);
  throw busy();
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
  const [versions, check, { computation, slowAt }] = await Promise.all([
    readDataVersions(key.tables),
    readKeptOrder(tableId, key.hash, from, to),
    readComputation(tableId, key.hash, now.getTime()),
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
  return {
    kept: check(signature, now.getTime()),
    keep,
    key,
    signature,
    ...(computation ? { computation } : {}),
    ...(slowAt === undefined ? {} : { slowAt }),
  };
};
