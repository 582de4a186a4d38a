/**
 * Issue 49's fairness: the stream is one queue of every base's writes, and a burst in one base
 * must not hold another base's change-log entries back behind it. The local stream poller reads
 * ahead and captures a slice of every waiting base side by side, each base in its own order.
 * Checked by order of arrival (never by time): the live fan-out sees the quiet base's entry while
 * the busy base's burst is still being captured, and each base's entries arrive in their order.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type StreamPoller, startStreamPoller } from '#infra/local/stream-poller.ts';
import type { ChangeEntry } from '#shared/entities/change-log.ts';
import { publishLiveTo } from '#shared/live/publish.ts';
import { createRecords, updateRecord } from '#test/support/records.ts';
import { newTable } from '#test/support/workspace.ts';

let held = false;
let poller: StreamPoller | undefined;
const arrivals: { baseId: string; seqs: number[] }[] = [];
const stopListening = publishLiveTo(async (baseId, entries: readonly ChangeEntry[]) => {
  arrivals.push({ baseId, seqs: entries.map((e) => e.seq) });
});
afterAll(async () => {
  stopListening();
  await poller?.stop();
});

const BURST = 1_200;
/** Records a request (lighter than the API's limit: the suite runs two files at once). */
const PER_REQUEST = 200;

describe('change capture across bases', () => {
  it("a burst in one base does not hold back another base's entry: it arrives while the burst is still being captured", async () => {
    const busy = await newTable({ fields: [{ name: 'Name', type: 'singleLineText' }], records: [] });
    const quiet = await newTable({
      fields: [{ name: 'Name', type: 'singleLineText' }],
      records: [{ fields: { Name: 'before' } }],
    });
    poller = startStreamPoller({
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB as string,
      tableName: process.env.TABLE_NAME as string,
      startAt: 'LATEST',
      idleMs: 20,
      isDown: () => held,
    });
    await poller.caughtUp(20_000);
    arrivals.length = 0;

    // held while the burst, then the quiet base's one edit, wait in the stream behind it
    held = true;
    for (let i = 0; i < BURST / PER_REQUEST; i++) {
      const res = await createRecords(busy, {
        records: Array.from({ length: PER_REQUEST }, (_, j) => ({
          fields: { Name: `row ${i * PER_REQUEST + j}` },
        })),
      });
      expect(res.status).toBe(201);
    }
    const recordId = (quiet.table.records as { id: string }[])[0]?.id as string;
    expect((await updateRecord(quiet, recordId, { record: { fields: { Name: 'after' } } })).status).toBe(200);
    held = false;
    await poller.caughtUp(120_000);

    const busySeqs = arrivals.filter((a) => a.baseId === busy.baseId).flatMap((a) => a.seqs);
    const quietAt = arrivals.findIndex((a) => a.baseId === quiet.baseId);
    expect(busySeqs).toHaveLength(BURST);
    // each base's entries arrive in their order
    expect(busySeqs).toEqual([...busySeqs].sort((a, b) => a - b));
    expect(quietAt).toBeGreaterThanOrEqual(0);
    // when the quiet base's entry arrived, the burst was still being captured: at most the slice
    // captured beside it (1,000 records) had arrived, never the whole burst
    const busyBefore = arrivals
      .slice(0, quietAt)
      .filter((a) => a.baseId === busy.baseId)
      .flatMap((a) => a.seqs);
    expect(busyBefore.length).toBeLessThanOrEqual(1_000);
  }, 180_000);
});
