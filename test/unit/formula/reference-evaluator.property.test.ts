/**
 * Property tests of `compileFormula(...).run`: random well-formed expressions (arithmetic, text
 * joins, comparisons, logic, a few functions, number/text/boolean field references, some empty)
 * are built as a tree, printed as text, and their stored result compared with a small reference
 * evaluator written here from computed.md 1.1–1.6 and 2 (independent of shared/formula). One
 * property prints with random whitespace, comments and redundant parentheses; the other prints
 * only the parentheses the 1.2 precedence table needs, so the parser's precedence is exercised.
 *
 * Readings of the contract where it is silent (applied in the reference, see `Ambiguous`):
 * - the arithmetic operators convert their operands as arguments are converted (1.4);
 * - a scalar function of an empty argument is empty (LEN, UPPER, ROUND, ABS, MOD's x);
 * - MAX/MIN's "1st arg's type" is that argument's type once converted (number here);
 * - ordering compares are generated only between two numbers or two texts, empty text as `""`;
 * - cases the contract leaves open (`-` of an empty number, `""` loosely equal to a number or a
 *   boolean) make the reference give up on that expression instead of guessing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFormula, type FieldTypes, type FormulaRow } from '#shared/formula/compile.ts';
import type { EvalContext } from '#shared/formula/formula-types.ts';

// ---- the expression tree ---------------------------------------------------------------------

type Ty = 'number' | 'string' | 'boolean';
type BinOp = '*' | '/' | '%' | '+' | '-' | '>' | '<' | '>=' | '<=' | '=' | '!=' | '&&' | '||' | '&';
type Fn =
  | 'IF'
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'CONCATENATE'
  | 'LEN'
  | 'UPPER'
  | 'ROUND'
  | 'ABS'
  | 'SUM'
  | 'MAX'
  | 'MIN'
  | 'MOD'
  | 'BLANK';

type Ast =
  | { k: 'num'; v: number; text: string }
  | { k: 'str'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'field'; id: string }
  | { k: 'neg'; a: Ast }
  | { k: 'bin'; op: BinOp; l: Ast; r: Ast }
  | { k: 'call'; fn: Fn; args: Ast[] };

/** Precedence levels of 1.2 (1 binds tightest); every binary operator is left-associative. */
const LEVEL: Record<BinOp, number> = {
  '*': 2,
  '/': 2,
  '%': 2,
  '+': 3,
  '-': 3,
  '>': 4,
  '<': 4,
  '>=': 4,
  '<=': 4,
  '=': 5,
  '!=': 5,
  '&&': 6,
  '||': 7,
  '&': 8,
};

// ---- the table -------------------------------------------------------------------------------

const fid = (name: string) => `fld${name.padEnd(16, '0')}`;
const FIELDS: Record<string, Ty> = {
  [fid('NumA')]: 'number',
  [fid('NumB')]: 'number',
  [fid('TextA')]: 'string',
  [fid('TextB')]: 'string',
  [fid('Check')]: 'boolean',
};
const FIELD_IDS = Object.keys(FIELDS);
const fieldsOf = (ty: Ty) => FIELD_IDS.filter((id) => FIELDS[id] === ty);
const fieldTypes: FieldTypes = {
  typeOf: (id) => (FIELDS[id] ? { type: FIELDS[id], multiple: false } : undefined),
};
type Cell = number | string | boolean | null;
type Record_ = Record<string, Cell>;
const ctx: EvalContext = {
  timeZone: 'UTC',
  now: new Date('2024-05-01T12:00:00.000Z'),
  record: { id: 'recAAAAAAAAAAAAAAAA', autoNumber: 1, createdTime: '', lastModifiedTime: '' },
};

// ---- the reference evaluator (from the contract text) ----------------------------------------

/** The contract leaves this case open: the property skips the expression. */
class Ambiguous extends Error {}

type V = number | string | boolean | null;

/** Static type (3.1) plus whether it is `BLANK()` (ignored by IF's inference). */
interface RefType {
  ty: Ty;
  blank?: boolean;
}

const refType = (a: Ast): RefType => {
  switch (a.k) {
    case 'num':
      return { ty: 'number' };
    case 'str':
      return { ty: 'string' };
    case 'bool':
      return { ty: 'boolean' };
    case 'field':
      return { ty: FIELDS[a.id] as Ty };
    case 'neg':
      return { ty: 'number' };
    case 'bin': {
      if (['*', '/', '%', '-'].includes(a.op)) return { ty: 'number' };
      if (a.op === '+')
        return { ty: refType(a.l).ty === 'number' && refType(a.r).ty === 'number' ? 'number' : 'string' };
      if (a.op === '&') return { ty: 'string' };
      return { ty: 'boolean' };
    }
    case 'call':
      switch (a.fn) {
        case 'IF': {
          const x = refType(a.args[1] as Ast);
          const y = refType(a.args[2] as Ast);
          if (x.blank && y.blank) return { ty: 'string', blank: true };
          if (x.blank) return { ty: y.ty };
          if (y.blank) return { ty: x.ty };
          return { ty: x.ty === y.ty ? x.ty : 'string' };
        }
        case 'BLANK':
          return { ty: 'string', blank: true };
        case 'AND':
        case 'OR':
        case 'NOT':
          return { ty: 'boolean' };
        case 'CONCATENATE':
        case 'UPPER':
          return { ty: 'string' };
        default:
          return { ty: 'number' }; // LEN, ROUND, ABS, SUM, MAX, MIN (of numbers), MOD
      }
  }
};

/** Truthy (1.2): non-empty text, a non-zero number, true. */
const truthy = (v: V): boolean =>
  typeof v === 'number' ? v !== 0 && !Number.isNaN(v) : v === true || (typeof v === 'string' && v !== '');

/** Text of a value (1.2 `&`, 1.4 to text): numbers in JS form, booleans true/false, empty "". */
const asText = (v: V): string => (v === null ? '' : String(v));

/** 1.4 to number: numeric text → number, "" → 0, other text → empty; booleans 1/0. */
const asNumber = (v: V): number | null => {
  if (v === null || typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const t = v.trim();
  if (t === '') return 0;
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : null;
};

/** Loose equality (1.2 level 5), JS-style, with empty equal only to empty. */
const looseEqual = (a: V, b: V): boolean => {
  if (a === null || b === null) return a === null && b === null;
  if (typeof a === typeof b) return a === b;
  const numberOf = (v: number | string | boolean): number => {
    if (typeof v !== 'string') return Number(v);
    if (v.trim() === '') throw new Ambiguous('"" loosely compared with a number or boolean');
    return asNumber(v) ?? Number.NaN;
  };
  return numberOf(a) === numberOf(b);
};

/** `n · 10^by` on the decimal text of n. */
const decimalShift = (n: number, by: number): number => {
  const [mantissa, exponent = '0'] = String(n).split('e');
  return Number(`${mantissa}e${Number(exponent) + by}`);
};

/** ROUND(x, p): round(x·10^p)/10^p, halves toward +∞, p floored. */
const roundRef = (x: number, p: number): number => {
  const places = Math.floor(p);
  return decimalShift(Math.round(decimalShift(x, places)), -places);
};

const evaluate = (a: Ast, rec: Record_): V => {
  const ev = (x: Ast) => evaluate(x, rec);
  switch (a.k) {
    case 'num':
    case 'str':
    case 'bool':
      return a.v;
    case 'field':
      return rec[a.id] ?? null;
    case 'neg': {
      if (refType(a.a).ty !== 'number') return null; // `-` of a non-number is empty
      const v = ev(a.a) as number | null;
      if (v === null) throw new Ambiguous('- of an empty number');
      return v === 0 ? 0 : -v;
    }
    case 'bin': {
      const l = ev(a.l);
      const r = ev(a.r);
      switch (a.op) {
        case '*':
          return (asNumber(l) ?? 0) * (asNumber(r) ?? 0);
        case '/':
        case '%': {
          const d = asNumber(r);
          if (d === null || d === 0) return null;
          return a.op === '/' ? (asNumber(l) ?? 0) / d : (asNumber(l) ?? 0) % d;
        }
        case '-':
          return (asNumber(l) ?? 0) - (asNumber(r) ?? 0);
        case '+':
          return refType(a).ty === 'number'
            ? ((l as number) ?? 0) + ((r as number) ?? 0)
            : asText(l) + asText(r);
        case '>':
        case '<':
        case '>=':
        case '<=': {
          const numeric = refType(a.l).ty === 'number';
          const x = numeric ? ((l as number | null) ?? 0) : asText(l);
          const y = numeric ? ((r as number | null) ?? 0) : asText(r);
          if (a.op === '>') return x > y;
          if (a.op === '<') return x < y;
          if (a.op === '>=') return x >= y;
          return x <= y;
        }
        case '=':
          return looseEqual(l, r);
        case '!=':
          return !looseEqual(l, r);
        case '&&':
          return truthy(l) && truthy(r);
        case '||':
          return truthy(l) || truthy(r);
        case '&':
          return asText(l) + asText(r);
      }
      throw new Error('unreachable');
    }
    case 'call': {
      const args = a.args;
      const nums = () => args.map((x) => asNumber(ev(x)));
      switch (a.fn) {
        case 'IF': {
          const v = truthy(ev(args[0] as Ast)) ? ev(args[1] as Ast) : ev(args[2] as Ast);
          // a mixed IF is text: IF(c, 1, "a") gives "1" (only generated at the root)
          return refType(a).ty === 'string' && v !== null ? asText(v) : v;
        }
        case 'BLANK':
          return null;
        case 'AND':
          return args.every((x) => truthy(ev(x)));
        case 'OR':
          return args.some((x) => truthy(ev(x)));
        case 'NOT':
          return !truthy(ev(args[0] as Ast));
        case 'CONCATENATE':
          return args.map((x) => asText(ev(x))).join('');
        case 'LEN': {
          const v = ev(args[0] as Ast);
          return v === null ? null : asText(v).length;
        }
        case 'UPPER': {
          const v = ev(args[0] as Ast);
          return v === null ? null : asText(v).toUpperCase();
        }
        case 'ROUND': {
          const [x, p] = nums();
          return x === null || x === undefined ? null : roundRef(x, p ?? 0);
        }
        case 'ABS': {
          const [x] = nums();
          return x === null || x === undefined ? null : Math.abs(x);
        }
        case 'SUM':
          return nums().reduce<number>((s, n) => s + (n ?? 0), 0);
        case 'MAX':
        case 'MIN': {
          const present = nums().filter((n): n is number => n !== null);
          if (present.length === 0) return null;
          return a.fn === 'MAX' ? Math.max(...present) : Math.min(...present);
        }
        case 'MOD': {
          const [x, d] = nums();
          if (x === null || x === undefined) return null;
          const divisor = d || 1;
          return Math.sign(divisor) * (Math.abs(x) % Math.abs(divisor));
        }
      }
    }
  }
};

/** The stored value (1.6): empty for false, NaN, ±Infinity, ""; in the inferred type. */
const stored = (v: V, ty: Ty): string | number | boolean | undefined => {
  if (v === null) return undefined;
  if (ty === 'boolean') return truthy(v) ? true : undefined;
  if (ty === 'number') return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  const text = asText(v);
  return text === '' ? undefined : text;
};

// ---- the printer -----------------------------------------------------------------------------

/** A small seeded generator for printing choices. */
const prng = (seed: number) => {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const ESCAPE_OF: Record<string, string> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
};
const ESCAPE_LETTERS = new Set(['n', 'r', 't', 'b', 'f', 'v', '\\', "'", '"']);

const printText = (s: string, rnd: () => number): string => {
  const quote = rnd() < 0.5 ? '"' : "'";
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    const next = s[i + 1];
    if (c === '\\') {
      // other `\x` is kept as is: a lone backslash may stand for itself before a non-escape letter
      out +=
        next !== undefined && /[a-z0-9]/i.test(next) && !ESCAPE_LETTERS.has(next) && rnd() < 0.5
          ? '\\'
          : '\\\\';
    } else if (c === quote) out += `\\${c}`;
    else if ((c === '"' || c === "'") && rnd() < 0.3) out += `\\${c}`;
    else if (ESCAPE_OF[c] && (c !== '\n' || rnd() < 0.7)) out += ESCAPE_OF[c];
    else out += c; // a raw newline is allowed: texts may span lines
  }
  return out + quote;
};

const randomCase = (s: string, rnd: () => number) =>
  [...s].map((c) => (rnd() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');

/** Whitespace/comments between tokens: nothing, or blanks starting with a space. */
const gap = (rnd: () => number, busy: boolean): string => {
  if (!busy) return rnd() < 0.5 ? '' : ' ';
  const r = rnd();
  if (r < 0.35) return '';
  if (r < 0.65) return ' ';
  if (r < 0.75) return ' \t ';
  if (r < 0.85) return ' \n  ';
  if (r < 0.93) return ' /* note */ ';
  return ' // line comment\n';
};

/** Prints `a`; `redundant` is the chance of parentheses that precedence does not need. */
const print = (a: Ast, rnd: () => number, redundant: number, busy: boolean): string => {
  const g = () => gap(rnd, busy);
  const wrap = (s: string) => `(${g()}${s}${g()})`;
  /** The text of `x` and whether it is wrapped in parentheses as a whole. */
  const go = (x: Ast): { s: string; wrapped: boolean } => {
    const core = bare(x);
    return rnd() < redundant ? { s: wrap(core), wrapped: true } : { s: core, wrapped: false };
  };
  const bare = (x: Ast): string => {
    switch (x.k) {
      case 'num':
        return x.text;
      case 'str':
        return printText(x.v, rnd);
      case 'bool':
        return randomCase(x.v ? 'true' : 'false', rnd);
      case 'field':
        return `{${x.id}}`;
      case 'neg': {
        const inner = go(x.a);
        return `-${g()}${x.a.k === 'bin' && !inner.wrapped ? wrap(inner.s) : inner.s}`;
      }
      case 'bin': {
        const level = LEVEL[x.op];
        const side = (child: Ast, right: boolean) => {
          const { s, wrapped } = go(child);
          if (child.k !== 'bin' || wrapped) return s;
          const childLevel = LEVEL[child.op];
          return childLevel > level || (right && childLevel === level) ? wrap(s) : s;
        };
        return `${side(x.l, false)}${g()}${x.op}${g()}${side(x.r, true)}`;
      }
      case 'call':
        return `${randomCase(x.fn, rnd)}(${g()}${x.args.map((y) => go(y).s).join(`${g()},${g()}`)}${g()})`;
    }
  };
  return `${g()}${go(a).s}${g()}`;
};

// ---- generators ------------------------------------------------------------------------------

const TEXT_CHARS = [
  'a',
  'B',
  'z',
  '0',
  '1',
  '7',
  '.',
  '-',
  ' ',
  'ß',
  'é',
  '😀',
  '\\',
  'q',
  '"',
  "'",
  '\n',
  '\t',
];
const textArb = (minLength: number) =>
  fc.array(fc.constantFrom(...TEXT_CHARS), { minLength, maxLength: 6 }).map((cs) => cs.join(''));

const numLit: fc.Arbitrary<Ast> = fc.oneof(
  fc.integer({ min: 0, max: 100 }).map((v) => ({ k: 'num' as const, v, text: String(v) })),
  fc
    .integer({ min: 0, max: 2000 })
    .map((n) => ({ k: 'num' as const, v: n / 100, text: (n / 100).toFixed(2) })),
  fc.integer({ min: 1, max: 40 }).map((n) => ({ k: 'num' as const, v: n * 10, text: `${n}e1` })),
  fc.integer({ min: 1, max: 400 }).map((n) => ({ k: 'num' as const, v: n / 10, text: `${n}E-1` })),
);
const strLit: fc.Arbitrary<Ast> = textArb(0).map((v) => ({ k: 'str' as const, v }));
const boolLit: fc.Arbitrary<Ast> = fc.boolean().map((v) => ({ k: 'bool' as const, v }));
const fieldOf = (ty: Ty): fc.Arbitrary<Ast> =>
  fc.constantFrom(...fieldsOf(ty)).map((id) => ({ k: 'field' as const, id }));
const BLANK: Ast = { k: 'call', fn: 'BLANK', args: [] };

const bin = (op: BinOp, l: Ast, r: Ast): Ast => ({ k: 'bin', op, l, r });
const call = (fn: Fn, ...args: Ast[]): Ast => ({ k: 'call', fn, args });

const TYPES: Ty[] = ['number', 'string', 'boolean'];
const cache = new Map<string, fc.Arbitrary<Ast>>();

/** An expression of static type `ty` at most `depth` deep. */
const expr = (ty: Ty, depth: number): fc.Arbitrary<Ast> => {
  const key = `${ty}/${depth}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const leaves: fc.Arbitrary<Ast>[] =
    ty === 'number'
      ? [numLit, fieldOf('number')]
      : ty === 'string'
        ? [strLit, fieldOf('string')]
        : [boolLit, fieldOf('boolean')];
  let arb: fc.Arbitrary<Ast>;
  if (depth <= 0) arb = fc.oneof(...leaves);
  else {
    const sub = (t: Ty) => expr(t, depth - 1);
    const anySub = fc.oneof(sub('number'), sub('string'), sub('boolean'));
    const same = sub(ty);
    const ifArb = fc
      .tuple(anySub, same, same, fc.integer({ min: 0, max: 9 }))
      .map(([c, x, y, b]) => call('IF', c, b === 0 ? BLANK : x, b === 1 ? BLANK : y));
    const byType: Record<Ty, fc.Arbitrary<Ast>[]> = {
      number: [
        fc
          .tuple(fc.constantFrom<BinOp>('*', '/', '%', '-'), anySub, anySub)
          .map(([op, l, r]) => bin(op, l, r)),
        fc.tuple(sub('number'), sub('number')).map(([l, r]) => bin('+', l, r)),
        sub('number').map((x) => ({ k: 'neg' as const, a: x })),
        anySub.map((x) => ({ k: 'neg' as const, a: x })),
        anySub.map((x) => call('LEN', x)),
        fc
          .tuple(anySub, fc.option(fc.constantFrom(-2, -1, 0, 1, 2, 3, 1.8, -1.5), { nil: undefined }))
          .map(([x, p]) =>
            p === undefined
              ? call('ROUND', x)
              : call(
                  'ROUND',
                  x,
                  p < 0
                    ? { k: 'neg', a: { k: 'num', v: -p, text: String(-p) } }
                    : { k: 'num', v: p, text: String(p) },
                ),
          ),
        anySub.map((x) => call('ABS', x)),
        fc
          .tuple(fc.constantFrom<Fn>('SUM', 'MAX', 'MIN'), fc.array(anySub, { minLength: 1, maxLength: 3 }))
          .map(([fn, xs]) => call(fn, ...xs)),
        fc.tuple(anySub, anySub).map(([x, d]) => call('MOD', x, d)),
        ifArb,
      ],
      string: [
        fc.tuple(anySub, anySub).map(([l, r]) => bin('&', l, r)),
        fc
          .tuple(sub('string'), anySub, fc.boolean())
          .map(([t, o, flip]) => (flip ? bin('+', o, t) : bin('+', t, o))),
        fc.array(anySub, { minLength: 1, maxLength: 3 }).map((xs) => call('CONCATENATE', ...xs)),
        anySub.map((x) => call('UPPER', x)),
        ifArb,
      ],
      boolean: [
        fc
          .tuple(fc.constantFrom<BinOp>('>', '<', '>=', '<='), fc.constantFrom<Ty>('number', 'string'))
          .chain(([op, t]) => fc.tuple(sub(t), sub(t)).map(([l, r]) => bin(op, l, r))),
        fc
          .tuple(fc.constantFrom<BinOp>('=', '!=', '&&', '||'), anySub, anySub)
          .map(([op, l, r]) => bin(op, l, r)),
        fc
          .tuple(fc.constantFrom<Fn>('AND', 'OR'), fc.array(anySub, { minLength: 1, maxLength: 3 }))
          .map(([fn, xs]) => call(fn, ...xs)),
        anySub.map((x) => call('NOT', x)),
        ifArb,
      ],
    };
    arb = fc.oneof(
      { arbitrary: fc.oneof(...leaves), weight: 1 },
      { arbitrary: fc.oneof(...byType[ty]), weight: 3 },
    );
  }
  cache.set(key, arb);
  return arb;
};

/** A root expression: any type, or a mixed IF (stored as text, 1.6). */
const rootArb: fc.Arbitrary<Ast> = fc.oneof(
  { arbitrary: fc.constantFrom(...TYPES).chain((t) => expr(t, 3)), weight: 9 },
  {
    arbitrary: fc
      .tuple(expr('boolean', 2), expr('number', 2), expr('string', 2), fc.boolean())
      .map(([c, n, s, flip]) => (flip ? call('IF', c, s, n) : call('IF', c, n, s))),
    weight: 1,
  },
);

const recordArb: fc.Arbitrary<Record_> = fc
  .tuple(
    fc.option(
      fc.oneof(
        fc.integer({ min: -50, max: 50 }),
        fc.integer({ min: -400, max: 400 }).map((n) => n / 4),
      ),
      { nil: null },
    ),
    fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }),
    fc.option(textArb(1), { nil: null }),
    fc.option(fc.constantFrom('12', ' 3.5 ', '-2', 'abc', 'Zz'), { nil: null }),
    fc.option(fc.constant(true), { nil: null }),
  )
  .map(([a, b, c, d, e]) => ({
    [fid('NumA')]: a,
    [fid('NumB')]: b,
    [fid('TextA')]: c,
    [fid('TextB')]: d,
    [fid('Check')]: e,
  }));

// ---- the properties --------------------------------------------------------------------------

const rowOf = (rec: Record_): FormulaRow => ({
  value: (id) => rec[id] ?? null,
  dateText: (_id, iso) => iso,
});

/** Compares numbers with a small relative tolerance (and 0 with -0), the rest exactly. */
const same = (actual: unknown, expected: unknown): boolean => {
  if (typeof actual === 'number' && typeof expected === 'number')
    return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  return Object.is(actual, expected);
};

const check = (ast: Ast, rec: Record_, expression: string, skipped: { n: number }) => {
  let expected: string | number | boolean | undefined;
  try {
    expected = stored(evaluate(ast, rec), refType(ast).ty);
  } catch (e) {
    if (e instanceof Ambiguous) {
      skipped.n++;
      return;
    }
    throw e;
  }
  const compiled = compileFormula(expression, fieldTypes);
  expect(compiled.type).toEqual({ type: refType(ast).ty, multiple: false });
  const actual = compiled.run(rowOf(rec), ctx);
  if (!same(actual, expected))
    expect({ expression, record: rec, actual }).toEqual({ expression, record: rec, actual: expected });
};

const RUNS = 400;

describe('compileFormula against a reference evaluator (computed.md 1, 2, 1.6)', () => {
  it('agrees on random expressions printed with random blanks, comments and parentheses', () => {
    const skipped = { n: 0 };
    fc.assert(
      fc.property(rootArb, recordArb, fc.integer(), (ast, rec, seed) => {
        check(ast, rec, print(ast, prng(seed), 0.2, true), skipped);
      }),
      { numRuns: RUNS },
    );
    expect(skipped.n).toBeLessThan(RUNS / 3);
  });

  it('agrees on expressions printed with only the parentheses 1.2 precedence needs', () => {
    const skipped = { n: 0 };
    fc.assert(
      fc.property(rootArb, recordArb, fc.integer(), (ast, rec, seed) => {
        check(ast, rec, print(ast, prng(seed), 0, false), skipped);
      }),
      { numRuns: RUNS },
    );
    expect(skipped.n).toBeLessThan(RUNS / 3);
  });

  it('the minimal printer drops parentheses precedence makes redundant', () => {
    const n = (v: number): Ast => ({ k: 'num', v, text: String(v) });
    const rnd = prng(1);
    const flat = (a: Ast) => print(a, rnd, 0, false).replace(/ /g, '');
    expect(flat(bin('+', n(1), bin('*', n(2), n(3))))).toBe('1+2*3');
    expect(flat(bin('*', bin('+', n(1), n(2)), n(3)))).toBe('(1+2)*3');
    expect(flat(bin('-', n(1), bin('-', n(2), n(3))))).toBe('1-(2-3)');
    expect(flat(bin('-', bin('-', n(1), n(2)), n(3)))).toBe('1-2-3');
    expect(flat(bin('&', { k: 'str', v: 'a' }, bin('+', n(1), n(2)))).replace(/'/g, '"')).toBe('"a"&1+2');
    expect(flat(bin('||', bin('&', n(1), n(2)), n(3)))).toBe('(1&2)||3');
  });
});
