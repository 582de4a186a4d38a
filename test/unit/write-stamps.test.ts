import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteActor, noteWriteSent, withRequestScope, writeStamps } from '#shared/db/request-scope.ts';

/**
 * The stamps a request puts on the items it writes (data-flow.md 1). Every item of one write
 * carries one time: a transaction's items stamped a millisecond apart were handed over by the
 * stream in either order, and the feed came out of time order.
 */
describe('writeStamps', () => {
  afterEach(() => vi.useRealTimers());

  it('gives every item of one write the same time, and the next write its own', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00.000Z'), toFake: ['Date'] });
    await withRequestScope(
      10_000,
      async () => {
        noteActor('usrA');
        const first = writeStamps();
        vi.setSystemTime(new Date('2026-01-01T00:00:00.007Z'));
        const second = writeStamps();
        expect(first).toEqual({ tx: 'req1', by: 'usrA', at: '2026-01-01T00:00:00.000Z' });
        expect(second).toEqual(first);
        noteWriteSent();
        expect(writeStamps().at).toBe('2026-01-01T00:00:00.007Z');
      },
      'req1',
    );
  });

  it('stamps nothing outside a request', () => {
    expect(writeStamps()).toEqual({});
  });
});
