import type { Context } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';
import { repairInterrupted } from '#shared/db/commit.ts';
import { type ComputationReport, computeWantedOrders } from '#shared/listing/order-worker.ts';
import { type BuildOutcome, buildWantedIndexes } from '#shared/records/view-indexes/build.ts';

/** Time kept back from the Lambda's timeout: no index build starts after it. */
const MARGIN_MS = 60_000;

/**
 * The repair worker (not a route), run every minute by a schedule, and at once when a route hands
 * it a listing order (an async invoke: `shared/jobs/worker-wake.ts`; the event is not read, every
 * run does the same): finishes or undoes the large
 * writes whose writer's lease ran out (`shared/db/commit.ts` `repairInterrupted`), then computes
 * the listing orders requests handed over (`shared/listing/order-worker.ts`: someone is waiting
 * for them), then builds the view indexes listings asked for (`shared/records/view-indexes/build.ts`).
 */
export const handler = async (
  _event: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{
  undone: number;
  completed: number;
  skipped: number;
  orders: ComputationReport;
  indexes: Record<BuildOutcome, number>;
}> => {
  const report = await repairInterrupted();
  if (report.undone || report.completed) logger.info('repaired interrupted writes', { ...report });
  const left = context ? context.getRemainingTimeInMillis() - MARGIN_MS : MARGIN_MS;
  const deadline = Date.now() + Math.max(0, left);
  const orders = await computeWantedOrders(deadline);
  const indexes = await buildWantedIndexes(deadline);
  return { ...report, orders, indexes };
};
