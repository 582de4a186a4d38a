import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFormula, type FieldTypes, FormulaError, type FormulaRow } from '#shared/formula/compile.ts';
import { MAX_EVAL_STEPS, type Typed, type Value } from '#shared/formula/formula-types.ts';
import { FORMULA_LIMITS, parseFormula } from '#shared/formula/parse.ts';
import { replaceFirst, unsupportedPattern } from '#shared/formula/patterns.ts';
import { EVAL_CTX } from './support.ts';

/**
 * Issue 27, items 1 and 2: patterns run in linear time, and a formula's length, nesting,
 * arguments and evaluation steps are bounded, each with a clear 400 (FormulaError) or, at
 * evaluation, an empty cell. Before the fix the catastrophic patterns below ran for hours and deep
 * nesting ended in a RangeError.
 */

const TITLE = 'fldTITLE000000000a';
const LIST = 'fldLIST0000000000a';
const table: Record<string, { t: Typed; v: Value }> = {
  [TITLE]: { t: { type: 'string', multiple: false }, v: `${'a'.repeat(40)}!` },
  [LIST]: { t: { type: 'number', multiple: true }, v: Array.from({ length: 60_000 }, (_, i) => i % 7) },
};
const fields: FieldTypes = { typeOf: (id) => table[id]?.t };
const row: FormulaRow = { value: (id) => table[id]?.v ?? null, dateText: (_id, iso) => iso };
const run = (expression: string) => compileFormula(expression, fields).run(row, EVAL_CTX);
const refused = (expression: string): string => {
  try {
    compileFormula(expression, fields);
  } catch (e) {
    expect(e).toBeInstanceOf(FormulaError);
    return (e as Error).message;
  }
  throw new Error(`compiled: ${expression.slice(0, 80)}`);
};

describe('regular expressions run in linear time (issue 27.1)', () => {
  it('a catastrophic pattern over 40 "a"s and "!" answers at once: no match, text unchanged', () => {
    expect(run(`REGEXP_REPLACE({${TITLE}}, "(a+)+$", "b")`)).toBe(`${'a'.repeat(40)}!`);
    expect(run(`REGEXP_REPLACE({${TITLE}}, "(a|aa)+$", "b")`)).toBe(`${'a'.repeat(40)}!`);
    expect(run(`REGEXP_REPLACE({${TITLE}}, "(a*)*b", "b")`)).toBe(`${'a'.repeat(40)}!`);
  });

  it('a pattern over a 200,000-character text matches', () => {
    expect(replaceFirst(`${'a'.repeat(200_000)}!`, '(a+)+!$', 'x')).toBe('x');
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', 'a(?=b)'],
    ['a negative lookahead', 'a(?!b)'],
    ['a lookbehind', '(?<=a)b'],
    ['a negative lookbehind', '(?<!a)b'],
  ])('%s written as a literal is a 400 at create that says so', (_, pattern) => {
    const message = refused(`REGEXP_REPLACE({${TITLE}}, "${pattern.replaceAll('\\', '\\\\')}", "x")`);
    expect(message).toMatch(/^REGEXP_REPLACE: the regular expression uses syntax this service does not run/);
    expect(message).toContain('backreferences and lookaround are not supported');
  });

  it('the same pattern coming from a field is an evaluation error: the cell is empty', () => {
    const withPattern: FormulaRow = { value: () => '(a)\\1', dateText: (_i, iso) => iso };
    const f = compileFormula(`REGEXP_REPLACE("aa", {${TITLE}}, "x")`, fields);
    expect(f.run(withPattern, EVAL_CTX)).toBeUndefined();
  });

  it('a pattern JavaScript itself refuses stays an evaluation error (computed.md 1.6), not a 400', () => {
    expect(unsupportedPattern('(')).toBeUndefined();
    expect(run(`REGEXP_REPLACE("abc", "(", "x")`)).toBeUndefined();
  });

  it('a literal pattern longer than 1,000 characters is a 400', () => {
    expect(refused(`REGEXP_REPLACE("a", "${'a'.repeat(1001)}", "x")`)).toContain(
      'is longer than 1000 characters',
    );
  });

  it("replacements follow JavaScript: $1, $&, $$, $`, $', $<name>, unknown groups kept", () => {
    expect(replaceFirst('John Smith', '(\\w+) (\\w+)', '$2 $1')).toBe('Smith John');
    expect(replaceFirst('abc', 'b', '[$&]')).toBe('a[b]c');
    expect(replaceFirst('abc', 'b', '$$')).toBe('a$c');
    expect(replaceFirst('abc', 'b', "$`|$'")).toBe('aa|cc');
    expect(replaceFirst('abc', '(?<mid>b)', '<$<mid>>')).toBe('a<b>c');
    expect(replaceFirst('abc', 'b', '$3')).toBe('a$3c');
  });

  it('agrees with JavaScript String.replace on generated texts, patterns and replacements', () => {
    const patterns = ['a', 'b+', '(a)(b)?', '[ab]c', '^a', 'c$', '\\d', '(x|ab)', 'a*', '.', '\\$'];
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', '$', ' '), maxLength: 12 }),
        fc.constantFrom(...patterns),
        fc.string({ unit: fc.constantFrom('x', '$', '1', '2', '&', '`', "'"), maxLength: 6 }),
        (text, pattern, replacement) => {
          expect(replaceFirst(text, pattern, replacement)).toBe(
            text.replace(new RegExp(pattern), replacement),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('DATETIME_PARSE with a format of many month names answers at once (no backtracking)', () => {
    const format = 'MMMM'.repeat(30);
    expect(run(`DATETIME_PARSE("${'a'.repeat(60)}!", "${format}")`)).toBeUndefined();
    expect(run('DATETIME_PARSE("march 5 2024", "MMMM D YYYY")')).toBe('2024-03-05T00:00:00.000Z');
  });
});

describe('bounded formula work (issue 27.2)', () => {
  it(`an expression of ${FORMULA_LIMITS.length} characters is taken; one more is a 400`, () => {
    const at = `"${'x'.repeat(FORMULA_LIMITS.length - 2)}"`;
    expect(run(at)).toBe('x'.repeat(FORMULA_LIMITS.length - 2));
    expect(refused(`${at} `)).toBe(
      `expression parse error: the expression is longer than ${FORMULA_LIMITS.length} characters at position ${FORMULA_LIMITS.length}`,
    );
  });

  it('a 5 MB literal is refused without being read', () => {
    expect(refused(`"${'x'.repeat(5_000_000)}"`)).toContain('longer than 10000 characters');
  });

  it.each([
    ['parentheses', (n: number) => `${'('.repeat(n)}1${')'.repeat(n)}`],
    ['calls', (n: number) => `${'ABS('.repeat(n)}1${')'.repeat(n)}`],
    ['negations', (n: number) => `${'-'.repeat(n)}1`],
    ['an operator chain', (n: number) => Array.from({ length: n + 1 }, () => '1').join('+')],
    ['a right-nested chain', (n: number) => `${'1+('.repeat(n - 1)}1${')'.repeat(n - 1)}`],
  ])(
    `%s nest ${FORMULA_LIMITS.depth} levels at most: the limit parses, one more is a 400 naming the limit`,
    (_, build) => {
      expect(() => parseFormula(build(FORMULA_LIMITS.depth - 1))).not.toThrow();
      expect(refused(build(FORMULA_LIMITS.depth + 1))).toMatch(/nests more than 100 levels deep/);
    },
  );

  it('3,850 nested parentheses (a RangeError before) and 1,900 nested calls are 400s, never a RangeError', () => {
    expect(refused(`${'('.repeat(3850)}1${')'.repeat(3850)}`)).toMatch(
      /nests more than 100 levels deep at position 100/,
    );
    expect(refused(`${'ABS('.repeat(1900)}1${')'.repeat(1900)}`)).toMatch(/nests more than 100 levels/);
  });

  it(`a call takes ${FORMULA_LIMITS.args} arguments; one more is a 400`, () => {
    const args = (n: number) => Array.from({ length: n }, () => '1').join(',');
    expect(run(`SUM(${args(FORMULA_LIMITS.args)})`)).toBe(FORMULA_LIMITS.args);
    expect(refused(`ARRAY_UNIQUE(${args(FORMULA_LIMITS.args + 1)})`)).toMatch(
      /^expression parse error: ARRAY_UNIQUE is given more than 256 arguments at position \d+$/,
    );
  });

  it(`a record's evaluation stops after ${MAX_EVAL_STEPS} steps: the cell is empty, the next record starts afresh`, () => {
    // 60,000 items, prepared twice (ARRAY_UNIQUE, then ARRAY_COMPACT over its items) fit no budget twice
    expect(run(`COUNTALL({${LIST}})`)).toBe(60_000);
    expect(run(`COUNTALL(ARRAY_COMPACT({${LIST}})) + COUNTALL(ARRAY_COMPACT({${LIST}}))`)).toBeUndefined();
    expect(run(`COUNTALL(ARRAY_UNIQUE({${LIST}}))`)).toBe(7);
  });

  it('an exhausted budget is not caught by IS_ERROR into more work', () => {
    const f = `IF(IS_ERROR(COUNTALL(ARRAY_COMPACT({${LIST}})) + COUNTALL(ARRAY_COMPACT({${LIST}}))), COUNTALL(ARRAY_COMPACT({${LIST}})), 1)`;
    expect(run(f)).toBeUndefined();
  });
});
