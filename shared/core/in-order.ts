/**
 * Runs independent steps at once and answers their results, failing with the error of the first
 * failed step in the order given (not the first to fail in time), so a request with several
 * faults always gets the same answer.
 */
export const allInOrder = async <const T extends readonly unknown[]>(
  steps: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> => {
  const settled = await Promise.allSettled(steps);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
};
