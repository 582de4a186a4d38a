import { REPAIR_EVERY_SECONDS, repairInterrupted } from '#shared/db/commit.ts';
import { runWakesInProcess } from '#shared/jobs/worker-wake.ts';
import { computeWantedOrders } from '#shared/listing/order-worker.ts';
import { buildWantedIndexes } from '#shared/records/view-indexes/build.ts';
import { every } from './every.ts';

/** Locally, twice as often as in the stack: the local server is also where people try crashes. */
export const LOCAL_REPAIR_MS = (REPAIR_EVERY_SECONDS * 1000) / 2;

/**
 * Plays the stack's repair schedule for `npm start`: every 30 s, finishes or undoes the large
 * writes whose writer's lease ran out (a crash of an earlier run included), then computes the
 * listing orders requests handed over (at once, too, when a request wakes it), then builds the view
 * indexes listings asked for. Failures are logged
 * and retried at the next tick; ticks while the database is down are skipped.
 */
export const startRepairTimer = (
  everyMs = LOCAL_REPAIR_MS,
  /** While true (the database is known to be down) a tick is skipped rather than logged as failed. */
  paused: () => boolean = () => false,
): (() => void) => {
  // A request that hands the worker a listing order wakes it (shared/jobs/worker-wake.ts): the
  // orders are computed at once, as the stack's async invoke of the worker does.
  runWakesInProcess(async () => {
    const orders = await computeWantedOrders(Date.now() + everyMs);
    if (orders.computed) console.log(`Computed ${orders.computed} listing order(s) requests handed over`);
  });
  const stop = every(
    everyMs,
    paused,
    async () => {
      const report = await repairInterrupted();
      if (report.undone || report.completed)
        console.log(
          `Repaired interrupted writes: ${report.undone} undone, ${report.completed} completed, ${report.skipped} undo steps skipped (newer edits)`,
        );
      const orders = await computeWantedOrders(Date.now() + everyMs);
      if (orders.computed) console.log(`Computed ${orders.computed} listing order(s) requests handed over`);
      const indexes = await buildWantedIndexes(Date.now() + everyMs);
      if (indexes.built) console.log(`Built ${indexes.built} view index(es) listings asked for`);
    },
    'Repair worker run (interrupted writes, view indexes)',
  );
  return () => {
    runWakesInProcess(undefined);
    stop();
  };
};
