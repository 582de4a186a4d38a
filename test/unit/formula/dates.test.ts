/**
 * Dates inside formulas (computed.md 1.5): readDate, format tokens both ways, units and calendar
 * math. Every zone is named; nothing depends on the machine's clock or zone.
 */
import { describe, expect, it } from 'vitest';
import { addUnits, diffIn, monthsBetween, startOf, unitOf } from '#shared/formula/date-units.ts';
import { formatWithTokens, parseWithTokens, readDate } from '#shared/formula/dates.ts';
import { FormulaEvalError } from '#shared/formula/formula-types.ts';

const ms = (iso: string): number => Date.parse(iso);
const NOW = new Date('2023-09-08T10:00:00.000Z');

describe('readDate', () => {
  it('reads ISO-8601 with Z or an offset as that instant, whatever the zone', () => {
    expect(readDate('2023-09-08T18:28:38Z', 'Europe/Berlin')).toBe('2023-09-08T18:28:38.000Z');
    expect(readDate('2023-09-08T18:28:38.123Z', 'UTC')).toBe('2023-09-08T18:28:38.123Z');
    expect(readDate('2023-09-08T10:00:00+08:00', 'America/Los_Angeles')).toBe('2023-09-08T02:00:00.000Z');
    expect(readDate('2023-09-08T10:00-0530', 'UTC')).toBe('2023-09-08T15:30:00.000Z');
    expect(readDate('  2023-09-08T10:00:00.5+08:00 ', 'UTC')).toBe('2023-09-08T02:00:00.500Z');
  });

  it('reads other text as local time in the zone', () => {
    expect(readDate('2023-09-08', 'UTC')).toBe('2023-09-08T00:00:00.000Z');
    expect(readDate('2023-09-08 18:28:38', 'UTC')).toBe('2023-09-08T18:28:38.000Z');
    expect(readDate('2023/09/08', 'UTC')).toBe('2023-09-08T00:00:00.000Z');
    expect(readDate('2023-09-08T18:28', 'UTC')).toBe('2023-09-08T18:28:00.000Z');
    expect(readDate('2023-09-08T18:28:38.250', 'UTC')).toBe('2023-09-08T18:28:38.250Z');
    expect(readDate('2023-09-08', 'Asia/Shanghai')).toBe('2023-09-07T16:00:00.000Z');
    expect(readDate('2023-09-08 18:28:38', 'America/Los_Angeles')).toBe('2023-09-09T01:28:38.000Z');
    expect(readDate('March 1, 2026', 'UTC')).toBe('2026-03-01T00:00:00.000Z');
    expect(readDate('03/01/2026 2:05 PM', 'UTC')).toBe('2026-03-01T14:05:00.000Z');
  });

  it('reads a year-month or a year as its first day', () => {
    expect(readDate('2023-09', 'UTC')).toBe('2023-09-01T00:00:00.000Z');
    expect(readDate('2023', 'Europe/Berlin')).toBe('2022-12-31T23:00:00.000Z');
  });

  it('follows daylight saving in Europe/Berlin (summer +2, winter +1)', () => {
    expect(readDate('2023-07-01 12:00', 'Europe/Berlin')).toBe('2023-07-01T10:00:00.000Z');
    expect(readDate('2023-01-01 12:00', 'Europe/Berlin')).toBe('2023-01-01T11:00:00.000Z');
    // 02:30 is skipped on 26 March: the time lands after the gap (03:30 CEST)
    expect(readDate('2023-03-26 02:30', 'Europe/Berlin')).toBe('2023-03-26T01:30:00.000Z');
  });

  it.each([
    'abc',
    '',
    '   ',
    'now',
    '2023-02-30',
    '2023-13-01',
    '2023-09-08 25:00',
    '2023-09-08T10:00+25:00',
    '2023-00',
  ])('throws FormulaEvalError on unreadable %j', (text) => {
    expect(() => readDate(text, 'UTC')).toThrow(FormulaEvalError);
  });
});

describe('unitOf', () => {
  it.each([
    ['ms', 'millisecond'],
    ['s', 'second'],
    ['m', 'minute'],
    ['h', 'hour'],
    ['d', 'day'],
    ['w', 'week'],
    ['M', 'month'],
    ['Q', 'quarter'],
    ['y', 'year'],
  ])('short alias %s is %s', (alias, unit) => {
    expect(unitOf(alias)).toBe(unit);
  });

  it.each([
    ['millisecond', 'millisecond'],
    ['Milliseconds', 'millisecond'],
    ['SECOND', 'second'],
    ['seconds', 'second'],
    ['Minute', 'minute'],
    ['minutes', 'minute'],
    ['hours', 'hour'],
    ['Day', 'day'],
    ['DAYS', 'day'],
    ['weeks', 'week'],
    ['month', 'month'],
    ['Months', 'month'],
    ['quarters', 'quarter'],
    ['year', 'year'],
    ['YEARS', 'year'],
    [' day ', 'day'],
  ])('long name %j is %s', (name, unit) => {
    expect(unitOf(name)).toBe(unit);
  });

  it.each(['D', 'H', 'Y', 'MS', 'q', 'W', 'hs', 'dayss', 'fortnight', ''])(
    '%j is unknown (short aliases are case-sensitive, plurals only on long names)',
    (name) => {
      expect(unitOf(name)).toBeUndefined();
    },
  );
});

describe('calendar math', () => {
  it('counts calendar months as dayjs does (13.23 from 2022-08-01T16:30 to 2023-09-08T19:20)', () => {
    const a = ms('2022-08-01T16:30:00Z');
    const b = ms('2023-09-08T19:20:00Z');
    expect(Math.abs(monthsBetween(a, b))).toBeCloseTo(13.2296, 3);
    expect(diffIn(b, a, 'month', 'UTC')).toBeCloseTo(13.2296, 3);
    expect(diffIn(a, b, 'month', 'UTC')).toBeCloseTo(-13.2296, 3);
    expect(diffIn(b, a, 'quarter', 'UTC')).toBeCloseTo(13.2296 / 3, 3);
    expect(diffIn(b, a, undefined, 'UTC')).toBe(b - a);
  });

  it('counts a daylight-saving day as one day but 23 hours (Europe/Berlin)', () => {
    const before = ms('2023-03-25T11:00:00Z'); // 12:00 CET
    const after = ms('2023-03-26T10:00:00Z'); // 12:00 CEST
    expect(diffIn(after, before, 'day', 'Europe/Berlin')).toBe(1);
    expect(diffIn(after, before, 'hour', 'Europe/Berlin')).toBe(23);
    expect(diffIn(after, before, 'day', 'UTC')).toBeCloseTo(23 / 24, 10);
  });

  it('adds by wall clock for days and by elapsed time for hours', () => {
    const noon = ms('2023-03-25T11:00:00Z');
    expect(new Date(addUnits(noon, 1, 'day', 'Europe/Berlin')).toISOString()).toBe(
      '2023-03-26T10:00:00.000Z',
    );
    expect(new Date(addUnits(noon, 24, 'hour', 'Europe/Berlin')).toISOString()).toBe(
      '2023-03-26T11:00:00.000Z',
    );
    expect(new Date(addUnits(ms('2024-01-31T00:00:00Z'), 1, 'month', 'UTC')).toISOString()).toBe(
      '2024-02-29T00:00:00.000Z',
    );
    expect(new Date(addUnits(ms('2024-02-29T00:00:00Z'), 1, 'year', 'UTC')).toISOString()).toBe(
      '2025-02-28T00:00:00.000Z',
    );
  });

  it('finds unit starts in the zone (weeks from Sunday)', () => {
    const t = ms('2023-09-08T18:28:38.123Z'); // Friday
    const iso = (unit: Parameters<typeof startOf>[1], tz = 'UTC') =>
      new Date(startOf(t, unit, tz)).toISOString();
    expect(iso('second')).toBe('2023-09-08T18:28:38.000Z');
    expect(iso('minute')).toBe('2023-09-08T18:28:00.000Z');
    expect(iso('hour')).toBe('2023-09-08T18:00:00.000Z');
    expect(iso('day')).toBe('2023-09-08T00:00:00.000Z');
    expect(iso('week')).toBe('2023-09-03T00:00:00.000Z');
    expect(iso('month')).toBe('2023-09-01T00:00:00.000Z');
    expect(iso('quarter')).toBe('2023-07-01T00:00:00.000Z');
    expect(iso('year')).toBe('2023-01-01T00:00:00.000Z');
    expect(iso(undefined)).toBe('2023-09-08T18:28:38.123Z');
    expect(iso('day', 'Europe/Berlin')).toBe('2023-09-07T22:00:00.000Z');
    expect(iso('hour', 'Asia/Kolkata')).toBe('2023-09-08T17:30:00.000Z');
  });
});

describe('formatWithTokens', () => {
  const t = ms('2023-09-08T18:05:03.045Z'); // Friday

  it.each([
    ['YYYY', '2023'],
    ['YY', '23'],
    ['M', '9'],
    ['MM', '09'],
    ['MMM', 'Sep'],
    ['MMMM', 'September'],
    ['D', '8'],
    ['DD', '08'],
    ['d', '5'],
    ['dd', 'Fr'],
    ['ddd', 'Fri'],
    ['dddd', 'Friday'],
    ['H', '18'],
    ['HH', '18'],
    ['h', '6'],
    ['hh', '06'],
    ['m', '5'],
    ['mm', '05'],
    ['s', '3'],
    ['ss', '03'],
    ['SSS', '045'],
    ['A', 'PM'],
    ['a', 'pm'],
    ['Z', '+00:00'],
    ['ZZ', '+0000'],
    ['[YYYY] YYYY', 'YYYY 2023'],
    ['M/D/YYYY', '9/8/2023'],
    ['YYYY-MM-DD HH:mm', '2023-09-08 18:05'],
    ['x|Q, yo!', 'x|Q, yo!'],
  ])('%j → %j', (format, text) => {
    expect(formatWithTokens(t, format, 'UTC')).toBe(text);
  });

  it('writes in the zone, with its offset', () => {
    expect(formatWithTokens(t, 'YYYY-MM-DD HH:mm Z ZZ', 'Asia/Kolkata')).toBe(
      '2023-09-08 23:35 +05:30 +0530',
    );
    expect(formatWithTokens(t, 'YYYY-MM-DD HH:mm Z', 'America/Los_Angeles')).toBe('2023-09-08 11:05 -07:00');
    expect(formatWithTokens(ms('2023-01-08T18:05:00Z'), 'HH:mm Z', 'America/Los_Angeles')).toBe(
      '10:05 -08:00',
    );
  });

  it('writes 12 at midnight and noon, AM before noon, padded early years', () => {
    expect(formatWithTokens(ms('2023-09-08T00:07:00Z'), 'h:mm A', 'UTC')).toBe('12:07 AM');
    expect(formatWithTokens(ms('2023-09-08T12:07:00Z'), 'hh:mm a', 'UTC')).toBe('12:07 pm');
    expect(formatWithTokens(ms('0099-03-04T00:00:00Z'), 'YYYY YY', 'UTC')).toBe('0099 99');
  });
});

describe('parseWithTokens', () => {
  it('reads "8 Sep 2023 18:00" with "D MMM YYYY HH:mm" in the zone', () => {
    expect(parseWithTokens('8 Sep 2023 18:00', 'D MMM YYYY HH:mm', 'UTC', NOW)).toBe(
      '2023-09-08T18:00:00.000Z',
    );
    expect(parseWithTokens('8 Sep 2023 18:00', 'D MMM YYYY HH:mm', 'Europe/Berlin', NOW)).toBe(
      '2023-09-08T16:00:00.000Z',
    );
    expect(parseWithTokens('8 Jan 2023 18:00', 'D MMM YYYY HH:mm', 'Europe/Berlin', NOW)).toBe(
      '2023-01-08T17:00:00.000Z',
    );
  });

  it('reads the other tokens', () => {
    expect(parseWithTokens('20230908', 'YYYYMMDD', 'UTC', NOW)).toBe('2023-09-08T00:00:00.000Z');
    expect(parseWithTokens('September 8, 23 6:05:03.045 pm', 'MMMM D, YY h:mm:ss.SSS a', 'UTC', NOW)).toBe(
      '2023-09-08T18:05:03.045Z',
    );
    expect(parseWithTokens('Friday 08/09/2023 12:30 AM', 'dddd DD/MM/YYYY hh:mm A', 'UTC', NOW)).toBe(
      '2023-09-08T00:30:00.000Z',
    );
    expect(parseWithTokens('2023-09-08 10:00 +08:00', 'YYYY-MM-DD HH:mm Z', 'Europe/Berlin', NOW)).toBe(
      '2023-09-08T02:00:00.000Z',
    );
    expect(parseWithTokens('2023-09-08 10:00 -0530', 'YYYY-MM-DD HH:mm ZZ', 'UTC', NOW)).toBe(
      '2023-09-08T15:30:00.000Z',
    );
    expect(parseWithTokens('on 2023.09.08', '[on] YYYY.MM.DD', 'UTC', NOW)).toBe('2023-09-08T00:00:00.000Z');
    expect(parseWithTokens('08  sep   2023', 'DD MMM YYYY', 'UTC', NOW)).toBe('2023-09-08T00:00:00.000Z');
  });

  it('fills missing parts from now in the zone, or January / the 1st', () => {
    expect(parseWithTokens('18:30', 'HH:mm', 'UTC', NOW)).toBe('2023-09-08T18:30:00.000Z');
    expect(parseWithTokens('18:30', 'HH:mm', 'Asia/Tokyo', new Date('2023-09-08T20:00:00Z'))).toBe(
      '2023-09-09T09:30:00.000Z',
    );
    expect(parseWithTokens('2021', 'YYYY', 'UTC', NOW)).toBe('2021-01-01T00:00:00.000Z');
    expect(parseWithTokens('3', 'M', 'UTC', NOW)).toBe('2023-03-01T00:00:00.000Z');
  });

  it.each([
    ['8 Sep 2023', 'YYYY-MM-DD'],
    ['2023-02-30', 'YYYY-MM-DD'],
    ['2023-13-01', 'YYYY-MM-DD'],
    ['8 Foo 2023', 'D MMM YYYY'],
    ['13:00 PM', 'hh:mm A'],
    ['25:00', 'HH:mm'],
  ])('throws FormulaEvalError for %j with %j', (text, format) => {
    expect(() => parseWithTokens(text, format, 'UTC', NOW)).toThrow(FormulaEvalError);
  });
});
