import { describe, expect, it } from 'vitest';
import { date } from '#shared/fields/kinds/date.ts';
import { makeField, NOW, readCtx, validationError, writeCtx } from './support.ts';

const ctx = writeCtx();
const utc = makeField('date');
const berlin = makeField('date', {
  formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Europe/Berlin' },
});
const european = makeField('date', { formatting: { date: 'DD/MM/YYYY', time: 'None', timeZone: 'UTC' } });

describe('date options', () => {
  it('default to YYYY-MM-DD, no time, UTC', () => {
    expect(date.normalizeOptions(undefined, ctx)).toEqual({
      formatting: { date: 'YYYY-MM-DD', time: 'None', timeZone: 'UTC' },
    });
  });

  it('fill missing parts and canonicalise the zone name', () => {
    expect(
      date.normalizeOptions(
        { formatting: { time: 'HH:mm', timeZone: 'asia/tokyo' }, defaultValue: 'now' },
        ctx,
      ),
    ).toEqual({
      formatting: { date: 'YYYY-MM-DD', time: 'HH:mm', timeZone: 'Asia/Tokyo' },
      defaultValue: 'now',
    });
    expect(date.normalizeOptions({ formatting: { timeZone: 'utc' } }, ctx)).toMatchObject({
      formatting: { timeZone: 'UTC' },
    });
  });

  it.each([
    [
      'an unknown time zone',
      { formatting: { timeZone: 'Mars/Olympus' } },
      'formatting.timeZone "Mars/Olympus" is not an IANA time zone',
    ],
    [
      'an empty time zone',
      { formatting: { timeZone: '' } },
      'formatting.timeZone "" is not an IANA time zone',
    ],
    [
      'a zone that is not text',
      { formatting: { timeZone: 1 } },
      'formatting.timeZone "1" is not an IANA time zone',
    ],
    [
      'an unknown time format',
      { formatting: { time: 'HH' } },
      'formatting.time must be one of HH:mm, hh:mm A, None',
    ],
    ['a default other than now', { defaultValue: '2026-01-01' }, 'defaultValue must be "now"'],
  ])('%s is a 400', (_what, options, message) => {
    expect(validationError(() => date.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a date field: ${message}`,
    );
  });

  it('an unknown date format is a 400', () => {
    expect(
      validationError(() => date.normalizeOptions({ formatting: { date: 'YY.MM' } }, ctx)).message,
    ).toMatch(
      /^Invalid options for a date field: formatting\.date must be one of YYYY-MM-DD, MM\/DD\/YYYY, /,
    );
  });

  it('the default "now" is the time of the write', () => {
    expect(date.defaultValue(makeField('date', { defaultValue: 'now' }), ctx)).toBe(
      '2026-03-01T12:00:00.000Z',
    );
    expect(date.defaultValue(utc, ctx)).toBeUndefined();
  });
});

describe('date cells', () => {
  it.each([
    ['UTC with milliseconds', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    ['UTC without milliseconds', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['without seconds', '2026-03-01T10:30Z', '2026-03-01T10:30:00.000Z'],
    ['a positive offset', '2026-03-01T10:00:00+01:00', '2026-03-01T09:00:00.000Z'],
    ['a negative offset without colon', '2026-03-01T10:00:00-0530', '2026-03-01T15:30:00.000Z'],
    ['a fraction of a second', '2026-03-01T10:00:00.5Z', '2026-03-01T10:00:00.500Z'],
    ['null clears', null, undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(date.validate(value, utc, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['a date without time', '2026-03-01'],
    ['a time without offset', '2026-03-01T10:00:00'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['hour 25', '2026-03-01T25:00:00Z'],
    ['now', 'now'],
    ['epoch milliseconds', 1772323200000],
    ['an object', { date: '2026-03-01' }],
  ])('validate: %s is a 400 naming the field', (_what, value) => {
    expect(validationError(() => date.validate(value, utc, ctx)).message).toBe(
      `Field "Name" (${utc.id}): expected an ISO 8601 time with an offset, like 2026-03-01T00:00:00.000Z`,
    );
  });

  it.each([
    ['ISO with an offset', '2026-03-01T10:00:00+01:00', '2026-03-01T09:00:00.000Z'],
    ['a day, in the field zone', '2026-03-01', '2026-02-28T23:00:00.000Z'],
    ['a day and time, in the field zone', '2026-03-01 14:05', '2026-03-01T13:05:00.000Z'],
    ['a local ISO time', '2026-07-01T14:05:30', '2026-07-01T12:05:30.000Z'],
    ['month first with the year last', '03/01/2026', '2026-02-28T23:00:00.000Z'],
    ['a 12-hour time', '3/1/2026 2:05 PM', '2026-03-01T13:05:00.000Z'],
    ['year first with slashes', '2026/03/01', '2026-02-28T23:00:00.000Z'],
    ['a day above 12 can only be day first', '13/02/2026', '2026-02-12T23:00:00.000Z'],
    ['a month name', 'March 1, 2026', '2026-02-28T23:00:00.000Z'],
    ['a day before a month name, with time', '1 Mar 2026 14:05', '2026-03-01T13:05:00.000Z'],
    ['an abbreviated month with a weekday', 'Tue, 3 Sept 2026', '2026-09-02T22:00:00.000Z'],
    ['epoch milliseconds', 1772323200000, '2026-03-01T00:00:00.000Z'],
    ['now', 'now', NOW.toISOString()],
    ['a one-item list', ['2026-03-01T00:00:00Z'], '2026-03-01T00:00:00.000Z'],
    ['unparseable text', 'next week', undefined],
    ['an impossible day', '2026-02-30', undefined],
    ['an impossible time', '2026-03-01 24:30', undefined],
    ['a boolean', true, undefined],
    ['an object', { a: 1 }, undefined],
    ['an epoch far out of range', 1e20, undefined],
    ['empty text', '', undefined],
  ])('typecast in Europe/Berlin: %s', (_what, value, expected) => {
    expect(date.typecast(value, berlin, ctx)).toEqual({ value: expected });
  });

  it('typecast reads slash dates day first when the field shows DD/MM/YYYY', () => {
    expect(date.typecast('01/03/2026', european, ctx)).toEqual({ value: '2026-03-01T00:00:00.000Z' });
    expect(date.typecast('01/03/2026', utc, ctx)).toEqual({ value: '2026-01-03T00:00:00.000Z' });
  });

  it.each([
    ['the default format', {}, '2026-03-01T14:05:00.000Z', '2026-03-01'],
    ['with 24-hour time', { time: 'HH:mm' }, '2026-03-01T14:05:00.000Z', '2026-03-01 14:05'],
    ['with 12-hour time', { time: 'hh:mm A' }, '2026-03-01T14:05:00.000Z', '2026-03-01 02:05 PM'],
    ['midnight in 12-hour time', { time: 'hh:mm A' }, '2026-03-01T00:05:00.000Z', '2026-03-01 12:05 AM'],
    [
      'in the field zone',
      { time: 'HH:mm', timeZone: 'Asia/Tokyo' },
      '2026-02-28T15:30:00.000Z',
      '2026-03-01 00:30',
    ],
    ['US style', { date: 'M/D/YYYY' }, '2026-03-01T00:00:00.000Z', '3/1/2026'],
    ['MM/DD/YYYY', { date: 'MM/DD/YYYY' }, '2026-03-01T00:00:00.000Z', '03/01/2026'],
    ['DD/MM/YYYY', { date: 'DD/MM/YYYY' }, '2026-03-01T00:00:00.000Z', '01/03/2026'],
    ['YYYY/MM/DD', { date: 'YYYY/MM/DD' }, '2026-03-01T00:00:00.000Z', '2026/03/01'],
    [
      'the day before, west of UTC',
      { timeZone: 'America/New_York' },
      '2026-03-01T03:00:00.000Z',
      '2026-02-28',
    ],
  ])('text: %s', (_what, formatting, value, expected) => {
    const field = makeField('date', { formatting });
    expect(date.toText(value, field, readCtx)).toBe(expected);
  });

  it('JSON is the ISO time', () => {
    expect(date.toJson('2026-03-01T00:00:00.000Z', utc, readCtx)).toBe('2026-03-01T00:00:00.000Z');
    expect(date.cellValueType({})).toBe('dateTime');
  });
});
