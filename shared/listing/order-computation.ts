/**
 * The order of an ad-hoc query (a filter, sort, group or search that is not a view's indexed
 * query), computed from every record of the table once, in a request when it fits, else by the
 * worker (`order-worker.ts`) while the request answers `503` with `Retry-After`.
 *
 * The table is read in ranges of its records partition (`records/rows.ts` `rangesFor`),
 * `READ_IN_FLIGHT` ranges at a time, with only the attributes the query reads. Each range is
 * narrowed as soon as it arrives (`narrow`: the filter and a hiding search applied, and of the
 * records that pass only the attributes the order reads kept), so memory holds the matching
 * records' sort and group cells, not the table. The narrowed records are then ordered, grouped
 * and counted by the engine (`order`). Filtering range by range answers what filtering the whole
 * table does: a filter reads one record at a time.
 *
 * In a request the read stops `handOffMarginMs` before the deadline; the query is then handed to
 * the worker (`askForComputation`) and the table's size noted, so that later ad-hoc queries of a
 * table that large go to the worker at once instead of reading until the deadline again.
 */

import { randomBytes } from 'node:crypto';
import { ServiceUnavailableError, UnprocessableError } from '#shared/core/errors.ts';
import { REPAIR_EVERY_SECONDS } from '#shared/db/repair-schedule.ts';
import { remainingMs } from '#shared/db/request-scope.ts';
import { askForComputation, type QueryComputation } from '#shared/entities/query-computations.ts';
import { MAX_HEADER_BYTES } from '#shared/entities/query-orders.ts';
import { type RecordPart, readRecordRanges } from '#shared/entities/records.ts';
import { wakeRepairWorker } from '#shared/jobs/worker-wake.ts';
import { queryFieldIds, runQuery } from '#shared/query/engine.ts';
import type { Query, QueryResult } from '#shared/query/query-types.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { READ_IN_FLIGHT, rangesFor, recordSlices, rowAttributes, toRow } from '#shared/records/rows.ts';
import type { KeptOrderKey } from './kept-orders.ts';
import { type ListContext, queryContext } from './list-page.ts';
import type { ListPlan } from './resolve.ts';

/**
 * How long before its deadline a request stops reading and hands the query to the worker: 5 s
 * (the engine's work on what was read, the ask's write), less for a shorter deadline, never less
 * than the 1.5 s a write needs.
 */
export const handOffMarginMs = (remaining: number): number =>
  Math.min(5_000, Math.max(1_500, remaining * 0.3));

/** Test seam: a request's read budget in ms instead of its deadline less the margin (undefined: the deadline). */
let readBudgetMs: number | undefined;
export const setRequestReadBudget = (ms: number | undefined): void => {
  readBudgetMs = ms;
};

/** Test seam: the ranges and segment size of the next computations handed over (undefined: by the table's size). */
let segmentShape: { ranges: number; perSegment: number } | undefined;
export const setSegmentShape = (shape: { ranges: number; perSegment: number } | undefined): void => {
  segmentShape = shape;
};

/**
 * The least table size noted as too large for a request when its read ran out of time: a smaller
 * table that did is taken for a passing slowness (throttling), not its size, and tries again.
 */
let slowMarkFrom = 20_000;
/** Test seam: the least size noted as too large (undefined: 20,000). */
export const setSlowMarkFrom = (records: number | undefined): void => {
  slowMarkFrom = records ?? 20_000;
};

const pick = (record: RecordPart, attributes: readonly string[]): RecordPart => {
  const out: RecordPart = { id: record.id };
  for (const name of attributes) if (record[name] !== undefined) out[name] = record[name];
  return out;
};

/**
 * How a query's order is computed: the attributes read of every record, the narrowing of a range
 * of records to those the query answers (with the attributes its order reads), and the order of
 * the narrowed records (`skip`/`take` as the engine takes them; total and group points of all).
 */
export const orderComputationOf = (ctx: ListContext, plan: Pick<ListPlan, 'query' | 'view'>) => {
  const { schema } = ctx;
  const { query } = plan;
  const read = queryFieldIds(query);
  const ordered = new Set([...query.groupBy, ...query.sort].map((spec) => spec.fieldId));
  const readAttributes = rowAttributes(schema.fields, read);
  const keptAttributes = rowAttributes(schema.fields, ordered);
  const readFields = schema.fields.filter((field) => read.has(field.id));
  const orderFields = schema.fields.filter((field) => ordered.has(field.id));
  const hides = query.search?.hide === true;
  const narrows = Boolean(query.filter) || hides;
  const linksOf = (fields: typeof readFields, ids: ReadonlySet<string>) =>
    new Set(fields.filter((field) => field.type === 'link' && ids.has(field.id)).map((field) => field.id));
  const filterLinks = linksOf(readFields, queryFieldIds({ ...query, groupBy: [], sort: [] }));
  const orderLinks = linksOf(orderFields, ordered);

  const narrow = async (records: readonly RecordPart[]): Promise<RecordPart[]> => {
    if (!narrows) return records.map((record) => pick(record, keptAttributes));
    const titles = filterLinks.size ? await linkTitlesFor(schema, records, filterLinks) : undefined;
    const rows = records.map((record) => toRow(record, readFields, plan.view.id));
    const only: Query = {
      filter: query.filter ?? null,
      search: hides ? (query.search ?? null) : null,
      groupBy: [],
      sort: [],
      collapsedGroupIds: [],
      skip: 0,
      take: Number.MAX_SAFE_INTEGER,
    };
    const passed = new Set(runQuery(rows, only, queryContext(ctx, titles)).ids);
    return records.filter((record) => passed.has(record.id)).map((record) => pick(record, keptAttributes));
  };

  const order = async (records: readonly RecordPart[], skip: number, take: number): Promise<QueryResult> => {
    const titles = orderLinks.size ? await linkTitlesFor(schema, records, orderLinks) : undefined;
    const rows = records.map((record) => toRow(record, orderFields, plan.view.id));
    // the records are narrowed already; the page's search hits are found on the page (`pageAnswer`)
    return runQuery(rows, { ...query, filter: null, search: null, skip, take }, queryContext(ctx, titles));
  };

  return { readAttributes, narrow, order };
};

/** The ranges of a table's read and the ranges of one segment of it. */
export const segmentRanges = (ranges: number, perSegment: number, segment: number) =>
  recordSlices(ranges).slice(segment * perSegment, (segment + 1) * perSegment);

/**
 * Computes a query's order in the request, positions [skip, skip + take) of it (total and group
 * points of all), reading until `until` (epoch ms); undefined when the read did not finish by then.
 */
export const computeOrder = async (
  ctx: ListContext,
  plan: Pick<ListPlan, 'query' | 'view'>,
  window: { skip: number; take: number },
  until?: number,
): Promise<QueryResult | undefined> => {
  const { readAttributes, narrow, order } = orderComputationOf(ctx, plan);
  const ranges = recordSlices(rangesFor(ctx.schema.table.autoNumber));
  const narrowed: RecordPart[][] = [];
  const { complete } = await readRecordRanges({
    tableId: ctx.schema.table.id,
    attributes: readAttributes,
    ranges,
    inFlight: READ_IN_FLIGHT,
    ...(until === undefined ? {} : { until }),
    onRange: async (index, records) => {
      narrowed[index] = await narrow(records);
    },
  });
  if (!complete) return undefined;
  return order(narrowed.flat(), window.skip, window.take);
};

/** When a request's read must stop: its deadline less the margin (or the test seam's budget). */
export const requestReadUntil = (now = Date.now()): number | undefined => {
  if (readBudgetMs !== undefined) return now + readBudgetMs;
  const left = remainingMs(now);
  return Number.isFinite(left) ? now + left - handOffMarginMs(left) : undefined;
};

/** The first retry's wait for a computation not started yet: a quarter of the worker's period. */
export const WOKEN_START_SECONDS = Math.ceil(REPAIR_EVERY_SECONDS / 4);

/** The answer while the worker computes: a 503 whose `Retry-After` follows the computation's progress. */
export const computingError = (
  computation?: Pick<QueryComputation, 'ranges' | 'perSegment' | 'done' | 'startedTime'>,
  now = Date.now(),
  /** The listing asked for its view's index (its own query, not built yet). */
  indexAsked = false,
) => {
  // Not started yet: the hand-off woke the worker, which starts within seconds unless a run of it
  // is under way (or the wake was lost: then its schedule, within a period).
  let seconds = WOKEN_START_SECONDS;
  if (computation?.startedTime) {
    const segments = Math.ceil(computation.ranges / Math.max(1, computation.perSegment));
    const done = Object.keys(computation.done).length;
    const elapsed = (now - Date.parse(computation.startedTime)) / 1000;
    seconds = done > 0 ? (elapsed / done) * Math.max(1, segments - done) : REPAIR_EVERY_SECONDS / 2;
  }
  const retryAfter = Math.max(2, Math.min(120, Math.ceil(seconds)));
  const index = indexAsked
    ? " This view's index is not ready either (its build was asked for and runs in the background); once it is, the view's own pages are served from it at any size."
    : '';
  return new ServiceUnavailableError(
    `This query's order is being computed in the background: the table is too large to compute it within one request. Retry in ${retryAfter} s (Retry-After); the same query then answers from the computed order, as long as no record it reads is written meanwhile.${index}`,
    retryAfter,
  );
};

/**
 * The answer for a query the worker computed but could not keep: its groups' header is larger
 * than an item holds (very many groups), and the table is too large to compute it in a request.
 * A `422` rather than a `503`: a retry would not succeed while the data it reads stays as it is.
 */
export const unkeepableError = () =>
  new UnprocessableError(
    'query_too_large',
    `This query groups its records into too many groups: their headers take more than ${MAX_HEADER_BYTES / 1000} KB, more than can be kept, and the table is too large to compute the query within one request. Narrow it with a filter, or group by fewer or coarser fields.`,
  );

/**
 * Hands a query to the worker: its ask written (noting the table's size when a request ran out of
 * time), and the worker woken to compute it now rather than at its next scheduled run.
 */
export const handOff = async (
  ctx: ListContext,
  plan: Pick<ListPlan, 'query' | 'view'>,
  key: KeptOrderKey,
  signature: string,
  ranOutAt?: number,
): Promise<void> => {
  const now = ctx.now ?? new Date();
  const ranges = segmentShape?.ranges ?? rangesFor(ctx.schema.table.autoNumber);
  await askForComputation(
    {
      tableId: ctx.schema.table.id,
      hash: key.hash,
      run: randomBytes(6).toString('base64url'),
      signature,
      viewId: plan.view.id,
      query: JSON.stringify({ ...plan.query, skip: 0, take: 0 }),
      userId: ctx.userId,
      now: now.toISOString(),
      ranges,
      perSegment: segmentShape?.perSegment ?? Math.min(ranges, READ_IN_FLIGHT),
      requestedTime: new Date().toISOString(),
    },
    ranOutAt !== undefined && ranOutAt >= slowMarkFrom ? ranOutAt : undefined,
  );
  await wakeRepairWorker('listing order');
};
