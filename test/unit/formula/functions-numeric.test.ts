/**
 * The numeric function specs of computed.md section 2, called directly with arguments as the
 * evaluator prepares them (converted to number, lists kept whole only for the list functions).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { single, type Typed } from '#shared/formula/formula-types.ts';
import { NUMERIC_FUNCTIONS } from '#shared/formula/functions/numeric-functions.ts';
import { callerIn, EVAL_CTX, specIn } from './support.ts';

const ctx = EVAL_CTX;

const spec = specIn(NUMERIC_FUNCTIONS);

const num: Typed = { type: 'number', multiple: false };
const nums: Typed = { type: 'number', multiple: true };
const date: Typed = { type: 'dateTime', multiple: false };
const dates: Typed = { type: 'dateTime', multiple: true };

/** Calls a spec with prepared arguments; types default to number (multiple for lists). */
const call = callerIn(NUMERIC_FUNCTIONS, (args) => args.map((a) => (Array.isArray(a) ? nums : num)));

describe('numeric function specs', () => {
  it('lists every numeric function of section 2 once', () => {
    expect(NUMERIC_FUNCTIONS.map((f) => f.name).sort()).toEqual(
      [
        'SUM',
        'AVERAGE',
        'MAX',
        'MIN',
        'ROUND',
        'ROUNDUP',
        'ROUNDDOWN',
        'CEILING',
        'FLOOR',
        'EVEN',
        'ODD',
        'INT',
        'ABS',
        'SQRT',
        'EXP',
        'POWER',
        'LOG',
        'MOD',
        'VALUE',
      ].sort(),
    );
    for (const f of NUMERIC_FUNCTIONS) expect(f.result([num]), f.name).toEqual(num);
  });

  it('declares the argument counts of section 2', () => {
    expect(spec('ROUND')).toMatchObject({ minArgs: 1 });
    expect(spec('ROUND').exact).toBeFalsy();
    for (const name of ['EVEN', 'ODD', 'INT', 'ABS', 'SQRT', 'EXP', 'VALUE'])
      expect(spec(name), name).toMatchObject({ minArgs: 1, exact: true });
    expect(spec('POWER')).toMatchObject({ minArgs: 2, countMessage: 'POWER needs 2 params' });
    expect(spec('MOD')).toMatchObject({ minArgs: 2 });
    expect(spec('SUM').args[0]).toEqual({ accepts: ['number'], arrays: 'items' });
    expect(spec('ABS').args[0]?.arrays).toBeUndefined();
    expect(spec('MAX').args[0]).toEqual({ accepts: ['number', 'dateTime'], arrays: 'items' });
    expect(spec('VALUE').args[0]?.accepts).toEqual(['string']);
  });

  it('SUM adds lists and scalars, empties as 0', () => {
    expect(call('SUM', [1, 2, 3])).toBe(6);
    expect(call('SUM', [[1, null, 2], null, 3])).toBe(6);
    expect(call('SUM', [null])).toBe(0);
    expect(call('SUM', [[], [-1.5]])).toBe(-1.5);
  });

  it('AVERAGE is the mean of the non-empty values; all empty is empty', () => {
    expect(call('AVERAGE', [1, null, 3])).toBe(2);
    expect(call('AVERAGE', [[2, null, 4]])).toBe(3);
    expect(call('AVERAGE', [[1, 2], 6])).toBe(3);
    expect(call('AVERAGE', [null, [null]])).toBeNull();
  });

  it('MAX and MIN skip empties; all empty is empty', () => {
    expect(call('MAX', [1, [5, null, 3], null])).toBe(5);
    expect(call('MIN', [1, [5, null, 3], null])).toBe(1);
    expect(call('MIN', [[-2, 4], -7])).toBe(-7);
    expect(call('MAX', [null, []])).toBeNull();
    expect(call('MIN', [[null]])).toBeNull();
  });

  it('MAX and MIN compare dates chronologically and answer in the first argument type', () => {
    const later = '+010000-01-01T00:00:00.000Z'; // textually smaller, chronologically larger
    const earlier = '2024-03-01T00:00:00.000Z';
    expect(call('MAX', [earlier, later], [date, date])).toBe(later);
    expect(call('MIN', [[later, null, earlier]], [dates])).toBe(earlier);
    expect(call('MAX', [['2024-01-01T00:00:00.000Z', earlier]], [dates])).toBe(earlier);
    expect(call('MIN', [null], [date])).toBeNull();
    expect(spec('MAX').result([date, num])).toEqual({ type: 'dateTime', multiple: false });
    expect(spec('MIN').result([num, date])).toEqual({ type: 'number', multiple: false });
    expect(spec('MAX').result([dates])).toEqual({ type: 'dateTime', multiple: false });
  });

  it('ROUND takes halves toward +∞ and floors the precision', () => {
    expect(call('ROUND', [2.5])).toBe(3);
    expect(call('ROUND', [-2.5])).toBe(-2);
    expect(call('ROUND', [-2.55, 1])).toBe(-2.5);
    expect(call('ROUND', [2.49, 1.8])).toBe(2.5);
    expect(call('ROUND', [2.4])).toBe(2);
    expect(call('ROUND', [1234.5, -2])).toBe(1200);
    expect(call('ROUND', [1250, -2])).toBe(1300);
    expect(call('ROUND', [5, null])).toBe(5);
    expect(Object.is(call('ROUND', [-0.4]), 0)).toBe(true);
  });

  it('ROUND gives the decimal answer despite binary floating point', () => {
    // 2.675 is 2.67499999… in binary: multiplying by 100 first would give 2.67
    expect(call('ROUND', [2.675, 2])).toBe(2.68);
    expect(call('ROUND', [1.005, 2])).toBe(1.01);
    expect(call('ROUND', [-1.005, 2])).toBe(-1);
    expect(call('ROUND', [1e21, 2])).toBe(1e21);
    expect(call('ROUND', [1.23e-7, 8])).toBe(1.2e-7);
    expect(call('ROUND', [0.1, 400])).toBe(0.1);
  });

  it('an empty number makes the scalar functions empty', () => {
    for (const name of [
      'ROUND',
      'ROUNDUP',
      'ROUNDDOWN',
      'CEILING',
      'FLOOR',
      'EVEN',
      'ODD',
      'INT',
      'ABS',
      'SQRT',
      'EXP',
    ])
      expect(call(name, [null]), name).toBeNull();
    expect(call('POWER', [null, 2])).toBeNull();
    expect(call('LOG', [null])).toBeNull();
    expect(call('MOD', [null, 2])).toBeNull();
  });

  it('ROUNDUP goes away from zero, ROUNDDOWN toward it', () => {
    expect(call('ROUNDUP', [2.44, 1])).toBe(2.5);
    expect(call('ROUNDUP', [-2.49, 0])).toBe(-3);
    expect(call('ROUNDUP', [2.49, -1])).toBe(10);
    expect(call('ROUNDUP', [1.1, 1])).toBe(1.1); // 1.1 * 10 is 11.000000000000002
    expect(call('ROUNDDOWN', [-2.49, 1])).toBe(-2.4);
    expect(call('ROUNDDOWN', [2.49, -1])).toBe(0);
    expect(call('ROUNDDOWN', [4.35, 2])).toBe(4.35); // 4.35 * 100 is 434.99999999999994
    expect(call('ROUNDDOWN', [2.9])).toBe(2);
  });

  it('CEILING and FLOOR go toward +∞ / −∞ at p decimals', () => {
    expect(call('CEILING', [-2.49])).toBe(-2);
    expect(call('CEILING', [2.49, -1])).toBe(10);
    expect(call('CEILING', [2.1])).toBe(3);
    expect(call('FLOOR', [-2.49])).toBe(-3);
    expect(call('FLOOR', [-2.49, 1])).toBe(-2.5);
    expect(call('FLOOR', [1.15, 2])).toBe(1.15); // 1.15 * 100 is 114.99999999999999
    expect(call('FLOOR', [25, -1])).toBe(20);
  });

  it('EVEN and ODD round away from zero to an even / odd integer', () => {
    expect(call('EVEN', [0.1])).toBe(2);
    expect(call('EVEN', [-0.1])).toBe(-2);
    expect(call('EVEN', [0])).toBe(0);
    expect(call('EVEN', [2])).toBe(2);
    expect(call('EVEN', [3])).toBe(4);
    expect(call('EVEN', [-3])).toBe(-4);
    expect(call('ODD', [0])).toBe(1);
    expect(call('ODD', [-0.1])).toBe(-1);
    expect(call('ODD', [1.5])).toBe(3);
    expect(call('ODD', [2])).toBe(3);
    expect(call('ODD', [-2])).toBe(-3);
    expect(call('ODD', [3])).toBe(3);
  });

  it('INT floors, ABS, SQRT (negative → empty) and EXP', () => {
    expect(call('INT', [-1.9])).toBe(-2);
    expect(call('INT', [1.9])).toBe(1);
    expect(call('ABS', [-3.5])).toBe(3.5);
    expect(call('SQRT', [9])).toBe(3);
    expect(call('SQRT', [-1])).toBeNull();
    expect(call('EXP', [0])).toBe(1);
    expect(call('EXP', [1])).toBe(Math.E);
  });

  it('POWER: empty exponent is 1, exponent 0 gives 1', () => {
    expect(call('POWER', [2, 3])).toBe(8);
    expect(call('POWER', [5, 0])).toBe(1);
    expect(call('POWER', [5, null])).toBe(5);
    expect(call('POWER', [4, 0.5])).toBe(2);
    expect(call('POWER', [2, -1])).toBe(0.5);
  });

  it('LOG: base 10 when empty or 0, exact for integer powers', () => {
    expect(call('LOG', [100])).toBe(2);
    expect(call('LOG', [1024, 2])).toBe(10);
    expect(call('LOG', [1000])).toBe(3);
    expect(call('LOG', [100, 0])).toBe(2);
    expect(call('LOG', [100, null])).toBe(2);
    expect(call('LOG', [125, 5])).toBe(3);
    expect(call('LOG', [8, 3])).toBeCloseTo(1.892789, 5);
    expect(call('LOG', [0])).toBe(Number.NEGATIVE_INFINITY); // stored as empty
  });

  it('MOD: |x| mod |d| with the sign of d; d empty or 0 is 1', () => {
    expect(call('MOD', [3, 2])).toBe(1);
    expect(call('MOD', [-5, 2])).toBe(1);
    expect(call('MOD', [5, -2])).toBe(-1);
    expect(call('MOD', [-5, -2])).toBe(-1);
    expect(call('MOD', [-7, 3])).toBe(1);
    expect(call('MOD', [5.5, 0])).toBe(0.5);
    expect(call('MOD', [5.5, null])).toBe(0.5);
    expect(Object.is(call('MOD', [4, -2]), 0)).toBe(true);
  });

  it('VALUE keeps digits and signs, squeezes sign runs and parses', () => {
    const text: Typed = { type: 'string', multiple: false };
    const value = (t: string | null) => call('VALUE', [t], [text]);
    expect(value('abc-100.12$$3')).toBe(-100.123);
    expect(value('$1,234.50')).toBe(1234.5);
    expect(value('--5')).toBe(-5);
    expect(value('+-5')).toBe(-5);
    expect(value('1..5')).toBe(1.5);
    expect(value('12')).toBe(12);
    expect(value('abc')).toBeNull();
    expect(value('')).toBeNull();
    expect(value(null)).toBeNull();
  });
});

describe('ROUND at decimals agrees with rounding the decimal text', () => {
  // the reference: shift the decimal text by p, round halves toward +∞, shift back
  const viaText = (x: number, p: number): number => {
    const [m, e] = String(x).toLowerCase().split('e');
    const shifted = Number(`${m}e${Number(e ?? 0) + p}`);
    const [m2, e2] = String(Math.round(shifted)).toLowerCase().split('e');
    return Number(`${m2}e${Number(e2 ?? 0) - p}`) + 0;
  };
  it('on random values and precisions, fast path or not', () => {
    const round = spec('ROUND');
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 6 }), (x, p) => {
        const got = round.evaluate?.([x, p], ctx, [single('number'), single('number')]);
        expect(got).toBe(viaText(x, p));
      }),
      { numRuns: 2000 },
    );
  });
});
