/**
 * The logical function specs of computed.md section 2: IF, SWITCH and IS_ERROR through their lazy
 * thunks, the others with prepared arguments; result types per 3.1.
 */
import { describe, expect, it } from 'vitest';
import { FormulaEvalError, type Typed, type Value } from '#shared/formula/formula-types.ts';
import { LOGICAL_FUNCTIONS } from '#shared/formula/functions/logical-functions.ts';
import { callerIn, EVAL_CTX, specIn } from './support.ts';

const ctx = EVAL_CTX;

const spec = specIn(LOGICAL_FUNCTIONS);

const t = (type: Typed['type'], multiple = false): Typed => ({ type, multiple });
const blank: Typed = { type: 'string', multiple: false, blank: true };
const bool = t('boolean');

const call = callerIn(LOGICAL_FUNCTIONS, (args) => args.map(() => bool));

/** A thunk that records that it ran. */
const thunks = (values: Value[]) => {
  const ran: number[] = [];
  const list = values.map((v, i) => () => {
    ran.push(i);
    return v;
  });
  return { ran, list };
};
const failing = () => {
  throw new FormulaEvalError('boom');
};

const lazy = (name: string, args: (() => Value)[]): Value => {
  const f = spec(name);
  if (!f.lazy) throw new Error(`${name} is not lazy`);
  return f.lazy(
    args,
    ctx,
    args.map(() => t('string')),
  );
};

describe('logical function specs', () => {
  it('lists every logical function of section 2 once', () => {
    expect(LOGICAL_FUNCTIONS.map((f) => f.name).sort()).toEqual(
      ['IF', 'SWITCH', 'AND', 'OR', 'XOR', 'NOT', 'BLANK', 'ERROR', 'IS_ERROR'].sort(),
    );
    expect(spec('IF')).toMatchObject({ minArgs: 3 });
    expect(spec('SWITCH')).toMatchObject({ minArgs: 2 });
    expect(spec('NOT')).toMatchObject({ minArgs: 1, exact: true });
    expect(spec('IS_ERROR')).toMatchObject({ minArgs: 1, exact: true });
    expect(spec('BLANK')).toMatchObject({ minArgs: 0, exact: true });
    expect(spec('ERROR')).toMatchObject({ minArgs: 0 });
    expect(spec('ERROR').exact).toBeFalsy();
    // lists are kept whole for truthiness and branch values
    expect(spec('IF').args[0]).toEqual({ accepts: 'any', arrays: 'items' });
    expect(spec('AND').args[0]).toEqual({ accepts: ['boolean'], arrays: 'items' });
  });

  it('IF evaluates only the chosen branch', () => {
    const yes = thunks([true, 'a', 'b']);
    expect(lazy('IF', yes.list)).toBe('a');
    expect(yes.ran).toEqual([0, 1]);
    const no = thunks([0, 'a', 'b']);
    expect(lazy('IF', no.list)).toBe('b');
    expect(no.ran).toEqual([0, 2]);
    expect(lazy('IF', [() => 1, () => 'ok', failing])).toBe('ok');
    expect(() => lazy('IF', [() => 1, failing, () => 'x'])).toThrow(FormulaEvalError);
  });

  it('IF tests truthiness: non-empty text and lists, non-zero numbers', () => {
    const pick = (cond: Value) => lazy('IF', [() => cond, () => 'yes', () => 'no']);
    expect(pick('x')).toBe('yes');
    expect(pick('')).toBe('no');
    expect(pick(null)).toBe('no');
    expect(pick(-1)).toBe('yes');
    expect(pick(0)).toBe('no');
    expect(pick(false)).toBe('no');
    expect(pick(['a'])).toBe('yes');
    expect(pick([])).toBe('no');
    expect(lazy('IF', [() => true, () => [1, 2], () => null])).toEqual([1, 2]);
  });

  it('IF infers its type from the branches (3.1)', () => {
    const result = spec('IF').result;
    expect(result([bool, t('number'), blank])).toEqual(t('number'));
    expect(result([bool, blank, t('dateTime', true)])).toEqual(t('dateTime', true));
    expect(result([bool, t('number'), t('number')])).toEqual(t('number'));
    expect(result([bool, t('number'), t('string')])).toEqual(t('string'));
    expect(result([bool, t('number', true), t('number')])).toEqual(t('number'));
    expect(result([bool, t('number', true), t('number', true)])).toEqual(t('number', true));
    expect(result([bool, t('boolean'), t('dateTime')])).toEqual(t('string'));
    expect(result([bool, blank, blank])).toMatchObject({ type: 'string', multiple: false });
  });

  it('SWITCH matches strictly; even count → last is default; no match → default or empty', () => {
    expect(lazy('SWITCH', thunks([1, 1, 'one', 2, 'two']).list)).toBe('one');
    expect(lazy('SWITCH', thunks([2, 1, 'one', 2, 'two']).list)).toBe('two');
    expect(lazy('SWITCH', thunks([3, 1, 'one', 2, 'two']).list)).toBeNull();
    expect(lazy('SWITCH', thunks([1, '1', 'one', 'other']).list)).toBe('other');
    expect(lazy('SWITCH', thunks(['1', '1', 'one', 'other']).list)).toBe('one');
    expect(lazy('SWITCH', thunks([null, null, 'none', 'other']).list)).toBe('none');
    expect(lazy('SWITCH', thunks(['x', 'default']).list)).toBe('default');
    expect(lazy('SWITCH', thunks([['a', 'b'], ['a', 'b'], 'list', 'other']).list)).toBe('list');
  });

  it('SWITCH evaluates only what it needs', () => {
    const run = thunks([2, 1, 'one', 2, 'two', 3, 'three', 'other']);
    expect(lazy('SWITCH', run.list)).toBe('two');
    expect(run.ran).toEqual([0, 1, 3, 4]);
    expect(lazy('SWITCH', [() => 1, () => 1, () => 'one', failing])).toBe('one');
    expect(lazy('SWITCH', [() => 1, () => 2, failing, () => 'd'])).toBe('d');
  });

  it('SWITCH infers the shared type of values and default, BLANK ignored (3.1)', () => {
    const result = spec('SWITCH').result;
    const any = t('string');
    expect(result([any, any, t('number'), any, t('number')])).toEqual(t('number'));
    expect(result([any, any, t('number'), any, t('number'), t('boolean')])).toEqual(t('string'));
    expect(result([any, any, t('number'), any, t('number'), blank])).toEqual(t('number'));
    expect(result([any, any, blank, t('dateTime')])).toEqual(t('dateTime'));
    expect(result([any, any, t('number', true), any, t('number', true)])).toEqual(t('number', true));
    expect(result([any, any, t('number', true), t('number')])).toEqual(t('number'));
    // the cases themselves do not count
    expect(result([any, t('boolean'), t('number'), t('dateTime'), t('number')])).toEqual(t('number'));
    expect(result([any, t('dateTime', true)])).toEqual(t('dateTime', true));
  });

  it('AND, OR, XOR by truthiness, lists by items', () => {
    expect(call('AND', [true, true])).toBe(true);
    expect(call('AND', [true, false])).toBe(false);
    expect(call('AND', [[true, true], true])).toBe(true);
    expect(call('AND', [[true, false]])).toBe(false);
    expect(call('AND', [[true, null]])).toBe(false);
    expect(call('AND', [[], true])).toBe(false); // an empty multi-valued argument
    expect(call('AND', [null])).toBe(false);
    expect(call('OR', [false, [false, true]])).toBe(true);
    expect(call('OR', [false, null, []])).toBe(false);
    expect(call('OR', [true])).toBe(true);
    expect(call('XOR', [true, false])).toBe(true);
    expect(call('XOR', [true, true])).toBe(false);
    expect(call('XOR', [[true, true, true]])).toBe(true);
    expect(call('XOR', [[true, true], false])).toBe(false);
    expect(call('XOR', [null])).toBe(false);
  });

  it('NOT negates; NOT(array) is false', () => {
    expect(call('NOT', [true])).toBe(false);
    expect(call('NOT', [false])).toBe(true);
    expect(call('NOT', [null])).toBe(true);
    expect(call('NOT', [[false]])).toBe(false);
    expect(call('NOT', [[]])).toBe(false);
  });

  it('BLANK is an empty typed text that inference ignores', () => {
    expect(call('BLANK', [])).toBeNull();
    expect(spec('BLANK').result([])).toEqual({ type: 'string', multiple: false, blank: true });
  });

  it('ERROR raises an evaluation error, with its message', () => {
    expect(() => call('ERROR', ['bad input'])).toThrow(new FormulaEvalError('bad input'));
    expect(() => call('ERROR', [])).toThrow(FormulaEvalError);
    expect(spec('ERROR').result([])).toEqual(t('string'));
  });

  it('IS_ERROR tells whether evaluating its argument raised an error', () => {
    expect(lazy('IS_ERROR', [failing])).toBe(true);
    expect(lazy('IS_ERROR', [() => 1])).toBe(false);
    expect(lazy('IS_ERROR', [() => null])).toBe(false);
    expect(
      lazy('IS_ERROR', [
        () => {
          throw new RangeError('invalid date');
        },
      ]),
    ).toBe(true);
    expect(spec('IS_ERROR').result([t('number')])).toEqual(bool);
  });

  it('AND, OR, XOR, NOT give booleans', () => {
    for (const name of ['AND', 'OR', 'XOR', 'NOT'])
      expect(spec(name).result([t('string', true)]), name).toEqual(bool);
  });
});
