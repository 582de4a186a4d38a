/**
 * The text function specs of computed.md section 2, called directly with arguments as the
 * evaluator prepares them: texts (lists already joined with `, `), positions and counts as numbers.
 */
import { describe, expect, it } from 'vitest';
import { FormulaEvalError, type Typed } from '#shared/formula/formula-types.ts';
import { MAX_TEXT_LENGTH, TEXT_FUNCTIONS } from '#shared/formula/functions/text-functions.ts';
import { callerIn, specIn, typeOfValue } from './support.ts';

const spec = specIn(TEXT_FUNCTIONS);

/** The static type of a prepared value, as the evaluator would pass it. */
const call = callerIn(TEXT_FUNCTIONS, (args) => args.map(typeOfValue));

describe('text function specs', () => {
  it('lists every text function of section 2 once, with its result type', () => {
    const names = TEXT_FUNCTIONS.map((f) => f.name);
    expect([...names].sort()).toEqual(
      [
        'CONCATENATE',
        'FIND',
        'SEARCH',
        'MID',
        'LEFT',
        'RIGHT',
        'REPLACE',
        'REGEXP_REPLACE',
        'SUBSTITUTE',
        'LOWER',
        'UPPER',
        'TRIM',
        'LEN',
        'REPT',
        'T',
        'ENCODE_URL_COMPONENT',
      ].sort(),
    );
    const numbers = ['FIND', 'SEARCH', 'LEN'];
    for (const f of TEXT_FUNCTIONS)
      expect(f.result([{ type: 'string', multiple: true }]), f.name).toEqual({
        type: numbers.includes(f.name) ? 'number' : 'string',
        multiple: false,
      });
  });

  it('declares argument counts and joins list arguments', () => {
    expect(spec('MID')).toMatchObject({ minArgs: 3 });
    expect(spec('REPLACE')).toMatchObject({ minArgs: 4 });
    expect(spec('REPT')).toMatchObject({ minArgs: 2 });
    expect(spec('FIND')).toMatchObject({ minArgs: 1 });
    for (const name of ['LOWER', 'UPPER', 'TRIM', 'LEN', 'T', 'ENCODE_URL_COMPONENT'])
      expect(spec(name), name).toMatchObject({ minArgs: 1, exact: true });
    expect(spec('CONCATENATE').args[0]).toEqual({ accepts: ['string'], arrays: 'join' });
    expect(spec('MID').args[1]).toEqual({ accepts: ['number'], arrays: 'join' });
    expect(spec('T').args[0]?.accepts).toBe('any');
  });

  it('CONCATENATE joins without separator, empty as ""', () => {
    expect(call('CONCATENATE', ['Hello', ', ', 'Teable'])).toBe('Hello, Teable');
    expect(call('CONCATENATE', ['a', null, '3'])).toBe('a3');
    expect(call('CONCATENATE', [null])).toBe('');
  });

  it('FIND: 1-based, case-sensitive, absent is 0, start 1-based', () => {
    expect(call('FIND', ['Teable', 'Hello, Teable'])).toBe(8);
    expect(call('FIND', ['x', 'abc'])).toBe(0);
    expect(call('FIND', ['teable', 'Hello, Teable'])).toBe(0);
    expect(call('FIND', ['e', 'Teable', 3])).toBe(6);
    expect(call('FIND', ['e', 'Teable', 0])).toBe(2);
    expect(call('FIND', ['e', 'Teable', -4])).toBe(2);
    expect(call('FIND', ['e', 'Teable', null])).toBe(2);
    expect(call('FIND', ['e', 'Teable', 7])).toBe(0);
  });

  it('FIND and SEARCH: an empty needle or text is empty', () => {
    for (const name of ['FIND', 'SEARCH']) {
      expect(call(name, [null, 'abc']), name).toBeNull();
      expect(call(name, ['', 'abc']), name).toBeNull();
      expect(call(name, ['a', null]), name).toBeNull();
      expect(call(name, ['a']), name).toBeNull();
    }
  });

  it('SEARCH is FIND with absent → empty, also case-sensitive', () => {
    expect(call('SEARCH', ['Teable', 'Hello, Teable'])).toBe(8);
    expect(call('SEARCH', ['x', 'abc'])).toBeNull();
    expect(call('SEARCH', ['teable', 'Hello, Teable'])).toBeNull();
    expect(call('SEARCH', ['l', 'Hello', 4])).toBe(4);
  });

  it('MID takes a 0-based start', () => {
    expect(call('MID', ['Hello, Teable', 7, 6])).toBe('Teable');
    expect(call('MID', ['Hello, Teable', 0, 5])).toBe('Hello');
    expect(call('MID', ['abc', 1, 10])).toBe('bc');
    expect(call('MID', ['abc', 5, 2])).toBe('');
    expect(call('MID', ['abc', 0, -1])).toBe('');
    expect(call('MID', ['abc', 1, 0])).toBe('');
    expect(call('MID', [null, 0, 1])).toBeNull();
  });

  it('LEFT and RIGHT: n defaults to 1, n < 0 is ""', () => {
    expect(call('LEFT', ['Teable'])).toBe('T');
    expect(call('LEFT', ['Teable', 3])).toBe('Tea');
    expect(call('LEFT', ['abc', 10])).toBe('abc');
    expect(call('LEFT', ['abc', -1])).toBe('');
    expect(call('LEFT', ['abc', null])).toBe('a');
    expect(call('RIGHT', ['Teable'])).toBe('e');
    expect(call('RIGHT', ['Teable', 3])).toBe('ble');
    expect(call('RIGHT', ['abc', 10])).toBe('abc');
    expect(call('RIGHT', ['abc', 0])).toBe('');
    expect(call('RIGHT', ['abc', -1])).toBe('');
    expect(call('LEFT', [null, 2])).toBeNull();
    expect(call('RIGHT', [null, 2])).toBeNull();
  });

  it('REPLACE is 1-based; a start past the end appends', () => {
    expect(call('REPLACE', ['Hello, Teable', 8, 6, 'Table'])).toBe('Hello, Table');
    expect(call('REPLACE', ['abc', 1, 1, 'X'])).toBe('Xbc');
    expect(call('REPLACE', ['abc', 3, 1, 'X'])).toBe('abX'); // start = length replaces the last
    expect(call('REPLACE', ['abc', 4, 1, 'X'])).toBe('abcX');
    expect(call('REPLACE', ['abc', 2, 0, 'X'])).toBe('aXbc');
    expect(call('REPLACE', ['abc', 2, 1, null])).toBe('ac');
    expect(call('REPLACE', [null, 1, 1, 'X'])).toBeNull();
  });

  it('REGEXP_REPLACE replaces the first match only, with $1; a bad regex is an error', () => {
    expect(call('REGEXP_REPLACE', ['a1b2', '\\d', '#'])).toBe('a#b2');
    expect(call('REGEXP_REPLACE', ['John Smith', '(\\w+) (\\w+)', '$2 $1'])).toBe('Smith John');
    expect(call('REGEXP_REPLACE', ['abc', 'x', '#'])).toBe('abc');
    expect(call('REGEXP_REPLACE', [null, 'x', '#'])).toBeNull();
    expect(() => call('REGEXP_REPLACE', ['abc', '(', '#'])).toThrow(FormulaEvalError);
  });

  it('SUBSTITUTE: all, or only the n-th (n = 1 the first); n beyond the count leaves the text', () => {
    expect(call('SUBSTITUTE', ['a-b-c', '-', '+'])).toBe('a+b+c');
    expect(call('SUBSTITUTE', ['a-b-c', '-', '+', 1])).toBe('a+b-c');
    expect(call('SUBSTITUTE', ['a-b-c', '-', '+', 2])).toBe('a-b+c');
    expect(call('SUBSTITUTE', ['a-b-c', '-', '+', 3])).toBe('a-b-c');
    expect(call('SUBSTITUTE', ['a-b-c', '-', '+', null])).toBe('a+b+c');
    expect(call('SUBSTITUTE', ['aaa', 'aa', 'b'])).toBe('ba');
    expect(call('SUBSTITUTE', ['a-b', '-', null])).toBe('ab');
    expect(call('SUBSTITUTE', ['abc', '', 'x'])).toBe('abc');
    expect(call('SUBSTITUTE', [null, '-', '+'])).toBeNull();
  });

  it('LOWER, UPPER, TRIM and LEN (UTF-16 units)', () => {
    expect(call('LOWER', ['TeAble'])).toBe('teable');
    expect(call('UPPER', ['TeAble'])).toBe('TEABLE');
    expect(call('TRIM', ['  a b \n'])).toBe('a b');
    expect(call('LEN', ['Teable'])).toBe(6);
    expect(call('LEN', ['😀'])).toBe(2);
    expect(call('LEN', [''])).toBe(0);
    for (const name of ['LOWER', 'UPPER', 'TRIM', 'LEN']) expect(call(name, [null]), name).toBeNull();
  });

  it('REPT: n = 0 is empty, n < 0 an error', () => {
    expect(call('REPT', ['ab', 3])).toBe('ababab');
    expect(call('REPT', ['ab', 0])).toBeNull();
    expect(call('REPT', ['ab', null])).toBeNull();
    expect(() => call('REPT', ['ab', -1])).toThrow(FormulaEvalError);
    expect(() => call('REPT', ['ab', MAX_TEXT_LENGTH])).toThrow(FormulaEvalError);
    expect(call('REPT', [null, 2])).toBeNull();
  });

  it('T keeps text, empties anything else, joins text lists', () => {
    const dateT: Typed = { type: 'dateTime', multiple: false };
    expect(call('T', ['a'])).toBe('a');
    expect(call('T', [1])).toBeNull();
    expect(call('T', [true])).toBeNull();
    expect(call('T', ['2024-03-01T00:00:00.000Z'], [dateT])).toBeNull();
    expect(call('T', [['a', null, '', 'b']])).toBe('a, b');
    expect(call('T', [[1, 2]])).toBeNull();
    expect(call('T', [null])).toBeNull();
  });

  it('ENCODE_URL_COMPONENT', () => {
    expect(call('ENCODE_URL_COMPONENT', ['Hello, Teable'])).toBe('Hello%2C%20Teable');
    expect(call('ENCODE_URL_COMPONENT', ['a/b?c=d&e'])).toBe('a%2Fb%3Fc%3Dd%26e');
    expect(() => call('ENCODE_URL_COMPONENT', ['\uD800'])).toThrow(FormulaEvalError);
    expect(call('ENCODE_URL_COMPONENT', [null])).toBeNull();
  });
});
