/**
 * The worker's side of ad-hoc listing orders (`order-computation.ts`): computes the orders that
 * requests handed over, segment by segment, and keeps each one as a kept order
 * (`entities/query-orders.ts`, every position) for the retry to read.
 *
 * A segment is `perSegment` ranges of the table read at once; its records that pass the filter
 * are kept with the attributes the order reads (`entities/query-computations.ts` `keepSegment`)
 * and the segment noted done, so a run stopped anywhere (its time, a crash) goes on at the next
 * run with the first segment not done and reads each record once. When every segment is done the
 * data versions are read again: if a write the query depends on came meanwhile, the computation
 * starts again at the new versions (its kept order would never be used); else the kept segments
 * are ordered by the engine and the order kept, signed by the versions it was computed at.
 */
import { randomBytes } from 'node:crypto';
import { NotFoundError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import {
  claimComputation,
  dropComputation,
  dropComputationWant,
  keepSegment,
  markUnkeepable,
  type QueryComputation,
  readComputationState,
  readComputationWants,
  readSegments,
  releaseComputation,
  restartComputation,
} from '#shared/entities/query-computations.ts';
import { writeKeptOrder } from '#shared/entities/query-orders.ts';
import { type RecordPart, readRecordRanges } from '#shared/entities/records.ts';
import { readDataVersions } from '#shared/entities/table-versions.ts';
import type { Query } from '#shared/query/query-types.ts';
import { READ_IN_FLIGHT } from '#shared/records/rows.ts';
import { loadSchema } from '#shared/schema/schema.ts';
import { keptOrderKey, signatureOf } from './kept-orders.ts';
import type { ListContext } from './list-page.ts';
import { orderComputationOf, segmentRanges } from './order-computation.ts';

export type ComputationOutcome = 'computed' | 'partial' | 'busy' | 'gone' | 'restarted' | 'unkeepable';

/** What a worker run did: computations by outcome, and how many records it read. */
export type ComputationReport = Record<ComputationOutcome, number> & { recordsRead: number };

/** How long past its deadline a run's hold on a computation lasts (the last segment may still be writing). */
const LEASE_MARGIN_MS = 60_000;
/** How many times one run starts a computation again after writes, before leaving it to the next run. */
const RESTARTS_PER_RUN = 2;

/** Test seam: a run fails (as a crash would) after keeping this many segments. */
let crashAfterSegments: number | undefined;
export const computeInPieces = (options: { crashAfterSegments?: number } = {}): void => {
  crashAfterSegments = options.crashAfterSegments;
};

const newRun = () => randomBytes(6).toString('base64url');

/** What a computation asks for, against the table as it is now; undefined when the table (or view) is gone or the query's meaning changed. */
const contextOf = async (c: QueryComputation) => {
  let schema: Awaited<ReturnType<typeof loadSchema>>;
  try {
    schema = await loadSchema(c.tableId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  // a table in the trash is not listed: its ask goes (a restore lists, and asks, again)
  if (schema.table.deletedTime || schema.table.purgeTime) return undefined;
  const view = schema.views.find((v) => v.id === c.viewId);
  if (!view) return undefined;
  const now = new Date(c.now);
  const ctx: ListContext = { schema, userId: c.userId, canUpdate: false, canDelete: false, now };
  const plan = { query: JSON.parse(c.query) as Query, view };
  // a changed field definition (or filter member) changes the hash: the ask no longer means this
  const key = keptOrderKey(schema, plan, c.userId, now);
  return key.hash === c.hash ? { ctx, plan, key } : undefined;
};

/**
 * Computes one asked-for order as far as `deadline` allows (see the file comment); `read` counts
 * the records it reads.
 */
export const computeOrderOf = async (
  tableId: string,
  hash: string,
  deadline: number,
  read: { records: number } = { records: 0 },
): Promise<ComputationOutcome> => {
  let c = await readComputationState(tableId, hash);
  if (!c) {
    await dropComputationWant(tableId, hash);
    return 'gone';
  }
  const found = await contextOf(c);
  if (!found) {
    await dropComputation(tableId, hash);
    return 'gone';
  }
  const { ctx, plan, key } = found;
  if (!(await claimComputation(c, deadline - Date.now() + LEASE_MARGIN_MS))) return 'busy';
  const { readAttributes, narrow, order } = orderComputationOf(ctx, plan);
  let kept = 0;
  for (let restarts = 0; ; restarts++) {
    const segments = Math.ceil(c.ranges / Math.max(1, c.perSegment));
    for (let segment = 0; segment < segments; segment++) {
      if (c.done[String(segment)]) continue;
      if (Date.now() >= deadline) {
        await releaseComputation(tableId, hash);
        return 'partial';
      }
      const narrowed: RecordPart[][] = [];
      await readRecordRanges({
        tableId,
        attributes: readAttributes,
        ranges: segmentRanges(c.ranges, c.perSegment, segment),
        inFlight: READ_IN_FLIGHT,
        onRange: async (index, records) => {
          read.records += records.length;
          narrowed[index] = await narrow(records);
        },
      });
      const attempt = newRun();
      if (!(await keepSegment(c, segment, attempt, narrowed.flat()))) return 'busy';
      c = { ...c, done: { ...c.done, [String(segment)]: attempt } };
      kept++;
      if (crashAfterSegments !== undefined && kept >= crashAfterSegments)
        throw new Error(`test seam: computation stopped after ${kept} segment(s)`);
    }
    const signature = signatureOf(key, await readDataVersions(key.tables));
    if (signature === c.signature) break;
    // writes the query depends on came during the computation: its order would never be used
    const run = newRun();
    if (!(await restartComputation(c, run, signature))) return 'busy';
    c = { ...c, run, signature, done: {}, startedTime: new Date().toISOString() };
    if (restarts + 1 >= RESTARTS_PER_RUN) return 'restarted';
  }
  const result = await order(await readSegments(c), 0, Number.MAX_SAFE_INTEGER);
  const keptWhole = await writeKeptOrder(
    tableId,
    hash,
    {
      signature: c.signature,
      total: result.total,
      groupPoints: result.groupPoints,
      ...(result.allGroupHeaderRefs ? { allGroupHeaderRefs: result.allGroupHeaderRefs } : {}),
    },
    0,
    result.ids,
  );
  if (!keptWhole) {
    // very many groups: noted on the ask, so requests answer why instead of waiting for it
    await markUnkeepable(c);
    await dropComputationWant(tableId, hash);
    return 'unkeepable';
  }
  await dropComputation(tableId, hash);
  return 'computed';
};

/** Computes the orders requests handed over, one after another, until `deadline` (epoch ms). */
export const computeWantedOrders = async (deadline: number): Promise<ComputationReport> => {
  const report: ComputationReport = {
    computed: 0,
    partial: 0,
    busy: 0,
    gone: 0,
    restarted: 0,
    unkeepable: 0,
    recordsRead: 0,
  };
  const read = { records: 0 };
  for (const want of await readComputationWants()) {
    if (Date.now() >= deadline) break;
    const outcome = await computeOrderOf(want.tableId, want.hash, deadline, read);
    report[outcome]++;
    if (outcome === 'computed') logger.info('computed a listing order', { tableId: want.tableId });
  }
  report.recordsRead = read.records;
  return report;
};
