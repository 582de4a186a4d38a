/**
 * Runs `tick` now and then every `everyMs` for `npm start`'s plays of the stack's schedules: a tick
 * still running makes the next one skip, ticks while `paused()` (the database known to be down)
 * are skipped, and the timer never keeps the process alive. A tick that fails is handed to
 * `failed` (by default logged as `what` failed, retried at the next tick): it never escapes as an
 * unhandled rejection, which would end the whole server (a sweep under way when DynamoDB Local died
 * did, and the request in flight saw its connection closed). Answers the stop.
 */
export const every = (
  everyMs: number,
  paused: () => boolean,
  tick: () => Promise<void>,
  what: string,
  failed: (error: unknown) => void = (error) =>
    console.error(
      `${what} failed (retried in ${everyMs / 1000} s): ${error instanceof Error ? error.message : String(error)}`,
    ),
): (() => void) => {
  let running = false;
  const run = async () => {
    if (running || paused()) return;
    running = true;
    try {
      await tick();
    } catch (error) {
      failed(error);
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
};
