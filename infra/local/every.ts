/**
 * Runs `tick` now and then every `everyMs` for `npm start`'s plays of the stack's schedules: a tick
 * still running makes the next one skip, ticks while `paused()` (the database known to be down)
 * are skipped, and the timer never keeps the process alive. Answers the stop.
 */
export const every = (everyMs: number, paused: () => boolean, tick: () => Promise<void>): (() => void) => {
  let running = false;
  const run = async () => {
    if (running || paused()) return;
    running = true;
    try {
      await tick();
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
};
