import { config } from '#shared/config.ts';
import { logger, withLogContext } from '#shared/core/logger.ts';
import { outsideRequestScope } from '#shared/db/request-scope.ts';
import { invokeAsync } from './lambda-invoke.ts';

/**
 * Starts the repair worker now rather than at its next scheduled run, when a request handed it
 * work someone waits for (an ad-hoc listing order): the retry then finds the order after the
 * worker's time, not up to a schedule period later.
 *
 * In the cloud (`REPAIR_WORKER_FUNCTION` set) it invokes the worker's Lambda asynchronously (an
 * `Event` invoke: queued by Lambda, answered at once). The worker runs one at a time, so a wake
 * during a run waits for it, and a wake older than five minutes is dropped (the stack's
 * async-invoke settings): the schedule still runs every minute, so a lost wake costs only time.
 * Locally (`npm start`, tests) it runs the worker pass handed in (`runWakesInProcess`) after the
 * request, outside its scope; with none handed in it does nothing.
 *
 * A wake that fails is logged, never answered: the work is stored and the schedule finds it.
 */
export const wakeRepairWorker = async (reason: string): Promise<void> => {
  try {
    if (config.repairWorkerFunction) {
      await invokeAsync(config.repairWorkerFunction, { wake: reason });
      return;
    }
    wakeInProcess(reason);
  } catch (error) {
    logger.warn('could not wake the repair worker; its schedule will run it', {
      reason,
      error: error as Error,
    });
  }
};

let pass: (() => Promise<unknown>) | undefined;
let running: Promise<void> | undefined;
let again = false;

/**
 * Makes a wake run `run` in this process (the local server's repair pass; tests). A wake while a
 * pass runs runs it once more after, so work asked for during a pass is not left to the timer.
 * `undefined` stops it.
 */
export const runWakesInProcess = (run: (() => Promise<unknown>) | undefined): void => {
  pass = run;
};

const wakeInProcess = (reason: string): void => {
  const run = pass;
  if (!run) return;
  if (running) {
    again = true;
    return;
  }
  running = outsideRequestScope(() =>
    withLogContext({ wake: reason }, async () => {
      do {
        again = false;
        await new Promise((resolve) => setImmediate(resolve));
        await run();
      } while (again);
    }),
  )
    .catch((error: unknown) => {
      logger.error('the repair pass a wake started failed; the timer runs it again', {
        error: error as Error,
      });
    })
    .finally(() => {
      running = undefined;
    });
};

/** Waits until the pass a wake started has finished (tests). */
export const wakesSettled = async (): Promise<void> => {
  while (running) await running;
};
