import { describe, expect, it } from 'vitest';
import { compileFilter } from '#shared/query/filter.ts';
import { parseTql, parseTqlSymbols, tokenizeTql } from '#shared/query/tql.ts';
import { validationError } from '../fields/support.ts';
import { CTX, F, FIELDS, ROWS } from './filter-fixture.ts';

const item = (fieldId: string, operator: string, value: unknown) => ({
  fieldId,
  operator,
  value,
  isSymbol: true,
});

const matching = (text: string) =>
  ROWS.filter(compileFilter(parseTql(text, FIELDS), CTX)).map((r) => Number(r.id.slice(1)));

describe('parseTqlSymbols: the tree before validation', () => {
  it('one condition becomes an and-group of one symbol item, names resolved to ids', () => {
    expect(parseTqlSymbols("{Name} = 'x'", FIELDS)).toEqual({
      conjunction: 'and',
      filterSet: [item(F.name.id, '=', 'x')],
    });
  });

  it('AND binds tighter than OR', () => {
    expect(parseTqlSymbols("{Name} = 'a' OR {Count} > 1 AND {Done} = true", FIELDS)).toEqual({
      conjunction: 'or',
      filterSet: [
        item(F.name.id, '=', 'a'),
        { conjunction: 'and', filterSet: [item(F.count.id, '>', 1), item(F.done.id, '=', true)] },
      ],
    });
    expect(parseTqlSymbols("{Name} = 'a' AND {Count} > 1 OR {Done} = true", FIELDS)).toEqual({
      conjunction: 'or',
      filterSet: [
        { conjunction: 'and', filterSet: [item(F.name.id, '=', 'a'), item(F.count.id, '>', 1)] },
        item(F.done.id, '=', true),
      ],
    });
  });

  it('parentheses group; runs of one conjunction flatten', () => {
    expect(parseTqlSymbols("({Name} = 'a' OR {Count} > 1) AND {Done} = true", FIELDS)).toEqual({
      conjunction: 'and',
      filterSet: [
        { conjunction: 'or', filterSet: [item(F.name.id, '=', 'a'), item(F.count.id, '>', 1)] },
        item(F.done.id, '=', true),
      ],
    });
    expect(parseTqlSymbols("{Name} = 'a' AND ({Count} > 1 AND ({Done} = true))", FIELDS)).toEqual({
      conjunction: 'and',
      filterSet: [item(F.name.id, '=', 'a'), item(F.count.id, '>', 1), item(F.done.id, '=', true)],
    });
    expect(parseTqlSymbols("((({Name} = 'a')))", FIELDS)).toEqual({
      conjunction: 'and',
      filterSet: [item(F.name.id, '=', 'a')],
    });
  });

  it.each<[string, string, unknown]>([
    ["{Name} = 'x'", '=', 'x'],
    ["{Name} == 'x'", '=', 'x'],
    ["{Name} != 'x'", '!=', 'x'],
    ["{Name} <> 'x'", '!=', 'x'],
    ['{Count} > 3', '>', 3],
    ['{Count} >= -3.5', '>=', -3.5],
    ['{Count} < 1e3', '<', 1000],
    ['{Count} <= .5', '<=', 0.5],
    ["{Name} LIKE 'ab'", 'LIKE', 'ab'],
    ["{Name} not like 'ab'", 'NOT LIKE', 'ab'],
    ['{Status} IN (\'a\', "b")', 'IN', ['a', 'b']],
    ["{Status} NOT IN ('a')", 'NOT IN', ['a']],
    ["{Tags} HAS 'a'", 'HAS', 'a'],
    ["{Tags} HAS ('a', 'b')", 'HAS', ['a', 'b']],
    ['{Name} IS NULL', 'IS NULL', null],
    ['{Name} is not null', 'IS NOT NULL', null],
    ['{Done} = TRUE', '=', true],
    ['{Done} = false', '=', false],
    ['{Name} = NULL', '=', null],
  ])('%s', (text, symbol, value) => {
    const field = text.startsWith('{Count}')
      ? F.count
      : text.startsWith('{Status}')
        ? F.status
        : text.startsWith('{Tags}')
          ? F.tags
          : text.startsWith('{Done}')
            ? F.done
            : F.name;
    expect(parseTqlSymbols(text, FIELDS).filterSet).toEqual([item(field.id, symbol, value)]);
  });

  it.each<[string, string]>([
    ["{Name} = 'it\\'s'", "it's"],
    ["{Name} = 'it''s'", "it's"],
    ['{Name} = "say \\"hi\\""', 'say "hi"'],
    ['{Name} = "it\'s"', "it's"],
    ["{Name} = 'a\\\\b'", 'a\\b'],
    ["{Name} = 'line\\nnext\\ttab\\r'", 'line\nnext\ttab\r'],
    ["{Name} = '\\u00e9t\\u00E9'", 'été'],
    ["{Name} = '\\q'", 'q'],
    ["{Name} = ''", ''],
    ["{Name} = 'AND OR ( ) {x}'", 'AND OR ( ) {x}'],
  ])('text %s reads as %j', (text, value) => {
    expect(parseTqlSymbols(text, FIELDS).filterSet).toEqual([item(F.name.id, '=', value)]);
  });

  it('field references by name (with spaces, escaped braces) or id; keywords ignore case', () => {
    const braces = { ...F.notes, id: 'fldBracesAAAAAAAAAA', name: 'a}b\\c' };
    const fields = [...FIELDS, braces];
    expect(parseTqlSymbols("{Created By} = 'Me' and { a\\}b\\\\c } is null", fields)).toEqual({
      conjunction: 'and',
      filterSet: [item(F.createdBy.id, '=', 'Me'), item(braces.id, 'IS NULL', null)],
    });
    expect(parseTqlSymbols(`{${F.count.id}} > 1`, FIELDS).filterSet).toEqual([item(F.count.id, '>', 1)]);
  });

  it('blank text is an empty filter', () => {
    expect(parseTqlSymbols('', FIELDS)).toEqual({ conjunction: 'and', filterSet: [] });
    expect(parseTql('  \n ', FIELDS)).toEqual({ conjunction: 'and', filterSet: [] });
  });

  it('tokens carry their offsets', () => {
    expect(tokenizeTql("{A} >= 'x'").map((t) => [t.kind, t.text, t.at])).toEqual([
      ['field', 'A', 0],
      ['op', '>=', 4],
      ['string', 'x', 7],
      ['end', '', 10],
    ]);
  });
});

describe('parseTql: validated like any filter', () => {
  it('maps symbols to the operators of the field kinds', () => {
    expect(parseTql("{Tags} HAS 'a' AND {When} > '2026-03-01' OR {Done} IS NULL", FIELDS)).toEqual({
      conjunction: 'or',
      filterSet: [
        {
          conjunction: 'and',
          filterSet: [
            { fieldId: F.tags.id, operator: 'hasAllOf', value: ['a'] },
            {
              fieldId: F.when.id,
              operator: 'isAfter',
              value: { mode: 'exactDate', exactDate: '2026-03-01', timeZone: 'Asia/Tokyo' },
            },
          ],
        },
        { fieldId: F.done.id, operator: 'is', value: null },
      ],
    });
  });

  it('filters the fixed rows', () => {
    expect(matching("{Name} LIKE 'app' AND {Count} >= 1")).toEqual([1, 2, 11]);
    expect(matching("{Status} = 'light' OR {Count} > 2 AND {Tags} HAS 'b'")).toEqual([1, 2, 5, 6, 8]);
    expect(matching("({Status} = 'light' OR {Count} > 2) AND {Tags} HAS 'b'")).toEqual([2, 6, 8]);
    expect(matching("{Tags} IN ('b', 'c') AND {Done} != true")).toEqual([2, 3, 5, 8]);
    expect(matching("{Status} NOT IN ('light', 'heavy') AND {Name} IS NOT NULL")).toEqual([
      2, 6, 8, 9, 10, 11, 12, 13,
    ]);
    expect(matching("{Owner} = 'Me' OR {Team} HAS ('Me', 'usrBobBBBBBBBBBBBBB')")).toEqual([1, 5, 6]);
    expect(matching("{Kids} LIKE 'gam' AND {Kids} NOT LIKE 'alp'")).toEqual([3]);
    expect(matching('{Count} < 0 OR {Count} <= 0 AND {Count} = 0')).toEqual([3, 5, 12]);
    expect(matching("{When} >= '2026-03-10' AND {When} < '2026-03-12'")).toEqual([1, 2, 5, 12, 13]); // days in Tokyo, the field's zone
    expect(matching("{Name} = 'apple'")).toEqual([1, 11]);
    expect(matching('{Files} IS NOT NULL')).toEqual([1, 5]);
  });
});

describe('errors say where', () => {
  it.each<[string, string]>([
    [
      "{Name} = 'x' AND",
      'filterByTql: expected a field reference like {Name} or "(", found the end at position 16',
    ],
    [
      "{Name} 'x'",
      'filterByTql: expected an operator (=, !=, >, >=, <, <=, LIKE, NOT LIKE, IN, NOT IN, HAS, IS NULL, IS NOT NULL), found "x" at position 7',
    ],
    [
      '{Name} = ',
      'filterByTql: expected a value (quoted text, a number, true, false or null), found the end at position 9',
    ],
    [
      '{Name} = abc',
      'filterByTql: expected a value (quoted text, a number, true, false or null), found "abc" at position 9',
    ],
    ["{Name} = 'x' {Count} = 1", 'filterByTql: expected AND, OR or the end, found {Count} at position 13'],
    ["{Name} = 'x')", 'filterByTql: expected AND, OR or the end, found ")" at position 12'],
    [
      "({Name} = 'x'",
      'filterByTql: expected ")" to close the "(" at position 0, found the end at position 13',
    ],
    ["{Name} = 'x", 'filterByTql: unterminated text starting at position 9'],
    ['{Name = 1', 'filterByTql: unterminated field reference starting at position 0'],
    ['{ } = 1', 'filterByTql: empty field reference at position 0'],
    ["Name = 'x'", 'filterByTql: expected a field reference like {Name} or "(", found "Name" at position 0'],
    ["{Name} = 'x' & {Count} = 1", 'filterByTql: unexpected character "&" at position 13'],
    ['{Count} = 12abc', 'filterByTql: unexpected "a" after a number at position 12'],
    ["{Name} = '\\u12'", 'filterByTql: expected 4 hex digits after \\u at position 10'],
    ["{Name} NOT = 'x'", 'filterByTql: expected LIKE or IN after NOT, found "=" at position 11'],
    ['{Name} IS EMPTY', 'filterByTql: expected NULL or NOT NULL after IS, found "EMPTY" at position 10'],
    ['{Name} IS NOT 1', 'filterByTql: expected NULL after IS NOT, found "1" at position 14'],
    ["{Status} IN 'a'", "filterByTql: expected a list like ('a', 'b'), found \"a\" at position 12"],
    ["{Status} IN ('a' 'b')", 'filterByTql: expected "," or ")" in the list, found "b" at position 17'],
    ["{Status} IN ('a', null)", 'filterByTql: null cannot be in a list at position 18'],
    [
      '{Status} IN ()',
      'filterByTql: expected a value (quoted text, a number, true, false or null), found ")" at position 13',
    ],
    ["{Nope} = 'x'", 'filterByTql: field {Nope} not found at position 0'],
    ["{Name} = 'x' OR {Nope} = 'x'", 'filterByTql: field {Nope} not found at position 16'],
    [
      "{Count} LIKE 'x'",
      'filterByTql: "LIKE" is not allowed on number field "Count"; allowed: =, !=, >, >=, <, <=, IS NULL, IS NOT NULL at position 8',
    ],
    ["{Count} = 'lots'", 'filterByTql: expected a number or numeric text at position 10'],
    ["{Done} = 'yes'", 'filterByTql: expected true, false or null at position 9'],
    [
      "{When} = 'soon'",
      'filterByTql: must be a date (ISO 8601, e.g. 2026-03-01 or 2026-03-01T00:00:00.000Z) at position 9',
    ],
    [
      "{Tags} != 'a'",
      'filterByTql: "!=" is not allowed on multipleSelect field "Tags"; allowed: =, HAS, IN, NOT IN, IS NULL, IS NOT NULL at position 7',
    ],
    ['(((((((((({Name} IS NULL))))))))))', 'filterByTql: nested too deep (at most 8 levels) at position 8'],
  ])('%s', (text, message) => {
    const error = validationError(() => parseTql(text, FIELDS));
    expect(error.status).toBe(400);
    expect(error.message).toBe(message);
  });

  it('refuses texts over 10,000 characters and filters over 500 items', () => {
    expect(validationError(() => parseTql(`{Name} = '${'x'.repeat(10_000)}'`, FIELDS)).message).toBe(
      'filterByTql: at most 10000 characters',
    );
    const many = Array.from({ length: 501 }, () => '{Name} IS NULL').join(' OR ');
    expect(validationError(() => parseTql(many, FIELDS)).message).toBe(
      'filterByTql.filterSet.499: a filter holds at most 500 items and groups',
    );
  });
});
