import { afterAll, beforeAll } from 'vitest';
import { type StreamPoller, startStreamPoller } from '#infra/local/stream-poller.ts';

/**
 * A stream poller over the test run's DynamoDB Local, started before the file's tests (from the
 * stream's end: what they write from then on) and stopped after; `caughtUp` waits until what was
 * written before the call is in the change log.
 */
export const useStreamPoller = () => {
  let poller: StreamPoller | undefined;
  beforeAll(async () => {
    poller = startStreamPoller({
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB as string,
      tableName: process.env.TABLE_NAME as string,
      startAt: 'LATEST',
      idleMs: 50,
    });
    await poller.caughtUp(20_000);
  });
  afterAll(() => poller?.stop());
  return {
    /** Waits until the poller has read everything written so far (20 s unless told). */
    caughtUp: (timeoutMs = 20_000) => (poller as StreamPoller).caughtUp(timeoutMs),
  };
};
