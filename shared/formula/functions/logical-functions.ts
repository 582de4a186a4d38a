/**
 * The logical functions of computed.md section 2. IF, SWITCH and IS_ERROR are lazy: they get
 * one thunk per argument and evaluate only what they need (IF only the chosen branch, so an
 * error in the other one does not empty the cell). Their result types follow 3.1: BLANK() is a
 * typed-text empty that inference ignores.
 */
import { truthy } from '../convert.ts';
import {
  ANY,
  ANY_ITEMS,
  type ArgSpec,
  FormulaEvalError,
  type FunctionSpec,
  single,
  TEXTS,
  type Typed,
  type Value,
} from '../formula-types.ts';

/** Booleans, lists passed whole with their items converted (AND, OR, XOR, NOT). */
const BOOLEANS: ArgSpec = { accepts: ['boolean'], arrays: 'items' };

const boolean = (): Typed => single('boolean');

/** The type shared by branch types (3.1): blanks ignored; equal types keep theirs, else string. */
const shared = (branches: readonly Typed[]): Typed => {
  const typed = branches.filter((b) => !b.blank);
  const first = typed[0];
  if (!first) return { type: 'string', multiple: false, blank: true };
  return {
    type: typed.every((b) => b.type === first.type) ? first.type : 'string',
    multiple: typed.every((b) => b.multiple),
  };
};

/** Strict equality (SWITCH): `1` is not `"1"`; lists item by item. */
const same = (a: Value, b: Value): boolean => {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item: Value, i: number) => same(item, b[i] ?? null));
  }
  return a === b;
};

/** The truthy items of a prepared boolean argument: a list's items, or the value itself. */
const truths = (value: Value): boolean[] =>
  Array.isArray(value) ? value.flat().map((item: Value) => truthy(item)) : [truthy(value)];

/** Whether evaluating a thunk raises an evaluation error. */
const raises = (thunk: () => Value): boolean => {
  try {
    thunk();
    return false;
  } catch (e) {
    // the evaluator empties the cell on any Error a function raises on a value, so IS_ERROR
    // sees the same: FormulaEvalError and, say, a RangeError alike
    if (e instanceof Error) return true;
    throw e;
  }
};

export const LOGICAL_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'IF',
    minArgs: 3,
    args: [ANY_ITEMS],
    result: (types) => shared([types[1], types[2]].filter((t): t is Typed => t !== undefined)),
    lazy: (args) => {
      const [cond, then, otherwise] = args;
      if (!cond || !then || !otherwise) return null;
      return truthy(cond()) ? then() : otherwise();
    },
  },
  {
    name: 'SWITCH',
    minArgs: 2,
    args: [ANY_ITEMS],
    result: (types) => {
      const values = types.filter(
        (_, i) => (i >= 2 && i % 2 === 0) || (types.length % 2 === 0 && i === types.length - 1),
      );
      return shared(values);
    },
    lazy: (args) => {
      const [expr] = args;
      if (!expr) return null;
      const value = expr();
      const hasDefault = args.length % 2 === 0;
      // (case, value) pairs fill [1, end); the default, when there is one, follows them
      const end = hasDefault ? args.length - 1 : args.length;
      for (let i = 1; i + 1 < end; i += 2) {
        const test = args[i] as () => Value;
        if (same(value, test())) return (args[i + 1] as () => Value)();
      }
      return hasDefault ? (args[args.length - 1] as () => Value)() : null;
    },
  },
  {
    name: 'AND',
    minArgs: 1,
    args: [BOOLEANS],
    result: boolean,
    // an empty list (or an empty multi-valued argument) is false
    evaluate: (args) => args.every((a) => truths(a).length > 0 && truths(a).every(Boolean)),
  },
  {
    name: 'OR',
    minArgs: 1,
    args: [BOOLEANS],
    result: boolean,
    evaluate: (args) => args.some((a) => truths(a).some(Boolean)),
  },
  {
    name: 'XOR',
    minArgs: 1,
    args: [BOOLEANS],
    result: boolean,
    evaluate: (args) => args.flatMap(truths).filter(Boolean).length % 2 === 1,
  },
  {
    name: 'NOT',
    minArgs: 1,
    exact: true,
    args: [BOOLEANS],
    result: boolean,
    evaluate: (args) => {
      const v = args[0] ?? null;
      return Array.isArray(v) ? false : !truthy(v);
    },
  },
  {
    name: 'BLANK',
    minArgs: 0,
    exact: true,
    args: [ANY],
    result: () => ({ type: 'string', multiple: false, blank: true }),
    evaluate: () => null,
  },
  {
    name: 'ERROR',
    minArgs: 0,
    args: [TEXTS],
    result: () => single('string'),
    evaluate: (args) => {
      const message = typeof args[0] === 'string' && args[0] !== '' ? args[0] : 'ERROR';
      throw new FormulaEvalError(message);
    },
  },
  {
    name: 'IS_ERROR',
    minArgs: 1,
    exact: true,
    args: [ANY_ITEMS],
    result: boolean,
    lazy: (args) => {
      const [v] = args;
      return v ? raises(v) : false;
    },
  },
];
