/**
 * The capture's lag as the local stream poller reports it (and `GET /api/health` under `npm
 * start` says it): the age of the oldest record a pass found, 0 once a pass finds none. The
 * poller is held (its `isDown`) while records wait in the stream, then let through for one pass.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type StreamPoller, startStreamPoller } from '#infra/local/stream-poller.ts';
import { putItem } from '#shared/db/client.ts';

let phase: 'hold' | 'once' | 'free' = 'hold';
let poller: StreamPoller | undefined;
afterAll(() => poller?.stop());

const until = async (check: () => boolean, what: string) => {
  for (const started = Date.now(); !check(); ) {
    if (Date.now() - started > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the local stream poller', () => {
  it('reports how long the records it found had waited, and 0 once it has caught up', async () => {
    let passes = 0;
    poller = startStreamPoller({
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB as string,
      tableName: process.env.TABLE_NAME as string,
      startAt: 'TRIM_HORIZON',
      idleMs: 20,
      isDown: () => {
        if (phase === 'hold') return true;
        if (phase === 'once') {
          phase = 'hold';
          passes++;
        }
        return false;
      },
    });
    expect(poller.lagMs()).toBe(0);

    for (let i = 0; i < 5; i++) await putItem({ pk: `LAGTEST#${i}`, sk: 'A', type: 'lagTest' });
    await new Promise((r) => setTimeout(r, 2_500));
    phase = 'once';
    await until(() => passes === 1 && (poller as StreamPoller).stats().records >= 5, 'one pass');
    // these items carry no time of their own, so the stream's stamp (to the minute here) is their
    // earliest: they waited at least 1.5 s
    await until(() => (poller as StreamPoller).lagMs() > 0, 'the pass to end');
    expect(poller.lagMs()).toBeGreaterThanOrEqual(1_500);
    // an age, never an epoch: the stream keeps records 24 hours (read from its start, the pass may
    // also find this table's earlier writes, a minute old under a loaded suite)
    expect(poller.lagMs()).toBeLessThan(24 * 3_600_000);

    phase = 'free';
    await poller.caughtUp(20_000);
    expect(poller.lagMs()).toBe(0);
  });
});
