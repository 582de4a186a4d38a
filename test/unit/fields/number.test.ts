import { describe, expect, it } from 'vitest';
import { number, rating } from '#shared/fields/kinds/number.ts';
import { makeField, readCtx, validationError, writeCtx } from './support.ts';

const ctx = writeCtx();
const amount = makeField('number');
const stars = makeField('rating');

describe('number', () => {
  it.each([
    ['decimal, the default', {}, 12.5, '12.50'],
    ['percent (value × 100)', { type: 'percent', precision: 2 }, 12.5, '1250.00%'],
    ['currency', { type: 'currency', precision: 2 }, 12.5, '$12.50'],
    [
      'negative currency with thousands separators',
      { type: 'currency', precision: 2 },
      -1234.5,
      '-$1,234.50',
    ],
    [
      'currency with another symbol',
      { type: 'currency', precision: 1, symbol: '€' },
      1234567.25,
      '€1,234,567.3',
    ],
    ['decimal has no thousands separators', { type: 'decimal', precision: 2 }, 1234567.891, '1234567.89'],
    ['precision 0 rounds', { type: 'decimal', precision: 0 }, 12.5, '13'],
    ['precision 5', { type: 'decimal', precision: 5 }, 1 / 3, '0.33333'],
    ['a tiny negative does not show -0', { type: 'currency', precision: 2 }, -0.001, '$0.00'],
    ['percent of a small share', { type: 'percent', precision: 1 }, 0.075, '7.5%'],
  ])('text: %s', (_what, formatting, value, expected) => {
    const field = makeField('number', { formatting });
    expect(number.toText(value, field, readCtx)).toBe(expected);
  });

  it('JSON is the number itself', () => {
    expect(number.toJson(12.5, amount, readCtx)).toBe(12.5);
  });

  it.each([
    ['a decimal', 12.5],
    ['zero', 0],
    ['a negative', -3],
  ])('validate: %s is kept', (_what, value) => {
    expect(number.validate(value, amount, ctx)).toEqual({ value });
  });

  it.each([
    ['numeric text', '12'],
    ['a boolean', true],
    ['a list', [1]],
    ['an object', { value: 1 }],
  ])('validate: %s is a 400 naming the field', (_what, value) => {
    expect(validationError(() => number.validate(value, amount, ctx)).message).toBe(
      `Field "Name" (${amount.id}): expected a number`,
    );
  });

  it.each([
    ['a number', 7, 7],
    ['numeric text', '42', 42],
    ['currency text', '$1,234.50', 1234.5],
    ['a percent divides by 100', '12%', 0.12],
    ['a percent with decimals', '1.1 %', 0.011],
    ['a sign', '-5', -5],
    ['a plus sign', '+5', 5],
    ['letters around digits', 'about 30 kg', 30],
    ['nothing numeric', 'abc', undefined],
    ['empty text', '', undefined],
    ['only a sign', '-', undefined],
    ['two points', '1.2.3', undefined],
    ['a one-item list', ['3'], 3],
    ['a longer list', [1, 2], undefined],
    ['a boolean', true, undefined],
    ['an object', { a: 1 }, undefined],
    ['null', null, undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(number.typecast(value, amount, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['no options', undefined, { formatting: { type: 'decimal', precision: 2 } }],
    [
      'currency gets $',
      { formatting: { type: 'currency' } },
      { formatting: { type: 'currency', precision: 2, symbol: '$' } },
    ],
    [
      'percent drops a symbol',
      { formatting: { type: 'percent', precision: 0, symbol: '€' } },
      { formatting: { type: 'percent', precision: 0 } },
    ],
    [
      'a default value',
      { defaultValue: 3 },
      { formatting: { type: 'decimal', precision: 2 }, defaultValue: 3 },
    ],
  ])('options: %s', (_what, options, expected) => {
    expect(number.normalizeOptions(options, ctx)).toEqual(expected);
  });

  it.each([
    ['precision 6', { formatting: { precision: 6 } }, 'formatting.precision must be an integer from 0 to 5'],
    [
      'precision -1',
      { formatting: { precision: -1 } },
      'formatting.precision must be an integer from 0 to 5',
    ],
    [
      'precision 1.5',
      { formatting: { precision: 1.5 } },
      'formatting.precision must be an integer from 0 to 5',
    ],
    [
      'an unknown type',
      { formatting: { type: 'money' } },
      'formatting.type must be one of decimal, percent, currency',
    ],
    ['formatting not an object', { formatting: 2 }, 'formatting must be an object'],
    [
      'a symbol that is not text',
      { formatting: { type: 'currency', symbol: 1 } },
      'formatting.symbol must be text of at most 10 characters',
    ],
    ['a text default value', { defaultValue: '3' }, 'defaultValue must be a number'],
  ])('options: %s is a 400', (_what, options, message) => {
    expect(validationError(() => number.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a number field: ${message}`,
    );
  });

  it('gives the default value to an empty cell on create', () => {
    expect(number.defaultValue(makeField('number', { defaultValue: 0 }), ctx)).toBe(0);
    expect(number.defaultValue(amount, ctx)).toBeUndefined();
  });
});

describe('rating', () => {
  it('defaults to 5 yellow stars', () => {
    expect(rating.normalizeOptions(undefined, ctx)).toEqual({ icon: 'star', color: 'yellowBright', max: 5 });
    expect(rating.normalizeOptions({ icon: 'heart', color: 'redBright', max: 10 }, ctx)).toEqual({
      icon: 'heart',
      color: 'redBright',
      max: 10,
    });
  });

  it.each([
    ['max 0', { max: 0 }, 'max must be an integer from 1 to 10'],
    ['max 11', { max: 11 }, 'max must be an integer from 1 to 10'],
    ['max 2.5', { max: 2.5 }, 'max must be an integer from 1 to 10'],
    [
      'an unknown icon',
      { icon: 'cat' },
      'icon must be one of star, moon, sun, zap, flame, heart, apple, thumb-up',
    ],
  ])('options: %s is a 400', (_what, options, message) => {
    expect(validationError(() => rating.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a rating field: ${message}`,
    );
  });

  it('options: an unknown color is a 400', () => {
    expect(validationError(() => rating.normalizeOptions({ color: 'beige' }, ctx)).message).toMatch(
      /^Invalid options for a rating field: color must be one of blueLight2, /,
    );
  });

  it.each([1, 3, 5])('validate: %s is kept', (value) => {
    expect(rating.validate(value, stars, ctx)).toEqual({ value });
  });

  it.each([
    ['0', 0],
    ['above max', 6],
    ['a fraction', 2.5],
    ['numeric text', '3'],
    ['a negative', -1],
  ])('validate: %s is a 400 naming the field', (_what, value) => {
    expect(validationError(() => rating.validate(value, stars, ctx)).message).toBe(
      `Field "Name" (${stars.id}): expected an integer from 1 to 5`,
    );
  });

  it.each([
    ['numeric text', '3', 3],
    ['rounded up', 2.6, 3],
    ['rounded down', 2.4, 2],
    ['capped at max', 9, 5],
    ['0 is empty', 0, undefined],
    ['rounds to 0, empty', 0.4, undefined],
    ['negative is empty', -2, undefined],
    ['not a number', 'great', undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(rating.typecast(value, stars, ctx)).toEqual({ value: expected });
  });

  it('caps at the field max', () => {
    expect(rating.typecast(12, makeField('rating', { max: 10 }), ctx)).toEqual({ value: 10 });
  });

  it('renders as the digit', () => {
    expect(rating.toText(3, stars, readCtx)).toBe('3');
    expect(rating.toJson(3, stars, readCtx)).toBe(3);
    expect(rating.cellValueType({})).toBe('number');
  });
});
