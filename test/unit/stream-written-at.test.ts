import { describe, expect, it } from 'vitest';
import { writtenAtOf } from '#infra/local/stream-poller.ts';
import type { StreamRecord } from '#shared/db/stream.ts';

/**
 * The local poller's lag is measured from when a record was written at the earliest: DynamoDB
 * Local stamps stream records to the minute, which alone made a capture 2 s behind look 50 s behind
 * (and held an import back that had no reason to wait).
 */
const record = (at: string, newImage?: Record<string, unknown>): StreamRecord => ({
  eventId: 'e',
  sequence: '1',
  kind: newImage ? 'MODIFY' : 'REMOVE',
  at,
  ...(newImage ? { newImage: { pk: 'p', sk: 's', ...newImage } } : {}),
});
const now = Date.parse('2026-11-30T02:33:06.500Z');

describe('writtenAtOf', () => {
  it("sharpens the stream's minute with the record's own time", () => {
    const r = record('2026-11-30T02:33:00.000Z', { lastModifiedTime: '2026-11-30T02:33:05.900Z' });
    expect(writtenAtOf(r, 0, now)).toBe(Date.parse('2026-11-30T02:33:05.900Z'));
    // a propagated write keeps the record's old lastModifiedTime and says its own time in `at`
    const propagated = record('2026-11-30T02:33:00.000Z', {
      lastModifiedTime: '2026-11-01T00:00:00.000Z',
      at: '2026-11-30T02:33:04.000Z',
    });
    expect(writtenAtOf(propagated, 0, now)).toBe(Date.parse('2026-11-30T02:33:04.000Z'));
  });

  it('is never before the record ahead of it in the shard, nor before the stream stamp', () => {
    const removed = record('2026-11-30T02:33:00.000Z');
    expect(writtenAtOf(removed, Date.parse('2026-11-30T02:33:05.000Z'), now)).toBe(
      Date.parse('2026-11-30T02:33:05.000Z'),
    );
    expect(writtenAtOf(removed, 0, now)).toBe(Date.parse('2026-11-30T02:33:00.000Z'));
    // an old record's own time never pulls it below the stream's stamp
    const old = record('2026-11-30T02:33:00.000Z', { lastModifiedTime: '2026-01-01T00:00:00.000Z' });
    expect(writtenAtOf(old, 0, now)).toBe(Date.parse('2026-11-30T02:33:00.000Z'));
  });

  it('ignores a time in the future and one that is no time', () => {
    const odd = record('2026-11-30T02:33:00.000Z', {
      lastModifiedTime: '2027-01-01T00:00:00.000Z',
      at: 'soon',
    });
    expect(writtenAtOf(odd, 0, now)).toBe(Date.parse('2026-11-30T02:33:00.000Z'));
  });
});
