/**
 * The DateTime functions of computed.md section 2, called through their specs (evaluate and
 * result) with prepared arguments: dates as ISO UTC text, empties as null. `now` is fixed and every
 * zone is named, so nothing depends on the machine's clock or zone.
 */
import { describe, expect, it } from 'vitest';
import { readDate } from '#shared/formula/dates.ts';
import {
  type EvalContext,
  FormulaEvalError,
  type FunctionSpec,
  single,
  type Typed,
  type Value,
} from '#shared/formula/formula-types.ts';
import { DATETIME_FUNCTIONS } from '#shared/formula/functions/datetime-functions.ts';

import { evaluateWith } from './support.ts';

const NOW = new Date('2023-09-08T10:00:00.000Z');

const spec = (name: string): FunctionSpec => {
  const found = DATETIME_FUNCTIONS.find((f) => f.name === name);
  if (!found?.evaluate) throw new Error(`no evaluate for ${name}`);
  return found;
};

const context = (timeZone = 'UTC', now = NOW): EvalContext => ({
  timeZone,
  now,
  record: {
    id: 'recAAAAAAAAAAAAAAAA',
    autoNumber: 7,
    createdTime: '2023-01-02T03:04:05.006Z',
    lastModifiedTime: '2023-05-06T07:08:09Z',
  },
});

/** Calls a function with prepared arguments; the static types are those its specs accept. */
const call = (name: string, args: Value[], timeZone = 'UTC', now = NOW, types?: Typed[]): Value => {
  const f = spec(name);
  const argTypes =
    types ??
    args.map((_, i) => {
      const accepts = (f.args[Math.min(i, f.args.length - 1)] ?? { accepts: 'any' }).accepts;
      return single(accepts === 'any' ? 'string' : (accepts[0] ?? 'string'));
    });
  return evaluateWith(f, args, argTypes, context(timeZone, now));
};

/** A local date text read in a zone (UTC unless named), as the evaluator prepares it. */
const d = (text: string, timeZone = 'UTC'): string => readDate(text, timeZone);

const ALL = [
  'NOW',
  'TODAY',
  'YEAR',
  'MONTH',
  'DAY',
  'HOUR',
  'MINUTE',
  'SECOND',
  'WEEKNUM',
  'WEEKDAY',
  'DATETIME_DIFF',
  'FROMNOW',
  'TONOW',
  'DATE_ADD',
  'WORKDAY',
  'WORKDAY_DIFF',
  'IS_SAME',
  'IS_AFTER',
  'IS_BEFORE',
  'DATESTR',
  'TIMESTR',
  'DATETIME_FORMAT',
  'DATETIME_PARSE',
  'CREATED_TIME',
  'LAST_MODIFIED_TIME',
];

describe('the DateTime specs', () => {
  it('lists every function once, by upper-case name', () => {
    expect(DATETIME_FUNCTIONS.map((f) => f.name).sort()).toEqual([...ALL].sort());
  });

  it.each([
    ['NOW', 'dateTime'],
    ['TODAY', 'dateTime'],
    ['DATE_ADD', 'dateTime'],
    ['WORKDAY', 'dateTime'],
    ['DATETIME_PARSE', 'dateTime'],
    ['CREATED_TIME', 'dateTime'],
    ['LAST_MODIFIED_TIME', 'dateTime'],
    ['YEAR', 'number'],
    ['MONTH', 'number'],
    ['DAY', 'number'],
    ['HOUR', 'number'],
    ['MINUTE', 'number'],
    ['SECOND', 'number'],
    ['WEEKNUM', 'number'],
    ['WEEKDAY', 'number'],
    ['DATETIME_DIFF', 'number'],
    ['FROMNOW', 'number'],
    ['TONOW', 'number'],
    ['WORKDAY_DIFF', 'number'],
    ['IS_SAME', 'boolean'],
    ['IS_AFTER', 'boolean'],
    ['IS_BEFORE', 'boolean'],
    ['DATESTR', 'string'],
    ['TIMESTR', 'string'],
    ['DATETIME_FORMAT', 'string'],
  ])('%s results in a single %s', (name, type) => {
    expect(spec(name).result([single('string'), single('number')])).toEqual({ type, multiple: false });
  });

  it.each([
    ['NOW', 0, true],
    ['TODAY', 0, true],
    ['CREATED_TIME', 0, true],
    ['LAST_MODIFIED_TIME', 0, true],
    ['YEAR', 1, true],
    ['SECOND', 1, true],
    ['WEEKNUM', 1, true],
    ['DATESTR', 1, true],
    ['TIMESTR', 1, true],
    ['WEEKDAY', 1, false],
    ['DATETIME_DIFF', 2, false],
    ['FROMNOW', 2, false],
    ['TONOW', 2, false],
    ['DATE_ADD', 3, false],
    ['WORKDAY', 2, false],
    ['WORKDAY_DIFF', 2, false],
    ['IS_SAME', 2, false],
    ['DATETIME_FORMAT', 1, false],
    ['DATETIME_PARSE', 1, false],
  ])('%s takes %s argument(s), exact: %s', (name, minArgs, exact) => {
    expect(spec(name).minArgs).toBe(minArgs);
    expect(Boolean(spec(name).exact)).toBe(exact);
  });

  it('takes dates as dateTime, units and formats as text, counts as numbers, float as boolean', () => {
    expect(spec('YEAR').args[0]?.accepts).toEqual(['dateTime']);
    expect(spec('DATETIME_DIFF').args.map((a) => a.accepts)).toEqual([
      ['dateTime'],
      ['dateTime'],
      ['string'],
      ['boolean'],
    ]);
    expect(spec('DATE_ADD').args.map((a) => a.accepts)).toEqual([['dateTime'], ['number'], ['string']]);
    expect(spec('WORKDAY').args.map((a) => a.accepts)).toEqual([['dateTime'], ['number'], ['string']]);
    expect(spec('DATETIME_PARSE').args[0]?.accepts[0]).toBe('string');
    expect(spec('DATETIME_FORMAT').args[1]?.accepts).toEqual(['string']);
  });
});

describe('NOW, TODAY, CREATED_TIME, LAST_MODIFIED_TIME', () => {
  it('NOW is the recalculation moment', () => {
    expect(call('NOW', [])).toBe('2023-09-08T10:00:00.000Z');
    expect(call('NOW', [], 'Asia/Tokyo')).toBe('2023-09-08T10:00:00.000Z');
  });

  it('TODAY is 00:00 today in the zone', () => {
    expect(call('TODAY', [])).toBe('2023-09-08T00:00:00.000Z');
    // 19:00 in Tokyo
    expect(call('TODAY', [], 'Asia/Tokyo')).toBe('2023-09-07T15:00:00.000Z');
    // 03:00 in Los Angeles, still the 8th
    expect(call('TODAY', [], 'America/Los_Angeles')).toBe('2023-09-08T07:00:00.000Z');
    // 02:00Z on the 8th is still the 7th in Los Angeles
    expect(call('TODAY', [], 'America/Los_Angeles', new Date('2023-09-08T02:00:00Z'))).toBe(
      '2023-09-07T07:00:00.000Z',
    );
    expect(call('TODAY', [], 'Europe/Berlin', new Date('2023-01-15T12:00:00Z'))).toBe(
      '2023-01-14T23:00:00.000Z',
    );
  });

  it('CREATED_TIME and LAST_MODIFIED_TIME are the record times as ISO with milliseconds', () => {
    expect(call('CREATED_TIME', [])).toBe('2023-01-02T03:04:05.006Z');
    expect(call('LAST_MODIFIED_TIME', [])).toBe('2023-05-06T07:08:09.000Z');
  });
});

describe('YEAR, MONTH, DAY, HOUR, MINUTE, SECOND', () => {
  const t = '2023-09-08T18:28:38.500Z';

  it('takes parts in UTC', () => {
    expect(call('YEAR', [t])).toBe(2023);
    expect(call('MONTH', [t])).toBe(9);
    expect(call('DAY', [t])).toBe(8);
    expect(call('HOUR', [t])).toBe(18);
    expect(call('MINUTE', [t])).toBe(28);
    expect(call('SECOND', [t])).toBe(38);
  });

  it('takes parts in the zone: YEAR("2023-01-01T07:00:00Z") in America/Los_Angeles = 2022', () => {
    const newYear = '2023-01-01T07:00:00.000Z';
    expect(call('YEAR', [newYear], 'America/Los_Angeles')).toBe(2022);
    expect(call('MONTH', [newYear], 'America/Los_Angeles')).toBe(12);
    expect(call('DAY', [newYear], 'America/Los_Angeles')).toBe(31);
    expect(call('HOUR', [newYear], 'America/Los_Angeles')).toBe(23);
    expect(call('YEAR', [newYear])).toBe(2023);
    expect(call('HOUR', [t], 'Asia/Kolkata')).toBe(23);
    expect(call('MINUTE', [t], 'Asia/Kolkata')).toBe(58);
    expect(call('HOUR', [t], 'Europe/Berlin')).toBe(20);
    expect(call('HOUR', ['2023-01-08T18:28:38.000Z'], 'Europe/Berlin')).toBe(19);
  });

  it('reads local text in the zone (prepared by readDate)', () => {
    expect(call('DAY', [d('2023-09-08', 'Asia/Shanghai')], 'Asia/Shanghai')).toBe(8);
    expect(call('HOUR', [d('2023-09-08 18:28:38', 'Europe/Berlin')], 'Europe/Berlin')).toBe(18);
  });

  it.each(['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'WEEKNUM', 'WEEKDAY'])(
    '%s of empty is empty',
    (name) => {
      expect(call(name, [null])).toBeNull();
    },
  );
});

describe('WEEKNUM, WEEKDAY', () => {
  it('WEEKNUM: weeks start Sunday, week 1 holds 1 January (2023-09-08 → 36)', () => {
    expect(call('WEEKNUM', [d('2023-09-08')])).toBe(36);
    expect(call('WEEKNUM', [d('2023-01-01')])).toBe(1);
    expect(call('WEEKNUM', [d('2023-01-07')])).toBe(1);
    expect(call('WEEKNUM', [d('2023-01-08')])).toBe(2);
    // 2022 starts on a Saturday: Sunday the 2nd opens week 2
    expect(call('WEEKNUM', [d('2022-01-01')])).toBe(1);
    expect(call('WEEKNUM', [d('2022-01-02')])).toBe(2);
    expect(call('WEEKNUM', [d('2023-12-31')])).toBe(53);
    // 1 Jan 01:00 in Berlin is still 2022 in UTC
    expect(call('WEEKNUM', ['2022-12-31T23:30:00.000Z'], 'Europe/Berlin')).toBe(1);
    expect(call('WEEKNUM', ['2022-12-31T23:30:00.000Z'])).toBe(53);
  });

  it('WEEKDAY: Sunday 0 … Saturday 6 (2023-09-08 → 5)', () => {
    expect(call('WEEKDAY', [d('2023-09-08')])).toBe(5);
    expect(call('WEEKDAY', [d('2023-09-10')])).toBe(0);
    expect(call('WEEKDAY', [d('2023-09-09')])).toBe(6);
    expect(call('WEEKDAY', [d('2023-09-08'), null])).toBe(5);
  });

  it('WEEKDAY with start "monday" (any case): Monday 0 … Sunday 6', () => {
    expect(call('WEEKDAY', [d('2023-09-08'), 'monday'])).toBe(4);
    expect(call('WEEKDAY', [d('2023-09-10'), 'MONDAY'])).toBe(6);
    expect(call('WEEKDAY', [d('2023-09-11'), 'Monday'])).toBe(0);
    expect(call('WEEKDAY', [d('2023-09-10'), 'sunday'])).toBe(0);
  });

  it('WEEKDAY is taken in the zone', () => {
    // Friday 23:30 UTC is Saturday in Berlin
    expect(call('WEEKDAY', ['2023-09-08T23:30:00.000Z'], 'Europe/Berlin')).toBe(6);
    expect(call('WEEKDAY', ['2023-09-08T23:30:00.000Z'])).toBe(5);
  });
});

describe('DATETIME_DIFF, FROMNOW, TONOW', () => {
  const a = '2022-08-01T16:30:00.000Z';
  const b = '2023-09-08T19:20:00.000Z';

  it('2022-08-01T16:30Z vs 2023-09-08T19:20Z: day 403, month 13 (float 13.23), year 1, hour 9674', () => {
    expect(call('DATETIME_DIFF', [a, b, 'day'])).toBe(403);
    expect(call('DATETIME_DIFF', [a, b, 'month'])).toBe(13);
    expect(call('DATETIME_DIFF', [a, b, 'month', true]) as number).toBeCloseTo(13.23, 2);
    expect(call('DATETIME_DIFF', [a, b, 'year'])).toBe(1);
    expect(call('DATETIME_DIFF', [a, b, 'hour'])).toBe(9674);
  });

  it('is never negative and defaults to days', () => {
    expect(call('DATETIME_DIFF', [b, a, 'day'])).toBe(403);
    expect(call('DATETIME_DIFF', [b, a])).toBe(403);
    expect(call('DATETIME_DIFF', [a, b, null])).toBe(403);
    expect(call('DATETIME_DIFF', [a, b, ''])).toBe(403);
    expect(call('DATETIME_DIFF', [b, a, 'month', true]) as number).toBeCloseTo(13.23, 2);
  });

  it.each([
    ['ms', 35350200000],
    ['millisecond', 35350200000],
    ['s', 35350200],
    ['Seconds', 35350200],
    ['m', 589170],
    ['MINUTES', 589170],
    ['h', 9819],
    ['hours', 9819],
    ['d', 409],
    ['Days', 409],
    ['w', 58],
    ['weeks', 58],
    ['M', 13],
    ['months', 13],
    ['Q', 4],
    ['quarter', 4],
    ['y', 1],
    ['YEARS', 1],
  ])('unit %j', (unit, expected) => {
    // 2022-08-01T00:00Z to 2023-09-14T03:30Z
    expect(call('DATETIME_DIFF', ['2022-08-01T00:00:00.000Z', '2023-09-14T03:30:00.000Z', unit])).toBe(
      expected,
    );
  });

  it('an unknown unit counts milliseconds', () => {
    expect(call('DATETIME_DIFF', [a, b, 'fortnight'])).toBe(Date.parse(b) - Date.parse(a));
    expect(call('DATETIME_DIFF', [a, b, 'D'])).toBe(Date.parse(b) - Date.parse(a));
  });

  it('truncates unless float', () => {
    const start = '2023-09-08T00:00:00.000Z';
    const end = '2023-09-09T12:00:00.000Z';
    expect(call('DATETIME_DIFF', [start, end, 'day'])).toBe(1);
    expect(call('DATETIME_DIFF', [start, end, 'day', true])).toBe(1.5);
    expect(call('DATETIME_DIFF', [start, end, 'day', false])).toBe(1);
    expect(call('DATETIME_DIFF', [end, start, 'week', true])).toBeCloseTo(1.5 / 7, 10);
  });

  it('counts calendar days and months in the zone (Europe/Berlin across the spring change)', () => {
    const before = '2023-03-25T11:00:00.000Z'; // 12:00 CET
    const after = '2023-03-26T10:00:00.000Z'; // 12:00 CEST
    expect(call('DATETIME_DIFF', [before, after, 'day'], 'Europe/Berlin')).toBe(1);
    expect(call('DATETIME_DIFF', [before, after, 'hour'], 'Europe/Berlin')).toBe(23);
    expect(call('DATETIME_DIFF', [before, after, 'day'], 'UTC')).toBe(0);
    // 1 March to 1 April in Berlin; in UTC 28 February 23:00 to 31 March 22:00, just short of a month
    const march = '2023-02-28T23:00:00.000Z';
    const april = '2023-03-31T22:00:00.000Z';
    expect(call('DATETIME_DIFF', [march, april, 'month'], 'Europe/Berlin')).toBe(1);
    expect(call('DATETIME_DIFF', [march, april, 'month'], 'UTC')).toBe(0);
  });

  it('an empty date gives empty', () => {
    expect(call('DATETIME_DIFF', [null, b])).toBeNull();
    expect(call('DATETIME_DIFF', [a, null, 'day'])).toBeNull();
  });

  it('FROMNOW and TONOW are |now − d| in a unit', () => {
    for (const name of ['FROMNOW', 'TONOW']) {
      expect(call(name, ['2023-09-01T10:00:00.000Z', 'day'])).toBe(7);
      expect(call(name, ['2023-09-15T10:00:00.000Z', 'days'])).toBe(7);
      expect(call(name, ['2023-09-08T06:30:00.000Z', 'h'])).toBe(3);
      expect(call(name, ['2023-09-08T06:30:00.000Z', 'hour', true])).toBe(3.5);
      expect(call(name, ['2023-07-08T10:00:00.000Z', 'M'])).toBe(2);
      expect(call(name, ['2023-09-08T09:59:59.000Z', 'fortnight'])).toBe(1000);
      expect(call(name, ['2023-09-01T10:00:00.000Z', null])).toBe(7);
      expect(call(name, [null, 'day'])).toBeNull();
    }
  });
});

describe('DATE_ADD', () => {
  it('clamps month ends: 2024-01-31 + 1 month = 2024-02-29', () => {
    expect(call('DATE_ADD', [d('2024-01-31'), 1, 'month'])).toBe('2024-02-29T00:00:00.000Z');
    expect(call('DATE_ADD', [d('2023-01-31'), 1, 'months'])).toBe('2023-02-28T00:00:00.000Z');
    expect(call('DATE_ADD', [d('2024-03-31'), -1, 'M'])).toBe('2024-02-29T00:00:00.000Z');
    expect(call('DATE_ADD', [d('2024-02-29'), 1, 'year'])).toBe('2025-02-28T00:00:00.000Z');
  });

  it.each([
    ['ms', 1500, '2023-09-08T18:00:01.500Z'],
    ['milliseconds', 1, '2023-09-08T18:00:00.001Z'],
    ['s', 90, '2023-09-08T18:01:30.000Z'],
    ['second', -1, '2023-09-08T17:59:59.000Z'],
    ['m', 30, '2023-09-08T18:30:00.000Z'],
    ['Minutes', 1.5, '2023-09-08T18:01:30.000Z'],
    ['h', 7, '2023-09-09T01:00:00.000Z'],
    ['HOURS', -18, '2023-09-08T00:00:00.000Z'],
    ['d', 3, '2023-09-11T18:00:00.000Z'],
    ['days', -8, '2023-08-31T18:00:00.000Z'],
    ['w', 2, '2023-09-22T18:00:00.000Z'],
    ['Weeks', -1, '2023-09-01T18:00:00.000Z'],
    ['M', 4, '2024-01-08T18:00:00.000Z'],
    ['month', -9, '2022-12-08T18:00:00.000Z'],
    ['y', 1, '2024-09-08T18:00:00.000Z'],
    ['years', -23, '2000-09-08T18:00:00.000Z'],
  ])('unit %j, count %s', (unit, count, expected) => {
    expect(call('DATE_ADD', ['2023-09-08T18:00:00.000Z', count, unit])).toBe(expected);
  });

  it('adds days by wall clock in the zone (Europe/Berlin keeps 12:00 across the change)', () => {
    expect(call('DATE_ADD', ['2023-03-25T11:00:00.000Z', 1, 'day'], 'Europe/Berlin')).toBe(
      '2023-03-26T10:00:00.000Z',
    );
    expect(call('DATE_ADD', ['2023-03-25T11:00:00.000Z', 24, 'hour'], 'Europe/Berlin')).toBe(
      '2023-03-26T11:00:00.000Z',
    );
    expect(call('DATE_ADD', ['2023-03-25T11:00:00.000Z', 1, 'day'], 'UTC')).toBe('2023-03-26T11:00:00.000Z');
    // 31 Jan 00:30 in Berlin (still 30 Jan in UTC) + 1 month → 29 Feb 00:30 Berlin
    expect(call('DATE_ADD', ['2024-01-30T23:30:00.000Z', 1, 'month'], 'Europe/Berlin')).toBe(
      '2024-02-28T23:30:00.000Z',
    );
  });

  it('an unknown unit (quarter included) or no unit is an FormulaEvalError', () => {
    const t = '2023-09-08T18:00:00.000Z';
    for (const unit of ['fortnight', 'D', 'quarter', 'Q', '', null]) {
      expect(() => call('DATE_ADD', [t, 1, unit])).toThrow(FormulaEvalError);
    }
  });

  it('an empty date gives empty; an empty count adds nothing', () => {
    expect(call('DATE_ADD', [null, 1, 'day'])).toBeNull();
    expect(call('DATE_ADD', ['2023-09-08T18:00:00.000Z', null, 'day'])).toBe('2023-09-08T18:00:00.000Z');
  });

  it('leaving years 1..9999 is an FormulaEvalError', () => {
    expect(() => call('DATE_ADD', ['9999-12-31T00:00:00.000Z', 1, 'year'])).toThrow(FormulaEvalError);
  });
});

describe('WORKDAY', () => {
  const friday = d('2023-09-08');

  it('Fri 2023-09-08 +200 → 2024-06-14; −100 → 2023-04-21', () => {
    expect(call('WORKDAY', [friday, 200])).toBe('2024-06-14T00:00:00.000Z');
    expect(call('WORKDAY', [friday, -100])).toBe('2023-04-21T00:00:00.000Z');
  });

  it('with 4 weekday holidays in between → 2024-06-20', () => {
    const holidays = '2023-10-02, 2023-12-25, 2024-01-01, 2024-05-01';
    expect(call('WORKDAY', [friday, 200, holidays])).toBe('2024-06-20T00:00:00.000Z');
  });

  it('skips weekends and holidays day by day, both ways, keeping the time of day', () => {
    expect(call('WORKDAY', [friday, 1])).toBe('2023-09-11T00:00:00.000Z');
    expect(call('WORKDAY', [friday, 1, '2023-09-11'])).toBe('2023-09-12T00:00:00.000Z');
    expect(call('WORKDAY', [friday, 0])).toBe('2023-09-08T00:00:00.000Z');
    expect(call('WORKDAY', [d('2023-09-09'), 1])).toBe('2023-09-11T00:00:00.000Z');
    expect(call('WORKDAY', [d('2023-09-11'), -1])).toBe('2023-09-08T00:00:00.000Z');
    expect(call('WORKDAY', [d('2023-09-11'), -1, '2023-09-08'])).toBe('2023-09-07T00:00:00.000Z');
    expect(call('WORKDAY', ['2023-09-08T14:45:00.000Z', 5])).toBe('2023-09-15T14:45:00.000Z');
    // a weekend holiday changes nothing
    expect(call('WORKDAY', [friday, 1, '2023-09-09, 2023-09-10'])).toBe('2023-09-11T00:00:00.000Z');
  });

  it('negative counts that are not a multiple of 5 (Fixed)', () => {
    expect(call('WORKDAY', [friday, -3])).toBe('2023-09-05T00:00:00.000Z');
    expect(call('WORKDAY', [friday, -7])).toBe('2023-08-30T00:00:00.000Z');
    expect(call('WORKDAY', [friday, -12])).toBe('2023-08-23T00:00:00.000Z');
    expect(call('WORKDAY', [friday, 7])).toBe('2023-09-19T00:00:00.000Z');
  });

  it('counts in the zone, keeping the local time across daylight saving (Europe/Berlin)', () => {
    // Friday 2023-03-24 09:00 CET + 1 working day → Monday 27 March 09:00 CEST
    expect(call('WORKDAY', ['2023-03-24T08:00:00.000Z', 1], 'Europe/Berlin')).toBe(
      '2023-03-27T07:00:00.000Z',
    );
    // Friday 23:30 UTC is Saturday in Berlin: the next working day is Monday
    expect(call('WORKDAY', ['2023-09-08T23:30:00.000Z', 1], 'Europe/Berlin')).toBe(
      '2023-09-10T23:30:00.000Z',
    );
  });

  it('empties and unreadable holidays', () => {
    expect(call('WORKDAY', [null, 1])).toBeNull();
    expect(call('WORKDAY', [friday, null])).toBe('2023-09-08T00:00:00.000Z');
    expect(call('WORKDAY', [friday, 1, null])).toBe('2023-09-11T00:00:00.000Z');
    expect(call('WORKDAY', [friday, 1, ' , '])).toBe('2023-09-11T00:00:00.000Z');
    expect(() => call('WORKDAY', [friday, 1, '2023-09-11, someday'])).toThrow(FormulaEvalError);
    expect(() => call('WORKDAY', [friday, 1e12])).toThrow(FormulaEvalError);
  });
});

describe('WORKDAY_DIFF', () => {
  it('2023-06-18 → 2023-10-01 = 75; with "2023-07-12, 2023-08-18, 2023-08-19" = 73', () => {
    expect(call('WORKDAY_DIFF', [d('2023-06-18'), d('2023-10-01')])).toBe(75);
    expect(
      call('WORKDAY_DIFF', [d('2023-06-18'), d('2023-10-01'), '2023-07-12, 2023-08-18, 2023-08-19']),
    ).toBe(73);
  });

  it('is negative when end < start (Fixed)', () => {
    expect(call('WORKDAY_DIFF', [d('2023-10-01'), d('2023-06-18')])).toBe(-75);
    expect(call('WORKDAY_DIFF', [d('2023-10-01'), d('2023-06-18'), '2023-07-12'])).toBe(-74);
  });

  it('includes both ends; holidays outside the range or repeated count once or not at all', () => {
    expect(call('WORKDAY_DIFF', [d('2023-09-08'), d('2023-09-08')])).toBe(1);
    expect(call('WORKDAY_DIFF', [d('2023-09-09'), d('2023-09-10')])).toBe(0);
    expect(call('WORKDAY_DIFF', [d('2023-09-04'), d('2023-09-15')])).toBe(10);
    expect(call('WORKDAY_DIFF', [d('2023-09-04'), d('2023-09-15'), '2023-09-06,2023-09-06,2023-09-20'])).toBe(
      9,
    );
  });

  it('takes days in the zone (Europe/Berlin)', () => {
    // Saturday 23:30 UTC is Sunday in Berlin; Friday 22:30 UTC is Saturday
    expect(
      call('WORKDAY_DIFF', ['2023-09-08T22:30:00.000Z', '2023-09-09T23:30:00.000Z'], 'Europe/Berlin'),
    ).toBe(0);
    expect(call('WORKDAY_DIFF', ['2023-09-08T22:30:00.000Z', '2023-09-09T23:30:00.000Z'], 'UTC')).toBe(1);
  });

  it('an empty date gives empty', () => {
    expect(call('WORKDAY_DIFF', [null, d('2023-10-01')])).toBeNull();
    expect(call('WORKDAY_DIFF', [d('2023-06-18'), null])).toBeNull();
  });
});

describe('IS_SAME, IS_AFTER, IS_BEFORE', () => {
  const morning = '2023-09-08T01:00:00.000Z';
  const evening = '2023-09-08T23:00:00.000Z';

  it('compares at day granularity by default', () => {
    expect(call('IS_SAME', [morning, evening])).toBe(true);
    expect(call('IS_AFTER', [evening, morning])).toBe(false);
    expect(call('IS_BEFORE', [morning, evening])).toBe(false);
    expect(call('IS_AFTER', [d('2023-09-09'), evening])).toBe(true);
    expect(call('IS_BEFORE', [evening, d('2023-09-09')])).toBe(true);
    expect(call('IS_SAME', [morning, evening, null])).toBe(true);
  });

  it('compares days in the zone', () => {
    // 23:00Z is the 9th in Berlin; 01:00Z is the 8th
    expect(call('IS_SAME', [morning, evening], 'Europe/Berlin')).toBe(false);
    expect(call('IS_BEFORE', [morning, evening], 'Europe/Berlin')).toBe(true);
    expect(call('IS_AFTER', [evening, morning], 'Europe/Berlin')).toBe(true);
    expect(call('IS_SAME', [evening, '2023-09-09T20:00:00.000Z'], 'Europe/Berlin')).toBe(true);
  });

  it.each([
    ['ms', '2023-09-08T10:00:00.000Z', '2023-09-08T10:00:00.000Z', true],
    ['millisecond', '2023-09-08T10:00:00.000Z', '2023-09-08T10:00:00.001Z', false],
    ['s', '2023-09-08T10:00:00.100Z', '2023-09-08T10:00:00.900Z', true],
    ['second', '2023-09-08T10:00:00.900Z', '2023-09-08T10:00:01.000Z', false],
    ['m', '2023-09-08T10:00:01.000Z', '2023-09-08T10:00:59.000Z', true],
    ['Minutes', '2023-09-08T10:00:59.000Z', '2023-09-08T10:01:00.000Z', false],
    ['h', '2023-09-08T10:00:00.000Z', '2023-09-08T10:59:00.000Z', true],
    ['HOUR', '2023-09-08T10:59:00.000Z', '2023-09-08T11:00:00.000Z', false],
    ['d', '2023-09-08T00:00:00.000Z', '2023-09-08T23:59:59.999Z', true],
    ['days', '2023-09-08T23:59:59.999Z', '2023-09-09T00:00:00.000Z', false],
    ['w', '2023-09-10T00:00:00.000Z', '2023-09-16T23:00:00.000Z', true],
    ['week', '2023-09-09T12:00:00.000Z', '2023-09-10T12:00:00.000Z', false],
    ['M', '2023-09-01T00:00:00.000Z', '2023-09-30T23:00:00.000Z', true],
    ['months', '2023-09-30T12:00:00.000Z', '2023-10-01T12:00:00.000Z', false],
    ['Q', '2023-07-01T00:00:00.000Z', '2023-09-30T00:00:00.000Z', true],
    ['quarter', '2023-06-30T00:00:00.000Z', '2023-07-01T00:00:00.000Z', false],
    ['y', '2023-01-01T00:00:00.000Z', '2023-12-31T00:00:00.000Z', true],
    ['Years', '2022-12-31T00:00:00.000Z', '2023-01-01T00:00:00.000Z', false],
  ])('unit %j: %s and %s same → %s', (unit, first, second, same) => {
    expect(call('IS_SAME', [first, second, unit])).toBe(same);
    expect(call('IS_BEFORE', [first, second, unit])).toBe(!same);
    expect(call('IS_AFTER', [second, first, unit])).toBe(!same);
    expect(call('IS_AFTER', [first, second, unit])).toBe(false);
  });

  it('an unknown unit compares the exact instants', () => {
    const a = '2023-09-08T10:00:00.000Z';
    const b = '2023-09-08T10:00:00.001Z';
    expect(call('IS_SAME', [a, b, 'fortnight'])).toBe(false);
    expect(call('IS_SAME', [a, a, 'D'])).toBe(true);
    expect(call('IS_BEFORE', [a, b, 'fortnight'])).toBe(true);
    expect(call('IS_AFTER', [b, a, 'H'])).toBe(true);
  });

  it('a date empty gives empty', () => {
    for (const name of ['IS_SAME', 'IS_AFTER', 'IS_BEFORE']) {
      expect(call(name, [null, morning])).toBeNull();
      expect(call(name, [morning, null, 'day'])).toBeNull();
    }
  });
});

describe('DATESTR, TIMESTR, DATETIME_FORMAT', () => {
  const t = '2023-09-08T18:05:03.045Z';

  it('DATESTR is YYYY-MM-DD and TIMESTR HH:mm:ss, in the zone', () => {
    expect(call('DATESTR', [t])).toBe('2023-09-08');
    expect(call('TIMESTR', [t])).toBe('18:05:03');
    expect(call('DATESTR', [t], 'Asia/Tokyo')).toBe('2023-09-09');
    expect(call('TIMESTR', [t], 'Asia/Tokyo')).toBe('03:05:03');
    expect(call('TIMESTR', [t], 'America/Los_Angeles')).toBe('11:05:03');
    expect(call('DATESTR', [d('2023-09-08', 'Asia/Shanghai')], 'Asia/Shanghai')).toBe('2023-09-08');
    expect(call('DATESTR', [null])).toBeNull();
    expect(call('TIMESTR', [null])).toBeNull();
  });

  it('DATETIME_FORMAT defaults to YYYY-MM-DD HH:mm', () => {
    expect(call('DATETIME_FORMAT', [t])).toBe('2023-09-08 18:05');
    expect(call('DATETIME_FORMAT', [t, null])).toBe('2023-09-08 18:05');
    expect(call('DATETIME_FORMAT', [t, ''])).toBe('2023-09-08 18:05');
    expect(call('DATETIME_FORMAT', [t], 'Europe/Berlin')).toBe('2023-09-08 20:05');
  });

  it('DATETIME_FORMAT: M/D/YYYY → 9/8/2023, every token, literals', () => {
    expect(call('DATETIME_FORMAT', [t, 'M/D/YYYY'])).toBe('9/8/2023');
    expect(call('DATETIME_FORMAT', [t, 'YYYY YY M MM MMM MMMM D DD d dd ddd dddd'])).toBe(
      '2023 23 9 09 Sep September 8 08 5 Fr Fri Friday',
    );
    expect(call('DATETIME_FORMAT', [t, 'H HH h hh m mm s ss SSS A a Z ZZ'], 'Europe/Berlin')).toBe(
      '20 20 8 08 5 05 3 03 045 PM pm +02:00 +0200',
    );
    expect(call('DATETIME_FORMAT', [t, '[Today is] dddd, [week] W!'])).toBe('Today is Friday, week W!');
    expect(call('DATETIME_FORMAT', ['2023-01-08T18:05:03.045Z', 'Z'], 'America/Los_Angeles')).toBe('-08:00');
  });

  it('DATETIME_FORMAT of empty is empty', () => {
    expect(call('DATETIME_FORMAT', [null, 'YYYY'])).toBeNull();
  });
});

describe('DATETIME_PARSE', () => {
  it('reads with format tokens in the zone', () => {
    expect(call('DATETIME_PARSE', ['8 Sep 2023 18:00', 'D MMM YYYY HH:mm'])).toBe('2023-09-08T18:00:00.000Z');
    expect(call('DATETIME_PARSE', ['8 Sep 2023 18:00', 'D MMM YYYY HH:mm'], 'Europe/Berlin')).toBe(
      '2023-09-08T16:00:00.000Z',
    );
    expect(call('DATETIME_PARSE', ['8 Dec 2023 18:00', 'D MMM YYYY HH:mm'], 'Europe/Berlin')).toBe(
      '2023-12-08T17:00:00.000Z',
    );
    expect(call('DATETIME_PARSE', ['09/08/2023 06:00 PM', 'MM/DD/YYYY hh:mm A'], 'America/Los_Angeles')).toBe(
      '2023-09-09T01:00:00.000Z',
    );
  });

  it('without a format reads text as 1.5 does', () => {
    expect(call('DATETIME_PARSE', ['2023-09-08'])).toBe('2023-09-08T00:00:00.000Z');
    expect(call('DATETIME_PARSE', ['2023-09-08 18:28:38', null], 'Europe/Berlin')).toBe(
      '2023-09-08T16:28:38.000Z',
    );
    expect(call('DATETIME_PARSE', ['2023-09-08T18:28:38Z', ''], 'Europe/Berlin')).toBe(
      '2023-09-08T18:28:38.000Z',
    );
  });

  it('a date passed in stays that date', () => {
    expect(
      call('DATETIME_PARSE', ['2023-09-08T18:28:38.000Z', 'D MMM YYYY'], 'UTC', NOW, [
        single('dateTime'),
        single('string'),
      ]),
    ).toBe('2023-09-08T18:28:38.000Z');
  });

  it('unreadable text is an FormulaEvalError; empty text is empty', () => {
    expect(() => call('DATETIME_PARSE', ['someday'])).toThrow(FormulaEvalError);
    expect(() => call('DATETIME_PARSE', ['8 Sep 2023', 'YYYY-MM-DD'])).toThrow(FormulaEvalError);
    expect(() => call('DATETIME_PARSE', ['31 Sep 2023', 'D MMM YYYY'])).toThrow(FormulaEvalError);
    expect(call('DATETIME_PARSE', [null, 'YYYY'])).toBeNull();
    expect(call('DATETIME_PARSE', [''])).toBeNull();
  });
});
