import { sweepWorker } from '#shared/trash/job-runner.ts';
import { every } from './every.ts';

/** Locally every five minutes (the stack's schedule is hourly): lost jobs sent again, due files released. */
export const LOCAL_SWEEP_MS = 5 * 60_000;

/**
 * Plays the purge worker's scheduled sweep for `npm start` (`sweepWorker`): now, then every
 * `everyMs`. Ticks while the database is down are skipped.
 */
export const startSweepTimer = (
  everyMs = LOCAL_SWEEP_MS,
  paused: () => boolean = () => false,
): (() => void) =>
  every(
    everyMs,
    paused,
    async () => {
      const { resent, released } = await sweepWorker();
      if (resent) console.log(`Sent ${resent} unfinished background job(s) again`);
      if (released) console.log(`Released ${released} file(s) no cell has held for a day`);
    },
    'The background sweep (unfinished jobs, files no cell holds)',
  );
