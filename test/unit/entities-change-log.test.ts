import { describe, expect, it } from 'vitest';
import {
  appendOps,
  type ChangeEntry,
  changeEntryItem,
  changeEntryOf,
  eventIdOf,
  expiryOf,
} from '#shared/entities/change-log.ts';

/** Issue 28: the change log's items and its append transaction, as plain data. */

const draft = {
  sourceId: 'stream-1',
  type: 'field.created' as const,
  baseId: 'bseAAAAAAAAAAAAAAAA',
  tableId: 'tblAAAAAAAAAAAAAAAA',
  fieldId: 'fldAAAAAAAAAAAAAAAA',
  actor: { id: 'system' },
  occurredAt: '2026-11-28T00:00:00.000Z',
  txId: 'req-1',
};

describe('change-log entity', () => {
  it('derives the same evt id from the same source, another from another', () => {
    expect(eventIdOf('a')).toBe(eventIdOf('a'));
    expect(eventIdOf('a')).not.toBe(eventIdOf('b'));
    expect(eventIdOf('a')).toMatch(/^evt[0-9A-Za-z]{16}$/);
  });

  it('keeps entries for the retention: 30 days in epoch seconds', () => {
    expect(expiryOf(new Date('2026-11-28T00:00:00.000Z'), 30)).toBe(Date.UTC(2026, 11, 28) / 1000); // 28 December
  });

  it('appends after the head: the head moves under its condition, entries and markers where nothing is', () => {
    const { ops, entries } = appendOps(
      'bseAAAAAAAAAAAAAAAA',
      7,
      [draft, { ...draft, sourceId: 'stream-2' }],
      99,
    );

    expect(entries.map((e) => [e.seq, e.id])).toEqual([
      [8, eventIdOf('stream-1')],
      [9, eventIdOf('stream-2')],
    ]);
    expect(ops[0]).toEqual({
      update: {
        key: { pk: 'LOG#bseAAAAAAAAAAAAAAAA', sk: 'HEAD' },
        update: 'SET seq = :last, #t = :t',
        condition: 'seq = :head',
        names: { '#t': 'type' },
        values: { ':last': 9, ':t': 'changeLogHead', ':head': 7 },
      },
    });
    expect(ops.slice(1, 3).map((op) => ('put' in op ? [op.put.sk, op.condition] : []))).toEqual([
      ['SEQ#000000000008', 'attribute_not_exists(pk)'],
      ['SEQ#000000000009', 'attribute_not_exists(pk)'],
    ]);
    expect(ops[3]).toEqual({
      put: {
        pk: 'LOGSRC#stream-1',
        sk: 'SRC',
        type: 'changeSource',
        baseId: 'bseAAAAAAAAAAAAAAAA',
        seq: 8,
        expiresAt: 99,
      },
      condition: 'attribute_not_exists(pk)',
    });
  });

  it('a first append allows a head that does not exist yet', () => {
    const { ops } = appendOps('bseAAAAAAAAAAAAAAAA', 0, [draft], 99);
    expect(ops[0]).toMatchObject({ update: { condition: 'attribute_not_exists(seq) OR seq = :zero' } });
  });

  it('an entry survives its item unchanged', () => {
    const entry: ChangeEntry = {
      ...draft,
      seq: 3,
      id: eventIdOf('x'),
      computed: true,
      after: { fldA: [1, 2] },
    };
    delete (entry as { sourceId?: string }).sourceId;
    expect(changeEntryOf(changeEntryItem(entry, 99))).toEqual(entry);
  });
});
