/**
 * How many test files run at once (one per core on this machine kind: test/README.md measures
 * it), and which of a per-worker resource a file takes. Vitest numbers the workers running at
 * once from 1 (`VITEST_POOL_ID`), so two files running side by side never take the same one.
 */
export const TEST_WORKERS = 2;

export const forThisWorker = <T>(list: readonly T[]): T => {
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  const picked = list[(worker - 1) % list.length];
  if (picked === undefined) throw new Error('forThisWorker: an empty list');
  return picked;
};
