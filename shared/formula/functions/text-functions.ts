/**
 * The text functions of computed.md section 2. Text arguments arrive as one text (a list is
 * joined with `, ` by the evaluator), numeric positions and counts as numbers. An empty text
 * makes most of them empty; `""` results are stored as empty (1.6).
 */
import { itemsOf, plainText } from '../convert.ts';
import {
  ANY_ITEMS,
  type ArgSpec,
  FormulaEvalError,
  type FunctionSpec,
  single,
  TEXTS,
  type Typed,
  type Value,
} from '../formula-types.ts';
import { replaceFirst } from '../patterns.ts';

/** A position or count of a text function: a number, lists joined first like the text arguments. */
const COUNT: ArgSpec = { accepts: ['number'], arrays: 'join' };

/** The longest text REPT builds; beyond it the call is an evaluation error, not a huge cell. */
export const MAX_TEXT_LENGTH = 100_000;

const text = (): Typed => single('string');
const number = (): Typed => single('number');

/** A prepared text argument, or null when empty (or absent). */
const str = (value: Value | undefined): string | null =>
  value === null || value === undefined ? null : plainText(value);

/** A prepared numeric argument as an integer (floored), or null when empty (or absent). */
const int = (value: Value | undefined): number | null =>
  typeof value === 'number' && !Number.isNaN(value) ? Math.floor(value) : null;

/** A function of one text: empty in, empty out. */
const unary = (name: string, fn: (t: string) => Value, type: () => Typed = text): FunctionSpec => ({
  name,
  minArgs: 1,
  exact: true,
  args: [TEXTS],
  result: type,
  evaluate: (args) => {
    const t = str(args[0]);
    return t === null ? null : fn(t);
  },
});

/** FIND and SEARCH: the 1-based position of `needle` in `haystack` from `start`, 0 when absent. */
const position = (args: readonly Value[]): number | null => {
  const needle = str(args[0]);
  const haystack = str(args[1]);
  if (!needle || !haystack) return null;
  const start = int(args[2]);
  return haystack.indexOf(needle, start !== null && start > 0 ? start - 1 : 0) + 1;
};

export const TEXT_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'CONCATENATE',
    minArgs: 1,
    args: [TEXTS],
    result: text,
    evaluate: (args) => args.map((a) => str(a) ?? '').join(''),
  },
  {
    name: 'FIND',
    minArgs: 1,
    args: [TEXTS, TEXTS, COUNT],
    result: number,
    evaluate: position,
  },
  {
    name: 'SEARCH',
    minArgs: 1,
    args: [TEXTS, TEXTS, COUNT],
    result: number,
    evaluate: (args) => position(args) || null,
  },
  {
    name: 'MID',
    minArgs: 3,
    args: [TEXTS, COUNT],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const start = int(args[1]) ?? 0; // 0-based
      const count = int(args[2]) ?? t.length;
      if (count <= 0) return '';
      return t.slice(Math.max(0, start), Math.max(0, start + count));
    },
  },
  {
    name: 'LEFT',
    minArgs: 1,
    args: [TEXTS, COUNT],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const n = int(args[1]) ?? 1;
      return n <= 0 ? '' : t.slice(0, n);
    },
  },
  {
    name: 'RIGHT',
    minArgs: 1,
    args: [TEXTS, COUNT],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const n = int(args[1]) ?? 1;
      return n <= 0 ? '' : t.slice(Math.max(0, t.length - n));
    },
  },
  {
    name: 'REPLACE',
    minArgs: 4,
    args: [TEXTS, COUNT, COUNT, TEXTS],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const start = Math.max(1, int(args[1]) ?? 1); // 1-based
      const count = Math.max(0, int(args[2]) ?? t.length);
      const replacement = str(args[3]) ?? '';
      if (start > t.length) return t + replacement;
      return t.slice(0, start - 1) + replacement + t.slice(start - 1 + count);
    },
  },
  {
    name: 'REGEXP_REPLACE',
    minArgs: 3,
    patternArg: 1,
    args: [TEXTS],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      // linear-time matching (patterns.ts): no pattern can make this take exponential time
      return replaceFirst(t, str(args[1]) ?? '', str(args[2]) ?? '');
    },
  },
  {
    name: 'SUBSTITUTE',
    minArgs: 3,
    args: [TEXTS, TEXTS, TEXTS, COUNT],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const old = str(args[1]) ?? '';
      if (old === '') return t;
      const replacement = str(args[2]) ?? '';
      const parts = t.split(old);
      const nth = int(args[3]);
      if (nth === null || nth <= 0) return parts.join(replacement);
      if (nth > parts.length - 1) return t;
      return `${parts.slice(0, nth).join(old)}${replacement}${parts.slice(nth).join(old)}`;
    },
  },
  unary('LOWER', (t) => t.toLowerCase()),
  unary('UPPER', (t) => t.toUpperCase()),
  unary('TRIM', (t) => t.trim()),
  unary('LEN', (t) => t.length, number),
  {
    name: 'REPT',
    minArgs: 2,
    args: [TEXTS, COUNT],
    result: text,
    evaluate: (args) => {
      const t = str(args[0]);
      if (t === null) return null;
      const n = int(args[1]) ?? 0;
      if (n < 0) throw new FormulaEvalError('REPT needs a count of 0 or more');
      if (n === 0) return null;
      if (t.length * n > MAX_TEXT_LENGTH) throw new FormulaEvalError('REPT result is too long');
      return t.repeat(n);
    },
  },
  {
    name: 'T',
    minArgs: 1,
    exact: true,
    args: [ANY_ITEMS],
    result: text,
    evaluate: (args, _ctx, types) => {
      if (types[0]?.type !== 'string') return null;
      const v = args[0] ?? null;
      if (!Array.isArray(v)) return typeof v === 'string' ? v : null;
      const items = itemsOf(v).filter((item): item is string => typeof item === 'string' && item !== '');
      return items.length ? items.join(', ') : null;
    },
  },
  unary('ENCODE_URL_COMPONENT', (t) => {
    try {
      return encodeURIComponent(t);
    } catch {
      throw new FormulaEvalError('text cannot be URL-encoded');
    }
  }),
];
