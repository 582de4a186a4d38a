import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';

describe('keys: what is written can be read back', () => {
  it('a manual-order entry gives back its order key', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Za-z]{1,20}$/), (orderKey) => {
        const { sk } = keys.viewOrderEntry('viwAAAAAAAAAAAAAAAA', orderKey, 'recAAAAAAAAAAAAAAAA');
        expect(keys.orderKeyOfEntry(sk)).toBe(orderKey);
      }),
    );
  });

  it('a default-order entry gives back its autoNumber, and sorts as its number (12 digits)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 12 - 1 }),
        fc.integer({ min: 1, max: 10 ** 12 - 1 }),
        (a, b) => {
          const ka = keys.recordNumber('tblAAAAAAAAAAAAAAAA', a).sk;
          const kb = keys.recordNumber('tblAAAAAAAAAAAAAAAA', b).sk;
          expect(keys.autoNumberOfEntry(ka)).toBe(a);
          expect(ka < kb).toBe(a < b);
        },
      ),
    );
  });

  it('a notification key gives back its id and read state', () => {
    for (const state of ['read', 'unread'] as const) {
      const { sk } = keys.notification('usrAAAAAAAAAAAAAAAA', 'ntfB', state);
      expect(keys.notificationIdOf(sk)).toBe('ntfB');
      expect(keys.notificationStateOf(sk)).toBe(state);
    }
  });

  it('the IAM pattern for user partitions matches a user key', () => {
    const pattern = new RegExp(`^${keys.userPartitionPattern.replace('*', '.*')}$`);
    expect(pattern.test(keys.user('usrAAAAAAAAAAAAAAAA').pk)).toBe(true);
    expect(pattern.test(keys.space('spcAAAAAAAAAAAAAAAA').pk)).toBe(false);
  });
});

describe('keys: a bound just below a sort key', () => {
  it('every printable-ASCII key below a key is at most its bound, and every other key is above the bound', () => {
    const printable = fc.stringMatching(/^[!-~]{1,12}$/);
    fc.assert(
      fc.property(printable, printable, (key, other) => {
        const bound = keys.justBelow(key);
        expect(other < key).toBe(other <= bound);
        expect(bound < key).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // near neighbours, where a random pair rarely lands
    for (const key of ['b', 'ab', 'a!', 'a~', '!', '~~'])
      for (const other of [key, `${key}!`, key.slice(0, -1), `${key.slice(0, -1)}~`, `${key.slice(0, -1)}~~`])
        if (other) expect(other < key, `${other} vs ${key}`).toBe(other <= keys.justBelow(key));
  });
});
