/**
 * The numeric functions of computed.md section 2: sums and extremes over lists, rounding at a
 * number of decimals (done on exponent-shifted decimal texts, so `ROUND(2.675, 2)` is 2.68 as a
 * user expects, not 2.67 as binary floating point would have it), and the scalar maths. Empties
 * count as 0 in SUM, are skipped by AVERAGE, MAX and MIN, and make the scalar functions empty.
 */
import { itemsOf } from '../convert.ts';
import {
  type ArgSpec,
  type FunctionSpec,
  NUMBER,
  NUMBERS,
  single,
  TEXT,
  type Typed,
  type Value,
} from '../formula-types.ts';

const number = (): Typed => single('number');

/** A prepared scalar argument as a number, or null when empty (or absent). */
const num = (value: Value | undefined): number | null =>
  typeof value === 'number' && !Number.isNaN(value) ? value : null;

/** `-0` reads as 0 (stored and rendered as `0`). */
const unsigned = (n: number): number => (n === 0 ? 0 : n);

/**
 * `n · 10^by` computed on the decimal text of `n` (`2.675` shifted by 2 is exactly 267.5), so
 * no binary rounding error creeps in before the rounding step.
 */
const shift = (n: number, by: number): number => {
  const [mantissa, exponent] = String(n).toLowerCase().split('e');
  return Number(`${mantissa}e${Number(exponent ?? 0) + by}`);
};

/** `x` rounded by `step` (Math.round, ceil, floor, trunc) at `places` decimals (floored). */
const roundAt = (x: number, places: number | null, step: (n: number) => number): number => {
  if (!Number.isFinite(x)) return x;
  const p = Math.floor(places ?? 0);
  if (!Number.isFinite(p)) return Number.NaN;
  // Fast path: at 0..15 decimals, when x·10^p is clearly not at a boundary of the step (an
  // integer, or a half for Math.round), binary error cannot change the answer, and dividing the
  // integer by 10^p gives the same double as the decimal text would.
  if (p >= 0 && p <= 15) {
    const factor = 10 ** p;
    const m = x * factor;
    const frac = m - Math.floor(m);
    if (Math.abs(m) < 2 ** 52 && frac > 1e-6 && frac < 1 - 1e-6 && Math.abs(frac - 0.5) > 1e-6)
      return unsigned(step(m) / factor);
  }
  const shifted = shift(x, p);
  if (!Number.isFinite(shifted)) return x; // more decimals than a double holds: nothing to round
  return unsigned(shift(step(shifted), -p));
};

/** Away from zero. */
const up = (n: number): number => (n > 0 ? Math.ceil(n) : Math.floor(n));

/** A scalar function of one number: empty in, empty out. */
const unary = (name: string, fn: (x: number) => number | null): FunctionSpec => ({
  name,
  minArgs: 1,
  exact: true,
  args: [NUMBER],
  result: number,
  evaluate: (args) => {
    const x = num(args[0]);
    return x === null ? null : fn(x);
  },
});

/** A rounding function `NAME(x, [places])`. */
const rounding = (name: string, step: (n: number) => number): FunctionSpec => ({
  name,
  minArgs: 1,
  args: [NUMBER],
  result: number,
  evaluate: (args) => {
    const x = num(args[0]);
    return x === null ? null : roundAt(x, num(args[1]), step);
  },
});

/** The non-empty numbers of list arguments. */
const numbersOf = (args: readonly Value[]): number[] =>
  args.flatMap((a) => itemsOf(a)).filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));

/** MAX and MIN: number or dateTime items, compared by value / instant; result in the 1st arg's type. */
const extreme = (name: string, better: (a: number, b: number) => boolean): FunctionSpec => {
  const spec: ArgSpec = { accepts: ['number', 'dateTime'], arrays: 'items' };
  return {
    name,
    minArgs: 1,
    args: [spec],
    result: (types) => single(types[0]?.type === 'dateTime' ? 'dateTime' : 'number'),
    evaluate: (args, _ctx, types) => {
      let best: number | null = null;
      args.forEach((arg, i) => {
        const isDate = types[i]?.type === 'dateTime';
        for (const item of itemsOf(arg)) {
          if (item === null) continue;
          const key = isDate ? Date.parse(String(item)) : typeof item === 'number' ? item : Number.NaN;
          if (Number.isNaN(key)) continue;
          if (best === null || better(key, best)) best = key;
        }
      });
      if (best === null) return null;
      if (types[0]?.type !== 'dateTime') return best;
      const date = new Date(best);
      return Number.isNaN(date.getTime()) ? null : date.toISOString();
    },
  };
};

/** `log_base(x)`, exact when `x` is an integer power of the base (`LOG(1000)` is 3, not 2.999…). */
const log = (x: number, base: number): number => {
  if (base === 10) return Math.log10(x);
  if (base === 2) return Math.log2(x);
  const r = Math.log(x) / Math.log(base);
  const k = Math.round(r);
  return Math.abs(r - k) < 1e-9 && base ** k === x ? k : r;
};

export const NUMERIC_FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: 'SUM',
    minArgs: 1,
    args: [NUMBERS],
    result: number,
    evaluate: (args) => unsigned(numbersOf(args).reduce((sum, n) => sum + n, 0)),
  },
  {
    name: 'AVERAGE',
    minArgs: 1,
    args: [NUMBERS],
    result: number,
    evaluate: (args) => {
      const values = numbersOf(args);
      return values.length ? values.reduce((sum, n) => sum + n, 0) / values.length : null;
    },
  },
  extreme('MAX', (a, b) => a > b),
  extreme('MIN', (a, b) => a < b),
  rounding('ROUND', Math.round), // Math.round takes halves toward +∞: 2.5 → 3, -2.5 → -2
  rounding('ROUNDUP', up),
  rounding('ROUNDDOWN', Math.trunc),
  rounding('CEILING', Math.ceil),
  rounding('FLOOR', Math.floor),
  unary('EVEN', (x) => {
    const r = up(x);
    return unsigned(r % 2 === 0 ? r : r + Math.sign(r));
  }),
  unary('ODD', (x) => {
    const r = up(x);
    return Math.abs(r % 2) === 1 ? r : r >= 0 ? r + 1 : r - 1;
  }),
  unary('INT', (x) => unsigned(Math.floor(x))),
  unary('ABS', Math.abs),
  unary('SQRT', (x) => (x < 0 ? null : Math.sqrt(x))),
  unary('EXP', Math.exp),
  {
    name: 'POWER',
    minArgs: 2,
    countMessage: 'POWER needs 2 params',
    args: [NUMBER],
    result: number,
    evaluate: (args) => {
      const x = num(args[0]);
      if (x === null) return null;
      return x ** (num(args[1]) ?? 1);
    },
  },
  {
    name: 'LOG',
    minArgs: 1,
    args: [NUMBER],
    result: number,
    evaluate: (args) => {
      const x = num(args[0]);
      if (x === null) return null;
      return log(x, num(args[1]) || 10);
    },
  },
  {
    name: 'MOD',
    minArgs: 2,
    args: [NUMBER],
    result: number,
    evaluate: (args) => {
      const x = num(args[0]);
      if (x === null) return null;
      const d = num(args[1]) || 1;
      return unsigned(Math.sign(d) * (Math.abs(x) % Math.abs(d)));
    },
  },
  {
    name: 'VALUE',
    minArgs: 1,
    exact: true,
    args: [TEXT],
    result: number,
    evaluate: (args) => {
      const text = args[0];
      if (text === null || text === undefined) return null;
      // keep digits and . + -, then a run of those signs becomes its last one
      const squeezed = String(text)
        .replace(/[^\d.+-]/g, '')
        .replace(/([+\-.])+/g, '$1');
      const n = Number.parseFloat(squeezed);
      return Number.isNaN(n) ? null : n;
    },
  },
];
