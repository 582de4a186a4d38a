/** `retryOnConflict` (shared/core/retry.ts): a lost race is tried again, up to the attempts given; nothing else is. */
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '#shared/core/errors.ts';
import { retryOnConflict } from '#shared/core/retry.ts';

describe('retryOnConflict', () => {
  it('tries again after a conflict and answers the first success', async () => {
    let tries = 0;
    const answer = await retryOnConflict(async () => {
      tries++;
      if (tries < 3) throw new ConflictError('raced');
      return 'placed';
    }, 5);
    expect({ answer, tries }).toEqual({ answer: 'placed', tries: 3 });
  });

  it('gives up after the attempts given, with the last conflict as it is', async () => {
    let tries = 0;
    const failing = retryOnConflict(async () => {
      tries++;
      throw new ConflictError(`raced ${tries}`);
    }, 3);
    await expect(failing).rejects.toThrow(ConflictError);
    await expect(failing).rejects.toThrow('raced 3');
    expect(tries).toBe(3);
  });

  it('does not try again after any other error', async () => {
    let tries = 0;
    await expect(
      retryOnConflict(async () => {
        tries++;
        throw new NotFoundError('gone');
      }, 5),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(tries).toBe(1);
  });
});
