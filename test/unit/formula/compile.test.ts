import { describe, expect, it } from 'vitest';
import { compileFormula, type FieldTypes, FormulaError, type FormulaRow } from '#shared/formula/compile.ts';
import type { EvalContext, Typed, Value } from '#shared/formula/formula-types.ts';
import { parseFormula } from '#shared/formula/parse.ts';

/** A table of typed fields and one record's values, as the field layer would hand them over. */
const table: Record<string, { t: Typed; v: Value }> = {
  fldPRICE0000000000: { t: { type: 'number', multiple: false }, v: 10 },
  fldQTY00000000000a: { t: { type: 'number', multiple: false }, v: 3 },
  fldEMPTYNUM000000a: { t: { type: 'number', multiple: false }, v: null },
  fldNAME0000000000a: { t: { type: 'string', multiple: false }, v: 'Bolt' },
  fldDUE00000000000a: { t: { type: 'dateTime', multiple: false }, v: '2024-03-01T00:00:00.000Z' },
  fldTAGS0000000000a: { t: { type: 'string', multiple: true }, v: ['', 'A2'] },
  fldNUMS0000000000a: { t: { type: 'number', multiple: true }, v: [4, 5] },
  fldONE00000000000a: { t: { type: 'number', multiple: true }, v: [7] },
  fldDONE0000000000a: { t: { type: 'boolean', multiple: false }, v: true },
};
const fields: FieldTypes = { typeOf: (id) => table[id]?.t };
const row: FormulaRow = {
  value: (id) => table[id]?.v ?? null,
  dateText: (_id, iso) => iso.slice(0, 10),
};
const ctx: EvalContext = {
  timeZone: 'UTC',
  now: new Date('2024-05-01T12:00:00.000Z'),
  record: { id: 'recAAAAAAAAAAAAAAAA', autoNumber: 7, createdTime: '', lastModifiedTime: '' },
};
const run = (expression: string) => compileFormula(expression, fields).run(row, ctx);
const typeOf = (expression: string) => compileFormula(expression, fields).type;

describe('formula parser (computed.md 1.1)', () => {
  it('reads texts with both quotes, across lines, with escapes', () => {
    expect(run(`"a\\n" & 'b\\'c' & "x\\qy"`)).toBe("a\nb'cx\\qy");
    expect(run('"line\nbreak"')).toBe('line\nbreak');
  });

  it('reads integers, decimals and exponents; 1e3 is 1000', () => {
    expect(run('1e3')).toBe(1000);
    expect(run('2.5E1')).toBe(25);
    expect(run('0.25')).toBe(0.25);
  });

  it.each(['.5', '5.', '1 <> 2', '2 ^ 3', '!TRUE', '[1]', 'SUM (1)', 'Name', '(1', '1)', '', '1 +', '"open'])(
    'refuses %j with a positioned parse error',
    (expression) => {
      expect(() => compileFormula(expression, fields)).toThrow(
        /^expression parse error: .* at position \d+$/,
      );
    },
  );

  it('names the position of the fault', () => {
    expect(() => parseFormula('1 + * 2')).toThrow('at position 4');
  });

  it('skips comments and whitespace between tokens', () => {
    expect(run('1 /* one */ + // comment\n 2')).toBe(3);
  });

  it('reads TRUE and FALSE in any case', () => {
    expect(run('tRuE && TRUE')).toBe(true);
    expect(run('false || FALSE')).toBeUndefined();
  });
});

describe('operators (computed.md 1.2)', () => {
  it('follows precedence: 1 + 2 * 3 = 7, "a" & 1 + 2 = "a3", 1 < 2 = TRUE', () => {
    expect(run('1 + 2 * 3')).toBe(7);
    expect(run('"a" & 1 + 2')).toBe('a3');
    expect(run('1 < 2 = TRUE')).toBe(true);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('2 * (3 + 4)')).toBe(14);
  });

  it('counts empty as 0 in arithmetic; / and % by 0 or empty are empty', () => {
    expect(run('{fldEMPTYNUM000000a} + 2')).toBe(2);
    expect(run('{fldEMPTYNUM000000a} * 2')).toBe(0);
  });

  it('stores 0 from arithmetic', () => {
    expect(run('{fldEMPTYNUM000000a} * 2 + 0')).toBe(0);
  });

  it('divides and takes the remainder with the dividend sign', () => {
    expect(run('8 % 3')).toBe(2);
    expect(run('-8 % 3')).toBe(-2);
    expect(run('1 / 0')).toBeUndefined();
    expect(run('1 % {fldEMPTYNUM000000a}')).toBeUndefined();
    expect(run('{fldPRICE0000000000} / 4')).toBe(2.5);
  });

  it('negates numbers; -0 is 0; minus of a text is empty', () => {
    expect(run('-{fldPRICE0000000000}')).toBe(-10);
    expect(run('-0')).toBe(0);
    expect(run('-{fldNAME0000000000a}')).toBeUndefined();
  });

  it('+ joins texts when either operand is text, empty joining as ""', () => {
    expect(run('{fldNAME0000000000a} + " x" + {fldEMPTYNUM000000a}')).toBe('Bolt x');
    expect(typeOf('{fldNAME0000000000a} + 1')).toEqual({ type: 'string', multiple: false });
    expect(typeOf('{fldQTY00000000000a} + 1')).toEqual({ type: 'number', multiple: false });
  });

  it('compares numbers numerically, texts by code units, dates chronologically', () => {
    expect(run('{fldQTY00000000000a} > 5')).toBeUndefined();
    expect(run('{fldPRICE0000000000} > 5')).toBe(true);
    expect(run('"B" > "A"')).toBe(true);
    expect(run('"a" > "B"')).toBe(true);
    expect(run('{fldEMPTYNUM000000a} < 1')).toBe(true);
    expect(run('{fldDUE00000000000a} > "2024-02-29"')).toBe(true);
    expect(run('{fldDUE00000000000a} >= {fldDUE00000000000a}')).toBe(true);
  });

  it('= is loose: 1 = "1", empty = empty, empty ≠ 0, case-sensitive text', () => {
    expect(run('1 = "1"')).toBe(true);
    expect(run('{fldEMPTYNUM000000a} = {fldEMPTYNUM000000a}')).toBe(true);
    expect(run('{fldEMPTYNUM000000a} = 0')).toBeUndefined();
    expect(run('"a" = "A"')).toBeUndefined();
    expect(run('"a" != "A"')).toBe(true);
    expect(run('TRUE = 1')).toBe(true);
  });

  it('&& and || give true or false, never the deciding operand', () => {
    expect(run('"x" && 2')).toBe(true);
    expect(run('"" || 0')).toBeUndefined();
    expect(typeOf('"x" || 2')).toEqual({ type: 'boolean', multiple: false });
  });

  it('& joins texts: numbers plain, booleans true/false, empty ""', () => {
    expect(run('0.5 & "/" & TRUE & "/" & {fldEMPTYNUM000000a} & "|"')).toBe('0.5/true/|');
  });
});

describe('decisions where the contract is silent', () => {
  it('IF and SWITCH give the chosen value in their inferred type, inside larger expressions too', () => {
    expect(run('IF(TRUE, 1, "a") = "1.0"')).toBeUndefined();
    expect(run('AND(IF(TRUE, 0, "a"))')).toBe(true);
    expect(run('IF(TRUE, FALSE, "a")')).toBe('false');
  });

  it('reads only decimal notation as a number', () => {
    expect(run('"0x10" * 1')).toBe(0);
    expect(run('" 1.5e1 " * 2')).toBe(30);
  });
});

describe('field operands (computed.md 1.3)', () => {
  it('renders a date field under & with its formatting', () => {
    expect(run('{fldDUE00000000000a} & ""')).toBe('2024-03-01');
  });

  it('joins other multi-valued cells with "," and no space', () => {
    expect(run('{fldTAGS0000000000a} & "x"')).toBe(',A2x');
  });

  it('takes a multi-valued number of 1 item as that number, of more as an error (empty)', () => {
    expect(run('{fldONE00000000000a} + 1')).toBe(8);
    expect(run('{fldNUMS0000000000a} + 1')).toBeUndefined();
  });

  it('types a plain reference as its field, multiple included', () => {
    expect(typeOf('{fldNUMS0000000000a}')).toEqual({ type: 'number', multiple: true });
    expect(run('{fldNUMS0000000000a}')).toEqual([4, 5]);
  });

  it('stores true booleans and empties false ones', () => {
    expect(run('{fldDONE0000000000a}')).toBe(true);
    expect(run('{fldQTY00000000000a} > 5')).toBeUndefined();
  });
});

describe('checks at create (computed.md 2.1)', () => {
  it('refuses references to fields the table does not have, naming them', () => {
    expect(() => compileFormula('{fldAAAAAAAAAAAAAAAA} + {fldBBBBBBBBBBBBBBBB}', fields)).toThrow(
      new FormulaError('formula field reference fldAAAAAAAAAAAAAAAA, fldBBBBBBBBBBBBBBBB not found'),
    );
  });

  it('refuses unknown functions by name', () => {
    expect(() => compileFormula('NOPE(1)', fields)).toThrow(new FormulaError('Unknown function NOPE'));
  });

  it('lists the fields a formula reads', () => {
    expect(
      compileFormula('{fldQTY00000000000a} * {fldPRICE0000000000} + {fldQTY00000000000a}', fields).refs,
    ).toEqual(['fldQTY00000000000a', 'fldPRICE0000000000']);
  });
});
