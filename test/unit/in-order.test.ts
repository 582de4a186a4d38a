import { describe, expect, it } from 'vitest';
import { allInOrder } from '#shared/core/in-order.ts';

const resolvesAfter = <T>(ms: number, run: () => T) =>
  new Promise<T>((resolve, reject) =>
    setTimeout(() => {
      try {
        resolve(run());
      } catch (error) {
        reject(error);
      }
    }, ms),
  );

describe('allInOrder', () => {
  it('answers every result in the order given', async () => {
    expect(await allInOrder([resolvesAfter(5, () => 1), Promise.resolve('two'), undefined])).toEqual([
      1,
      'two',
      undefined,
    ]);
  });

  it('fails with the first failed step in the order given, not the first to fail in time', async () => {
    const steps = [
      resolvesAfter(20, () => {
        throw new Error('links');
      }),
      resolvesAfter(1, () => {
        throw new Error('unique');
      }),
    ];

    await expect(allInOrder(steps)).rejects.toThrow('links');
  });
});
