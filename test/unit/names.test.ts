import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '#shared/core/names.ts';

describe('uniqueName', () => {
  it.each([
    ['nothing taken', [], 'Space'],
    ['other names taken', ['Plans', 'Space X'], 'Space'],
    ['the base taken', ['Space'], 'Space 2'],
    ['base and 2 taken', ['Space', 'Space 2'], 'Space 3'],
    ['a gap at 2', ['Space', 'Space 3'], 'Space 2'],
    ['a gap at 4', ['Space', 'Space 2', 'Space 3', 'Space 5'], 'Space 4'],
    ['only numbered names taken', ['Space 2', 'Space 3'], 'Space'],
    ['a different case', ['space'], 'Space'],
    ['"Space 1" does not count', ['Space', 'Space 1'], 'Space 2'],
    ['duplicates in the list', ['Space', 'Space', 'Space 2', 'Space 2'], 'Space 3'],
  ])('%s → %s', (_what, taken, expected) => {
    expect(uniqueName('Space', taken)).toBe(expected);
  });

  it('takes any iterable', () => {
    expect(uniqueName('Space', new Set(['Space']))).toBe('Space 2');
  });

  it('returns a name not taken, the lowest of base, base 2, base 3… (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 30 }), (numbers) => {
        const taken = numbers.map((n) => (n === 1 ? 'Space' : `Space ${n}`));
        const name = uniqueName('Space', taken);
        const lowest = Array.from({ length: 32 }, (_, i) => i + 1).find((n) => !numbers.includes(n));
        expect(taken).not.toContain(name);
        expect(name).toBe(lowest === 1 ? 'Space' : `Space ${lowest}`);
      }),
    );
  });
});
