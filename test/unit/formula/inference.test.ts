/**
 * Result type inference of `compileFormula(...).type` (computed.md 3.1), rule by rule: literals,
 * field references, operators, IF, SWITCH, MAX/MIN, the list functions, TEXT_ALL and a sample of
 * every function group's declared result; and the argument-count messages of 2.1.
 */
import { describe, expect, it } from 'vitest';
import { compileFormula, type FieldTypes, FormulaError } from '#shared/formula/compile.ts';
import type { Typed, ValueType } from '#shared/formula/formula-types.ts';

/** One field of each value type, single and multiple: `{num}`, `{nums}`, `{text}`, `{texts}`… */
const FIELDS: Record<string, Typed> = {
  num: { type: 'number', multiple: false },
  nums: { type: 'number', multiple: true },
  text: { type: 'string', multiple: false },
  texts: { type: 'string', multiple: true },
  bool: { type: 'boolean', multiple: false },
  bools: { type: 'boolean', multiple: true },
  date: { type: 'dateTime', multiple: false },
  dates: { type: 'dateTime', multiple: true },
};
const idOf = (name: string) => `fld${name.padEnd(16, 'x')}`;
const byId = new Map(Object.entries(FIELDS).map(([name, t]) => [idOf(name), t]));
const fields: FieldTypes = { typeOf: (id) => byId.get(id) };

/** Compiles with `{name}` standing for the field of that name above. */
const typeOf = (expression: string): Typed =>
  compileFormula(
    expression.replace(/\{(\w+)\}/g, (_, name: string) => `{${idOf(name)}}`),
    fields,
  ).type;
const single = (type: ValueType): Typed => ({ type, multiple: false });
const multiple = (type: ValueType): Typed => ({ type, multiple: true });

const cases = (rows: [string, Typed][]) =>
  it.each(rows)('%s → %o', (expression, expected) => {
    expect(typeOf(expression)).toEqual(expected);
  });

describe('literals and field references (3.1)', () => {
  cases([
    ['1', single('number')],
    ['2.5e1', single('number')],
    ['"a"', single('string')],
    ["''", single('string')],
    ['TRUE', single('boolean')],
    ['false', single('boolean')],
    ...Object.entries(FIELDS).map(([name, t]): [string, Typed] => [`{${name}}`, t]),
    ['({nums})', multiple('number')],
  ]);
});

describe('operators: the type of 1.2, always single (3.1)', () => {
  cases([
    ['-1', single('number')],
    ['-{text}', single('number')],
    ['-{nums}', single('number')],
    ['{text} * 2', single('number')],
    ['{nums} / {nums}', single('number')],
    ['"8" % 3', single('number')],
    ['{date} - {date}', single('number')],
    ['"a" - 1', single('number')],
    ['1 + 2', single('number')],
    ['{nums} + {num}', single('number')],
    ['1 + "2"', single('string')],
    ['{text} + {num}', single('string')],
    ['TRUE + 1', single('string')],
    ['{date} + 1', single('string')],
    ['{texts} + {texts}', single('string')],
    ['1 > 2', single('boolean')],
    ['"a" < "b"', single('boolean')],
    ['{date} >= {date}', single('boolean')],
    ['{nums} <= 1', single('boolean')],
    ['1 = "1"', single('boolean')],
    ['{texts} != "a"', single('boolean')],
    ['1 && "a"', single('boolean')],
    ['{nums} || 0', single('boolean')],
    ['1 & 2', single('string')],
    ['{nums} & {dates}', single('string')],
    ['1 + 2 * 3 > 4 & ""', single('string')],
  ]);
});

describe('IF (3.1)', () => {
  cases([
    // a BLANK() branch takes the other branch's type
    ['IF({bool}, 1, BLANK())', single('number')],
    ['IF({bool}, BLANK(), {date})', single('dateTime')],
    ['IF({bool}, BLANK(), TRUE)', single('boolean')],
    ['IF({bool}, {nums}, BLANK())', multiple('number')],
    ['IF({bool}, BLANK(), BLANK())', single('string')],
    // equal types are kept
    ['IF({bool}, 1, 2)', single('number')],
    ['IF({bool}, {date}, {date})', single('dateTime')],
    ['IF({bool}, TRUE, 1 > 2)', single('boolean')],
    ['IF(1, "a", {text})', single('string')],
    // mixed types give string
    ['IF({bool}, 1, "a")', single('string')],
    ['IF({bool}, {date}, 1)', single('string')],
    ['IF({bool}, TRUE, 0)', single('string')],
    // multiple only if both branches are
    ['IF({bool}, {nums}, {nums})', multiple('number')],
    ['IF({bool}, {nums}, 1)', single('number')],
    ['IF({bool}, 1, {nums})', single('number')],
    ['IF({bool}, {nums}, {texts})', multiple('string')],
    ['IF({bool}, {dates}, {text})', single('string')],
    // the condition plays no part
    ['IF({nums}, "a", "b")', single('string')],
  ]);
});

describe('SWITCH (3.1)', () => {
  cases([
    ['SWITCH({num}, 1, "a", 2, "b")', single('string')],
    ['SWITCH({text}, "x", 10, "y", 20)', single('number')],
    ['SWITCH({text}, "x", 10, "y", 20, 30)', single('number')],
    ['SWITCH({text}, "x", {date}, {date})', single('dateTime')],
    ['SWITCH({num}, 1, TRUE, 2 > 1)', single('boolean')],
    // values and default that differ give string
    ['SWITCH({num}, 1, 10, "none")', single('string')],
    ['SWITCH({num}, 1, 10, 2, "b")', single('string')],
    // BLANK() is ignored
    ['SWITCH({num}, 1, 10, BLANK())', single('number')],
    ['SWITCH({num}, 1, BLANK(), 2, 20)', single('number')],
    ['SWITCH({num}, 1, BLANK(), BLANK())', single('string')],
    // multiple only if all are
    ['SWITCH({num}, 1, {nums}, {nums})', multiple('number')],
    ['SWITCH({num}, 1, {nums}, 2, {nums})', multiple('number')],
    ['SWITCH({num}, 1, {nums}, BLANK())', multiple('number')],
    ['SWITCH({num}, 1, {nums}, 5)', single('number')],
    ['SWITCH({num}, 1, {nums}, 2, {texts})', multiple('string')],
    // the expression and the cases play no part
    ['SWITCH({dates}, {dates}, "a")', single('string')],
    ['SWITCH({nums}, 1, {date}, 2, {date})', single('dateTime')],
    // an even count: the last is the default, here the only value
    ['SWITCH({num}, {texts})', multiple('string')],
  ]);
});

describe('MAX and MIN: the first argument type (3.1)', () => {
  cases([
    ['MAX(1, 2)', single('number')],
    ['MIN({nums}, 3)', single('number')],
    ['MAX({date}, {date})', single('dateTime')],
    ['MIN({dates})', single('dateTime')],
    ['MAX({date}, 1)', single('dateTime')],
    ['MIN(1, {date})', single('number')],
    ['MAX({dates}, {nums})', single('dateTime')],
  ]);
});

describe('ARRAY_UNIQUE, ARRAY_FLATTEN, ARRAY_COMPACT: multiple, common type else string (3.1)', () => {
  cases([
    ['ARRAY_UNIQUE({nums})', multiple('number')],
    ['ARRAY_UNIQUE(1, 2, {nums})', multiple('number')],
    ['ARRAY_FLATTEN({dates}, {date})', multiple('dateTime')],
    ['ARRAY_FLATTEN({bools}, TRUE)', multiple('boolean')],
    ['ARRAY_COMPACT({texts})', multiple('string')],
    ['ARRAY_COMPACT("a")', multiple('string')],
    ['ARRAY_UNIQUE({nums}, "a")', multiple('string')],
    ['ARRAY_FLATTEN({dates}, 1)', multiple('string')],
    ['ARRAY_COMPACT(TRUE, 1)', multiple('string')],
  ]);
});

describe('TEXT_ALL: string, multiple as its argument (3.1)', () => {
  cases([
    ['TEXT_ALL(1)', single('string')],
    ['TEXT_ALL({date})', single('string')],
    ['TEXT_ALL({nums})', multiple('string')],
    ['TEXT_ALL({dates})', multiple('string')],
    ['TEXT_ALL({texts})', multiple('string')],
  ]);
});

describe('other functions: the declared result of section 2, single (3.1)', () => {
  cases([
    // numeric
    ['SUM({nums})', single('number')],
    ['AVERAGE({nums}, "1")', single('number')],
    ['ROUND({text}, 1)', single('number')],
    ['ROUNDUP(1.5)', single('number')],
    ['FLOOR(1.5, 1)', single('number')],
    ['EVEN(3)', single('number')],
    ['INT({nums})', single('number')],
    ['ABS(-1)', single('number')],
    ['SQRT(4)', single('number')],
    ['POWER(2, 3)', single('number')],
    ['LOG(100)', single('number')],
    ['MOD(5, 2)', single('number')],
    ['VALUE("1")', single('number')],
    // text
    ['CONCATENATE({texts}, 1)', single('string')],
    ['FIND("a", "abc")', single('number')],
    ['SEARCH("a", {texts})', single('number')],
    ['MID("abc", 0, 1)', single('string')],
    ['LEFT({texts})', single('string')],
    ['REPLACE("abc", 1, 1, "x")', single('string')],
    ['REGEXP_REPLACE("abc", "b", "x")', single('string')],
    ['SUBSTITUTE("abc", "b", "x")', single('string')],
    ['UPPER({num})', single('string')],
    ['LEN({texts})', single('number')],
    ['REPT("a", 2)', single('string')],
    ['T({nums})', single('string')],
    ['ENCODE_URL_COMPONENT("a b")', single('string')],
    // logical
    ['AND({bools})', single('boolean')],
    ['OR(1, "a")', single('boolean')],
    ['XOR({nums})', single('boolean')],
    ['NOT({text})', single('boolean')],
    ['IS_ERROR({nums})', single('boolean')],
    ['BLANK()', single('string')],
    // dateTime
    ['NOW()', single('dateTime')],
    ['TODAY()', single('dateTime')],
    ['YEAR({date})', single('number')],
    ['WEEKNUM("2023-09-08")', single('number')],
    ['WEEKDAY({date})', single('number')],
    ['DATETIME_DIFF({date}, NOW(), "day")', single('number')],
    ['TONOW({date}, "day")', single('number')],
    ['DATE_ADD({date}, 1, "month")', single('dateTime')],
    ['WORKDAY({date}, 3)', single('dateTime')],
    ['WORKDAY_DIFF({date}, NOW())', single('number')],
    ['IS_SAME({date}, NOW())', single('boolean')],
    ['IS_BEFORE({date}, NOW(), "month")', single('boolean')],
    ['DATESTR({date})', single('string')],
    ['TIMESTR({date})', single('string')],
    ['DATETIME_FORMAT({date}, "YYYY")', single('string')],
    ['DATETIME_PARSE("2023-09-08")', single('dateTime')],
    ['CREATED_TIME()', single('dateTime')],
    ['LAST_MODIFIED_TIME()', single('dateTime')],
    // array
    ['COUNTALL({nums})', single('number')],
    ['COUNTA({texts}, 1)', single('number')],
    ['COUNT({nums})', single('number')],
    ['ARRAY_JOIN({nums}, "-")', single('string')],
    // system
    ['RECORD_ID()', single('string')],
    ['AUTO_NUMBER()', single('number')],
    // names are case-insensitive
    ['sum(1)', single('number')],
    ['Array_Unique({nums})', multiple('number')],
  ]);
});

describe('argument count messages (2.1)', () => {
  it.each([
    ['ROUND()', 'ROUND needs at least 1 param'],
    ['ABS(1,2)', 'ABS only allow 1 param'],
    ['POWER(1)', 'POWER needs 2 params'],
    ['COUNTALL()', 'COUNTALL needs 1 param'],
    ['MID("a",1)', 'MID needs at least 3 params'],
  ])('%s → %s', (expression, message) => {
    let error: unknown;
    try {
      compileFormula(expression, fields);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormulaError);
    expect((error as FormulaError).message).toBe(message);
  });
});
