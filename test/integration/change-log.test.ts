import { describe, expect, it } from 'vitest';
import { callSummary, resetCalls } from '#shared/db/metrics.ts';
import {
  APPEND_CHUNK,
  appendChanges,
  type ChangeDraft,
  changesAfter,
  expiryOf,
  headSeqOf,
} from '#shared/entities/change-log.ts';
import { newId } from '#shared/ids.ts';

/**
 * Issue 28, the log's own guarantees on DynamoDB Local: `seq` per base without gaps, each source
 * written once however often it is handed over, and writers of one base never giving a `seq`
 * twice.
 */

const EXPIRES = expiryOf(new Date(), 30);

const drafts = (baseId: string, prefix: string, n: number): ChangeDraft[] =>
  Array.from({ length: n }, (_, i) => ({
    sourceId: `${prefix}-${i}`,
    type: 'record.updated',
    baseId,
    tableId: 'tblAAAAAAAAAAAAAAAA',
    recordId: `rec${String(i).padStart(16, '0')}`,
    actor: { id: 'usrAAAAAAAAAAAAAAAA', name: 'Ada' },
    occurredAt: '2026-11-28T00:00:00.000Z',
    txId: `tx-${prefix}`,
    before: { fldA: i },
    after: { fldA: i + 1 },
  }));

const wholeLog = async (baseId: string) => {
  const out = [];
  for (let after = 0; ; ) {
    const page = await changesAfter(baseId, after, 50);
    // as the feed answers them: without the moment they leave the log
    out.push(...page.map(({ expiresAt: _, ...entry }) => entry));
    if (page.length < 50) return out;
    after = page.at(-1)?.seq ?? after;
  }
};

describe('the change log', () => {
  it('appends 120 changes as seq 1..120, in order, readable page by page, with stable event ids', async () => {
    const baseId = newId('base');
    const input = drafts(baseId, newId('record'), 120);

    const written = await appendChanges(baseId, input, EXPIRES);
    const log = await wholeLog(baseId);

    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(log).toEqual(written);
    expect(log[7]).toEqual({
      seq: 8,
      id: expect.stringMatching(/^evt[0-9A-Za-z]{16}$/),
      type: 'record.updated',
      baseId,
      tableId: 'tblAAAAAAAAAAAAAAAA',
      recordId: 'rec0000000000000007',
      actor: { id: 'usrAAAAAAAAAAAAAAAA', name: 'Ada' },
      occurredAt: '2026-11-28T00:00:00.000Z',
      txId: input[7]?.txId,
      before: { fldA: 7 },
      after: { fldA: 8 },
    });
    expect(await headSeqOf(baseId)).toBe(120);
    expect((await changesAfter(baseId, 118, 10)).map(({ expiresAt: _, ...e }) => e)).toEqual(
      written.slice(118),
    );
  });

  it('fresh drafts cost one head read and one transaction a chunk: no source is read on the common path', async () => {
    const baseId = newId('base');
    resetCalls();
    const written = await appendChanges(baseId, drafts(baseId, newId('record'), 200), EXPIRES);

    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const chunks = Math.ceil(200 / APPEND_CHUNK);
    expect(callSummary().ops).toEqual(['GetItem', ...Array(chunks).fill('TransactWriteItems')]);
  });

  it('the same sources handed over again are written once; a batch half old, half new writes only the new', async () => {
    const baseId = newId('base');
    const prefix = newId('record');
    const first = await appendChanges(baseId, drafts(baseId, prefix, 60), EXPIRES);

    const again = await appendChanges(baseId, drafts(baseId, prefix, 60), EXPIRES);
    const more = await appendChanges(baseId, drafts(baseId, prefix, 90), EXPIRES);

    expect(again).toEqual([]);
    expect(more.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => 61 + i));
    const log = await wholeLog(baseId);
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
    expect(log.slice(0, 60)).toEqual(first);
    expect(new Set(log.map((e) => e.id)).size).toBe(90);
  });

  it('four writers of one base at once: seq 1..120 without gap or repeat, each writer in its order', async () => {
    const baseId = newId('base');
    const writers = ['a', 'b', 'c', 'd'].map((w) => drafts(baseId, `${baseId}-${w}`, 30));

    await Promise.all(writers.map((d) => appendChanges(baseId, d, EXPIRES)));
    const log = await wholeLog(baseId);

    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    for (const w of ['a', 'b', 'c', 'd']) {
      const own = log.filter((e) => e.txId === `tx-${baseId}-${w}`);
      expect(own.map((e) => e.recordId)).toEqual(
        Array.from({ length: 30 }, (_, i) => `rec${String(i).padStart(16, '0')}`),
      );
    }
  });

  it('two writers handed the same sources at once write each source once', async () => {
    const baseId = newId('base');
    const same = drafts(baseId, newId('record'), 60);

    const [x, y] = await Promise.all([
      appendChanges(baseId, same, EXPIRES),
      appendChanges(baseId, same, EXPIRES),
    ]);
    const log = await wholeLog(baseId);

    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(new Set(log.map((e) => e.id)).size).toBe(60);
    expect(x.length + y.length).toBe(60);
  });
});
