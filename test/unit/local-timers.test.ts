import { describe, expect, it } from 'vitest';
import { every } from '#infra/local/every.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * `npm start`'s timers (sweeps, webhook retries, repairs): a failing tick is reported and the
 * next one runs; it never becomes an unhandled rejection, which would end the whole server.
 */
describe('every', () => {
  it('hands a failing tick to its report and runs the next tick', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const failures: unknown[] = [];
    let runs = 0;
    const stop = every(
      5,
      () => false,
      async () => {
        runs++;
        if (runs === 1) throw new Error('the database is down');
      },
      'A sweep',
      (error) => failures.push(error),
    );
    try {
      while (runs < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      await tick();
      expect(failures).toEqual([new Error('the database is down')]);
      expect(unhandled).toEqual([]);
    } finally {
      stop();
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('logs what failed and when it is retried by default', async () => {
    const lines: string[] = [];
    const original = console.error;
    console.error = (line: string) => lines.push(line);
    let stop = () => {};
    try {
      stop = every(
        60_000,
        () => false,
        async () => {
          throw new Error('connect ECONNREFUSED');
        },
        'The webhook retry sweep',
      );
      for (let i = 0; i < 10 && lines.length === 0; i++) await tick();
      expect(lines).toEqual(['The webhook retry sweep failed (retried in 60 s): connect ECONNREFUSED']);
    } finally {
      stop();
      console.error = original;
    }
  });

  it('skips ticks while paused', async () => {
    let runs = 0;
    const stop = every(
      5,
      () => true,
      async () => {
        runs++;
      },
      'A sweep',
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop();
    expect(runs).toBe(0);
  });
});
