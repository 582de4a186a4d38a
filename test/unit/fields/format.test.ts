import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalTimeZone,
  formatDate,
  instantOf,
  parseDate,
  parseIsoWithOffset,
  parseNumberText,
  wallClockAt,
} from '#shared/core/format.ts';

const now = new Date('2026-03-01T12:00:00.000Z');

describe('canonicalTimeZone', () => {
  it.each([
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['Europe/Berlin', 'Europe/Berlin'],
    ['america/new_york', 'America/New_York'],
    ['Mars/Olympus', undefined],
    ['', undefined],
  ])('%s → %s', (zone, expected) => {
    expect(canonicalTimeZone(zone)).toBe(expected);
  });
});

describe('canonicalTimeZone, kept answers', () => {
  it('answers the same the second time, for a known and an unknown zone', () => {
    for (const zone of ['asia/tokyo', 'Mars/Olympus', ' '])
      expect(canonicalTimeZone(zone)).toBe(canonicalTimeZone(zone));
    expect(canonicalTimeZone('asia/tokyo')).toBe('Asia/Tokyo');
  });
});

describe('wallClockAt in UTC (read without a formatter)', () => {
  it('agrees with the formatter of an equal zone for any instant of years 1..9999 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62135596800000, max: 253402300799999 }), (epochMs) => {
        expect(wallClockAt(epochMs, 'UTC')).toEqual(wallClockAt(epochMs, 'Etc/UTC'));
      }),
    );
  });
});

describe('instantOf around daylight-saving changes', () => {
  it.each([
    [
      'a skipped time lands after the change (New York)',
      '2026-03-08 02:30',
      'America/New_York',
      '2026-03-08T07:30:00.000Z',
    ],
    [
      'a skipped time lands after the change (Berlin)',
      '2026-03-29 02:30',
      'Europe/Berlin',
      '2026-03-29T01:30:00.000Z',
    ],
    [
      'a repeated time is one of its two instants',
      '2026-11-01 01:30',
      'America/New_York',
      '2026-11-01T05:30:00.000Z',
    ],
    ['a zone with a 45-minute offset', '2026-03-01', 'Pacific/Chatham', '2026-02-28T10:15:00.000Z'],
  ])('%s', (_what, text, timeZone, expected) => {
    expect(parseDate(text, { timeZone, now })).toBe(expected);
  });

  it('wall-clock text in a zone formats back to the same text (property)', () => {
    const zones = ['UTC', 'Asia/Tokyo', 'Asia/Kolkata', 'America/Sao_Paulo', 'Australia/Eucla'];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1) / 60_000, max: Date.UTC(2200, 0, 1) / 60_000 }),
        fc.constantFrom(...zones),
        (minute, timeZone) => {
          const iso = new Date(minute * 60_000).toISOString();
          const text = formatDate(iso, { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone });
          const parsed = parseDate(text, { timeZone, now });
          expect(parsed && formatDate(parsed, { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone })).toBe(text);
        },
      ),
    );
  });

  it('agrees with the zone offset for ordinary times', () => {
    const wall = { year: 2026, month: 7, day: 1, hour: 9, minute: 0, second: 0, millisecond: 0 };
    expect(new Date(instantOf(wall, 'Europe/Berlin')).toISOString()).toBe('2026-07-01T07:00:00.000Z');
  });
});

describe('parseIsoWithOffset', () => {
  it.each([
    ['2026-03-01T00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01 00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T09:00:00+09', '2026-03-01T00:00:00.000Z'],
    ['2024-02-29T12:00:00.123456Z', '2024-02-29T12:00:00.123Z'],
    ['2026-03-01T24:00:00Z', '2026-03-02T00:00:00.000Z'],
    ['2025-02-29T00:00:00Z', undefined],
    ['2026-13-01T00:00:00Z', undefined],
    ['2026-03-01T00:00:00+24:00', undefined],
    ['2026-03-01', undefined],
    ['0000-01-01T00:00:00Z', undefined],
  ])('%s → %s', (text, expected) => {
    expect(parseIsoWithOffset(text)).toBe(expected);
  });
});

describe('parseNumberText', () => {
  it.each([
    ['1,234.5', 1234.5],
    ['€ 3', 3],
    ['50%', 0.5],
    ['1e3', 13],
    ['', undefined],
    ['--', undefined],
    ['9'.repeat(400), undefined],
  ])('%s → %s', (text, expected) => {
    expect(parseNumberText(text)).toBe(expected);
  });
});

describe('parseDate and formatDate on any input', () => {
  it('never throw (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const parsed = parseDate(value, { timeZone: 'Europe/Berlin', now });
        if (parsed !== undefined) expect(parsed).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(typeof formatDate(text, { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'UTC' })).toBe(
          'string',
        );
      }),
    );
  });
});
