import pRetry from 'p-retry';
import { ConflictError } from './errors.ts';

/**
 * Runs `work` again while it loses a race (a `ConflictError`), up to `attempts` times in all,
 * waiting a jittered, doubling time between tries (20–40 ms, then 40–80 ms…) so that racing
 * writers spread out; the last conflict, or any other error, is thrown as it is.
 */
export const retryOnConflict = <T>(work: () => Promise<T>, attempts: number): Promise<T> =>
  pRetry(work, {
    retries: attempts - 1,
    minTimeout: 20,
    factor: 2,
    randomize: true,
    shouldRetry: (error) => error instanceof ConflictError,
  });
