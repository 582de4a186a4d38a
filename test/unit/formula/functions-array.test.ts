/**
 * The array and system function specs of computed.md section 2, called directly with arguments
 * as the evaluator prepares them (lists passed whole, nested one level at most).
 */
import { describe, expect, it } from 'vitest';
import type { Typed } from '#shared/formula/formula-types.ts';
import { ARRAY_FUNCTIONS } from '#shared/formula/functions/array-functions.ts';
import { FUNCTIONS } from '#shared/formula/functions/index.ts';
import { SYSTEM_FUNCTIONS } from '#shared/formula/functions/system-functions.ts';
import { callerIn, specIn, typeOfValue } from './support.ts';

const spec = specIn([...ARRAY_FUNCTIONS, ...SYSTEM_FUNCTIONS]);

const t = (type: Typed['type'], multiple = false): Typed => ({ type, multiple });

/** The static type of a prepared value: the first non-empty item's type for a list. */
const call = callerIn([...ARRAY_FUNCTIONS, ...SYSTEM_FUNCTIONS], (args) => args.map(typeOfValue));

describe('array function specs', () => {
  it('lists every array function of section 2 once', () => {
    expect(ARRAY_FUNCTIONS.map((f) => f.name).sort()).toEqual(
      ['COUNTALL', 'COUNTA', 'COUNT', 'ARRAY_JOIN', 'ARRAY_UNIQUE', 'ARRAY_FLATTEN', 'ARRAY_COMPACT'].sort(),
    );
    expect(spec('COUNTALL')).toMatchObject({
      minArgs: 1,
      exact: true,
      countMessage: 'COUNTALL needs 1 param',
    });
    for (const name of ['COUNTA', 'COUNT', 'ARRAY_JOIN', 'ARRAY_UNIQUE', 'ARRAY_FLATTEN', 'ARRAY_COMPACT']) {
      expect(spec(name), name).toMatchObject({ minArgs: 1 });
      expect(spec(name).exact, name).toBeFalsy();
      expect(spec(name).args[0]?.arrays, name).toBe('items');
    }
    for (const name of ['COUNTALL', 'COUNTA', 'COUNT'])
      expect(spec(name).result([t('string', true)]), name).toEqual(t('number'));
    expect(spec('ARRAY_JOIN').result([t('number', true)])).toEqual(t('string'));
  });

  it('COUNTALL: empty → 0, a list its length (empties count), a single value 1', () => {
    expect(call('COUNTALL', [null])).toBe(0);
    expect(call('COUNTALL', [[1, null, '']])).toBe(3);
    expect(call('COUNTALL', [[]])).toBe(0);
    expect(call('COUNTALL', ['x'])).toBe(1);
    expect(call('COUNTALL', [0])).toBe(1);
    expect(
      call('COUNTALL', [
        [
          ['rap', 'rock'],
          ['rap', 'hiphop'],
        ],
      ]),
    ).toBe(4);
  });

  it('COUNTA counts non-empty, non-"" items one level deep', () => {
    expect(call('COUNTA', [[1, 2, [null, 3]]])).toBe(3);
    expect(call('COUNTA', ['a', [null, ''], 'b'])).toBe(2);
    expect(call('COUNTA', [''])).toBe(0);
    expect(call('COUNTA', [null])).toBe(0);
    expect(call('COUNTA', [0])).toBe(1);
    expect(call('COUNTA', [true])).toBe(1);
  });

  it('COUNT counts numeric items; a single value only if it is a number', () => {
    expect(call('COUNT', [[1, 2, 'A', 'B'], 3])).toBe(3);
    expect(call('COUNT', ['A'])).toBe(0);
    expect(call('COUNT', ['1'])).toBe(0);
    expect(call('COUNT', [null])).toBe(0);
    expect(call('COUNT', [0, [null, 5, [6]]])).toBe(3);
    expect(call('COUNT', [['2024-03-01T00:00:00.000Z']], [t('dateTime', true)])).toBe(0);
  });

  it('ARRAY_JOIN joins the items as text with ", " or a separator', () => {
    expect(call('ARRAY_JOIN', [['A', 'B', 'C'], '-'])).toBe('A-B-C');
    expect(call('ARRAY_JOIN', [['A', 'B', 'C']])).toBe('A, B, C');
    expect(call('ARRAY_JOIN', [['A', 'B'], null])).toBe('A, B');
    expect(call('ARRAY_JOIN', [['A', 'B'], ''])).toBe('AB');
    expect(call('ARRAY_JOIN', [['A', null, 'B']])).toBe('A, B');
    expect(call('ARRAY_JOIN', [['A', ['B', 'C']], '/'])).toBe('A/B/C');
    expect(call('ARRAY_JOIN', ['solo'])).toBe('solo');
    expect(call('ARRAY_JOIN', [null])).toBeNull();
    expect(call('ARRAY_JOIN', [[]])).toBeNull();
  });

  it('ARRAY_UNIQUE keeps first occurrences of all arguments flattened, empties dropped', () => {
    expect(call('ARRAY_UNIQUE', [['A', 'B', ['D'], 'B']])).toEqual(['A', 'B', 'D']);
    const numbers = [t('number', true), t('number'), t('number'), t('number', true)];
    expect(call('ARRAY_UNIQUE', [[3, 1, 3], 1, null, [2]], numbers)).toEqual([3, 1, 2]);
    expect(call('ARRAY_UNIQUE', [[null], null])).toBeNull();
  });

  it('ARRAY_FLATTEN flattens all arguments, empties dropped, "" kept', () => {
    expect(call('ARRAY_FLATTEN', [['A'], [['B'], null], 'C'])).toEqual(['A', 'B', 'C']);
    expect(call('ARRAY_FLATTEN', [['A', ''], 'A'])).toEqual(['A', '', 'A']);
    expect(call('ARRAY_FLATTEN', [null, []])).toBeNull();
  });

  it('ARRAY_COMPACT drops empties and ""', () => {
    expect(call('ARRAY_COMPACT', [['a', '', null, 'b'], ['a']])).toEqual(['a', 'b', 'a']);
    expect(call('ARRAY_COMPACT', [[0, null, 1]])).toEqual([0, 1]);
    expect(call('ARRAY_COMPACT', [['', null]])).toBeNull();
  });

  it('ARRAY_UNIQUE, FLATTEN, COMPACT: multiple, common type else text', () => {
    for (const name of ['ARRAY_UNIQUE', 'ARRAY_FLATTEN', 'ARRAY_COMPACT']) {
      const result = spec(name).result;
      expect(result([t('number', true), t('number')]), name).toEqual(t('number', true));
      expect(result([t('dateTime')]), name).toEqual(t('dateTime', true));
      expect(result([t('number', true), t('string', true)]), name).toEqual(t('string', true));
    }
    // mixed types give the items as texts
    expect(call('ARRAY_UNIQUE', [[1, 2], '1'], [t('number', true), t('string')])).toEqual(['1', '2']);
    expect(call('ARRAY_FLATTEN', [[1], true], [t('number', true), t('boolean')])).toEqual(['1', 'true']);
  });
});

describe('system function specs', () => {
  it('lists every system function once', () => {
    expect(SYSTEM_FUNCTIONS.map((f) => f.name).sort()).toEqual(['AUTO_NUMBER', 'RECORD_ID', 'TEXT_ALL']);
    expect(spec('RECORD_ID')).toMatchObject({ minArgs: 0, exact: true });
    expect(spec('AUTO_NUMBER')).toMatchObject({ minArgs: 0, exact: true });
    expect(spec('TEXT_ALL')).toMatchObject({ minArgs: 1, exact: true });
  });

  it('RECORD_ID and AUTO_NUMBER read the record', () => {
    expect(call('RECORD_ID', [])).toBe('recAAAAAAAAAAAAAAAA');
    expect(call('AUTO_NUMBER', [])).toBe(7);
    expect(spec('RECORD_ID').result([])).toEqual(t('string'));
    expect(spec('AUTO_NUMBER').result([])).toEqual(t('number'));
  });

  it('TEXT_ALL is text, multiple as its argument', () => {
    expect(spec('TEXT_ALL').args[0]).toEqual({ accepts: ['string'], arrays: 'items' });
    expect(spec('TEXT_ALL').result([t('string', true)])).toEqual(t('string', true));
    expect(spec('TEXT_ALL').result([t('string')])).toEqual(t('string'));
    expect(call('TEXT_ALL', [['1', 'a']])).toEqual(['1', 'a']);
    expect(call('TEXT_ALL', ['x'])).toBe('x');
    expect(call('TEXT_ALL', [''])).toBeNull();
    expect(call('TEXT_ALL', [null])).toBeNull();
  });
});

describe('the function registry', () => {
  it('holds every function of these groups by name', () => {
    for (const name of ['SUM', 'MID', 'IF', 'IS_ERROR', 'COUNTALL', 'ARRAY_COMPACT', 'RECORD_ID', 'TEXT_ALL'])
      expect(FUNCTIONS.get(name)?.name, name).toBe(name);
  });
});
