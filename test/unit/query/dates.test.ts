import { describe, expect, it } from 'vitest';
import { addMonths, dateRange, dayInZone, exactDayOf } from '#shared/query/date-ranges.ts';

/** The range of a mode as ISO texts, for readable expectations. */
const range = (mode: string, timeZone: string, now: string, extra: Record<string, unknown> = {}) =>
  dateRange({ mode, timeZone, ...extra }, new Date(now)).map((ms) => new Date(ms).toISOString());

// New York switches to daylight time on Sunday 8 March 2026 at 02:00 (UTC-5 → UTC-4): that day
// has 23 hours. "Now" is 08:00 local on that day.
const NY = 'America/New_York';
const NY_NOW = '2026-03-08T12:00:00.000Z';
// Tokyo is UTC+9 all year. "Now" is 05:00 on 1 February there, still 31 January in UTC.
const TOKYO = 'Asia/Tokyo';
const TOKYO_NOW = '2026-01-31T20:00:00.000Z';

describe('dateRange: every mode in New York across the daylight-saving change', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['today', {}, '2026-03-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['yesterday', {}, '2026-03-07T05:00:00.000Z', '2026-03-08T04:59:59.999Z'],
    ['tomorrow', {}, '2026-03-09T04:00:00.000Z', '2026-03-10T03:59:59.999Z'],
    ['oneWeekAgo', {}, '2026-03-01T05:00:00.000Z', '2026-03-02T04:59:59.999Z'],
    ['oneWeekFromNow', {}, '2026-03-15T04:00:00.000Z', '2026-03-16T03:59:59.999Z'],
    ['oneMonthAgo', {}, '2026-02-08T05:00:00.000Z', '2026-02-09T04:59:59.999Z'],
    ['oneMonthFromNow', {}, '2026-04-08T04:00:00.000Z', '2026-04-09T03:59:59.999Z'],
    ['daysAgo', { numberOfDays: 2 }, '2026-03-06T05:00:00.000Z', '2026-03-07T04:59:59.999Z'],
    ['daysFromNow', { numberOfDays: 0 }, '2026-03-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['daysFromNow', { numberOfDays: 30 }, '2026-04-07T04:00:00.000Z', '2026-04-08T03:59:59.999Z'],
    ['exactDate', { exactDate: '2026-03-08' }, '2026-03-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    // 03:00 UTC is still 7 March, 22:00, in New York
    [
      'exactDate',
      { exactDate: '2026-03-08T03:00:00.000Z' },
      '2026-03-07T05:00:00.000Z',
      '2026-03-08T04:59:59.999Z',
    ],
    ['pastWeek', {}, '2026-03-01T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['pastMonth', {}, '2026-02-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['pastYear', {}, '2025-03-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['nextWeek', {}, '2026-03-08T05:00:00.000Z', '2026-03-16T03:59:59.999Z'],
    ['nextMonth', {}, '2026-03-08T05:00:00.000Z', '2026-04-09T03:59:59.999Z'],
    // 8 March 2027 is before that year's change (14 March): standard time again
    ['nextYear', {}, '2026-03-08T05:00:00.000Z', '2027-03-09T04:59:59.999Z'],
    ['pastNumberOfDays', { numberOfDays: 3 }, '2026-03-05T05:00:00.000Z', '2026-03-09T03:59:59.999Z'],
    ['nextNumberOfDays', { numberOfDays: 3 }, '2026-03-08T05:00:00.000Z', '2026-03-12T03:59:59.999Z'],
  ])('%s %j', (mode, extra, start, end) => {
    expect(range(mode, NY, NY_NOW, extra)).toEqual([start, end]);
  });
});

describe('dateRange: every mode in Tokyo and in UTC at the same instant', () => {
  it.each<[string, Record<string, unknown>, [string, string], [string, string]]>([
    [
      'today',
      {},
      ['2026-01-31T15:00:00.000Z', '2026-02-01T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    ],
    [
      'yesterday',
      {},
      ['2026-01-30T15:00:00.000Z', '2026-01-31T14:59:59.999Z'],
      ['2026-01-30T00:00:00.000Z', '2026-01-30T23:59:59.999Z'],
    ],
    [
      'tomorrow',
      {},
      ['2026-02-01T15:00:00.000Z', '2026-02-02T14:59:59.999Z'],
      ['2026-02-01T00:00:00.000Z', '2026-02-01T23:59:59.999Z'],
    ],
    [
      'oneWeekAgo',
      {},
      ['2026-01-24T15:00:00.000Z', '2026-01-25T14:59:59.999Z'],
      ['2026-01-24T00:00:00.000Z', '2026-01-24T23:59:59.999Z'],
    ],
    [
      'oneWeekFromNow',
      {},
      ['2026-02-07T15:00:00.000Z', '2026-02-08T14:59:59.999Z'],
      ['2026-02-07T00:00:00.000Z', '2026-02-07T23:59:59.999Z'],
    ],
    // Tokyo: 1 Feb - 1 month = 1 Jan; UTC: 31 Jan - 1 month = 31 Dec
    [
      'oneMonthAgo',
      {},
      ['2025-12-31T15:00:00.000Z', '2026-01-01T14:59:59.999Z'],
      ['2025-12-31T00:00:00.000Z', '2025-12-31T23:59:59.999Z'],
    ],
    // Tokyo: 1 Mar; UTC: 31 Jan + 1 month = 28 Feb (clamped)
    [
      'oneMonthFromNow',
      {},
      ['2026-02-28T15:00:00.000Z', '2026-03-01T14:59:59.999Z'],
      ['2026-02-28T00:00:00.000Z', '2026-02-28T23:59:59.999Z'],
    ],
    [
      'daysAgo',
      { numberOfDays: 31 },
      ['2025-12-31T15:00:00.000Z', '2026-01-01T14:59:59.999Z'],
      ['2025-12-31T00:00:00.000Z', '2025-12-31T23:59:59.999Z'],
    ],
    [
      'daysFromNow',
      { numberOfDays: 1 },
      ['2026-02-01T15:00:00.000Z', '2026-02-02T14:59:59.999Z'],
      ['2026-02-01T00:00:00.000Z', '2026-02-01T23:59:59.999Z'],
    ],
    [
      'exactDate',
      { exactDate: '2026-02-14' },
      ['2026-02-13T15:00:00.000Z', '2026-02-14T14:59:59.999Z'],
      ['2026-02-14T00:00:00.000Z', '2026-02-14T23:59:59.999Z'],
    ],
    [
      'exactDate',
      { exactDate: '2026-02-14T20:00:00+00:00' },
      ['2026-02-14T15:00:00.000Z', '2026-02-15T14:59:59.999Z'],
      ['2026-02-14T00:00:00.000Z', '2026-02-14T23:59:59.999Z'],
    ],
    [
      'pastWeek',
      {},
      ['2026-01-24T15:00:00.000Z', '2026-02-01T14:59:59.999Z'],
      ['2026-01-24T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    ],
    [
      'pastMonth',
      {},
      ['2025-12-31T15:00:00.000Z', '2026-02-01T14:59:59.999Z'],
      ['2025-12-31T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    ],
    [
      'pastYear',
      {},
      ['2025-01-31T15:00:00.000Z', '2026-02-01T14:59:59.999Z'],
      ['2025-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    ],
    [
      'nextWeek',
      {},
      ['2026-01-31T15:00:00.000Z', '2026-02-08T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2026-02-07T23:59:59.999Z'],
    ],
    [
      'nextMonth',
      {},
      ['2026-01-31T15:00:00.000Z', '2026-03-01T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2026-02-28T23:59:59.999Z'],
    ],
    [
      'nextYear',
      {},
      ['2026-01-31T15:00:00.000Z', '2027-02-01T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2027-01-31T23:59:59.999Z'],
    ],
    [
      'pastNumberOfDays',
      { numberOfDays: 0 },
      ['2026-01-31T15:00:00.000Z', '2026-02-01T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999Z'],
    ],
    [
      'nextNumberOfDays',
      { numberOfDays: 2 },
      ['2026-01-31T15:00:00.000Z', '2026-02-03T14:59:59.999Z'],
      ['2026-01-31T00:00:00.000Z', '2026-02-02T23:59:59.999Z'],
    ],
  ])('%s %j', (mode, extra, tokyo, utc) => {
    expect(range(mode, TOKYO, TOKYO_NOW, extra)).toEqual(tokyo);
    expect(range(mode, 'UTC', TOKYO_NOW, extra)).toEqual(utc);
  });
});

describe('dateRange at other daylight-saving changes', () => {
  it('Berlin leaves summer time on 25 October 2026: a 25-hour day', () => {
    expect(range('today', 'Europe/Berlin', '2026-10-25T12:00:00.000Z')).toEqual([
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T22:59:59.999Z',
    ]);
    expect(
      range('pastNumberOfDays', 'Europe/Berlin', '2026-10-26T12:00:00.000Z', { numberOfDays: 1 }),
    ).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-26T22:59:59.999Z']);
  });

  it('Santiago skips midnight on 6 September 2026: that day starts at 01:00', () => {
    expect(range('today', 'America/Santiago', '2026-09-06T15:00:00.000Z')).toEqual([
      '2026-09-06T04:00:00.000Z',
      '2026-09-07T02:59:59.999Z',
    ]);
    expect(range('yesterday', 'America/Santiago', '2026-09-07T15:00:00.000Z')).toEqual([
      '2026-09-06T04:00:00.000Z',
      '2026-09-07T02:59:59.999Z',
    ]);
  });

  it('Sydney leaves summer time on 5 April 2026 (UTC+11 → UTC+10)', () => {
    expect(range('tomorrow', 'Australia/Sydney', '2026-04-04T02:00:00.000Z')).toEqual([
      '2026-04-04T13:00:00.000Z',
      '2026-04-05T13:59:59.999Z',
    ]);
  });

  it('a half-hour zone (Kolkata, UTC+5:30)', () => {
    expect(range('today', 'Asia/Kolkata', '2026-03-08T20:00:00.000Z')).toEqual([
      '2026-03-08T18:30:00.000Z',
      '2026-03-09T18:29:59.999Z',
    ]);
  });
});

describe('month steps and helpers', () => {
  it('keep the day of the month, clamped to the target month', () => {
    expect(addMonths({ year: 2026, month: 3, day: 31 }, -1)).toEqual({ year: 2026, month: 2, day: 28 });
    expect(addMonths({ year: 2028, month: 3, day: 31 }, -1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addMonths({ year: 2026, month: 1, day: 15 }, -13)).toEqual({ year: 2024, month: 12, day: 15 });
    expect(addMonths({ year: 2028, month: 2, day: 29 }, 12)).toEqual({ year: 2029, month: 2, day: 28 });
  });

  it('pastYear from 29 February starts on 28 February', () => {
    expect(range('pastYear', 'UTC', '2028-02-29T08:00:00.000Z')[0]).toBe('2027-02-28T00:00:00.000Z');
    expect(range('oneMonthAgo', 'UTC', '2026-03-31T08:00:00.000Z')).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2026-02-28T23:59:59.999Z',
    ]);
  });

  it('dayInZone and exactDayOf read days in the zone', () => {
    expect(dayInZone(Date.parse('2026-03-08T03:00:00.000Z'), NY)).toEqual({ year: 2026, month: 3, day: 7 });
    expect(exactDayOf('2026-03-08', NY)).toEqual({ year: 2026, month: 3, day: 8 });
    expect(exactDayOf('03/08/2026', NY)).toEqual({ year: 2026, month: 3, day: 8 });
    expect(exactDayOf('2026-02-30', NY)).toBeUndefined();
    expect(exactDayOf('now', NY)).toBeUndefined();
  });

  it('refuses values resolveFilter would have refused', () => {
    expect(() => range('someday', 'UTC', NY_NOW)).toThrow('unknown date mode someday');
    expect(() => range('daysAgo', 'UTC', NY_NOW)).toThrow('mode daysAgo needs numberOfDays');
    expect(() => range('exactDate', 'UTC', NY_NOW)).toThrow('mode exactDate needs a readable exactDate');
    expect(() => range('today', 'Mars/Olympus', NY_NOW)).toThrow('unknown time zone Mars/Olympus');
  });
});
