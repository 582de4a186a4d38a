import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#shared/core/errors.ts';
import type { Field } from '#shared/fields/field-types.ts';
import {
  MAX_NEW_COLUMNS,
  MAX_PASTE_ROWS,
  parseClipboardText,
  pastedRows,
  pasteStart,
  planPaste,
  readPasteContent,
  readPasteHeader,
} from '#shared/listing/clipboard.ts';

/** A cell quoted as spreadsheets (and `copySelection`) quote it. */
const quote = (text: string) => (/[\t\n\r"]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
const toText = (rows: string[][]) => rows.map((r) => r.map(quote).join('\t')).join('\n');

const field = (id: string, type: string, extra: Partial<Field> = {}) =>
  ({ id, name: id, type, dbFieldName: id, options: {}, ...extra }) as Field;

describe('parseClipboardText', () => {
  it.each([
    ['one cell', 'a', [['a']]],
    ['empty text is one empty cell', '', [['']]],
    [
      'tabs and lines',
      'a\tb\nc\td',
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    [
      'CRLF and one ending line break',
      'a\tb\r\nc\td\r\n',
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    ['only the last line break is dropped', 'a\n\n', [['a'], ['']]],
    ['empty cells around tabs', '\ta\t', [['', 'a', '']]],
    [
      'quoted tab, line break and quotes',
      '"x\ty"\t"say ""hi"""\n"l1\nl2"',
      [['x\ty', 'say "hi"'], ['l1\nl2']],
    ],
    ['an empty quoted cell', '""\tb', [['', 'b']]],
    ['a quote inside a cell is text', 'a"b\t5"', [['a"b', '5"']]],
    ['an unclosed quote is text', '"abc\tdef', [['"abc', 'def']]],
    ['a quote closed early is text', '"ab"c\td', [['"ab"c', 'd']]],
  ])('%s', (_name, text, rows) => {
    expect(parseClipboardText(text)).toEqual(rows);
  });

  it('reads back what copy writes, for any cells', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '"', 'é') });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(cell, { minLength: 1 })),
        (width, raw) => {
          const rows = raw
            .map((r) => Array.from({ length: width }, (_, i) => r[i] ?? 'z'))
            // a lone empty cell on the last line reads as the ending line break
            .concat([Array.from({ length: width }, () => 'end')]);
          expect(parseClipboardText(toText(rows))).toEqual(rows);
        },
      ),
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\t', '\n', '\r', '"') }), (text) => {
        const rows = parseClipboardText(text);
        expect(rows.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('readPasteContent and readPasteHeader', () => {
  it('takes text or rows of cells', () => {
    expect(readPasteContent('1\t2')).toEqual([['1', '2']]);
    expect(readPasteContent([['1', 2], [null]])).toEqual([['1', 2], [null]]);
  });

  it.each([
    ['a number', 5, 400, 'content: must be tab-separated text or a list of rows of cells'],
    ['a list of text', ['a', 'b'], 400, 'content: must be tab-separated text or a list of rows of cells'],
    ['missing', undefined, 400, 'content: must be tab-separated text or a list of rows of cells'],
    ['no rows', [], 400, 'content: nothing to paste'],
    ['empty rows', [[], []], 400, 'content: nothing to paste'],
    [
      'too many rows',
      Array.from({ length: MAX_PASTE_ROWS + 1 }, () => ['a']),
      413,
      'content: at most 1000 rows per paste',
    ],
    ['too many cells', [Array.from({ length: 501 }, () => 'a')], 400, 'content: at most 500 cells per row'],
  ])('refuses %s', (_name, raw, status, message) => {
    expect(() => readPasteContent(raw)).toThrow(expect.objectContaining({ status, message }));
  });

  it('checks the header as a list of fields, when given', () => {
    expect(() => readPasteHeader(undefined)).not.toThrow();
    expect(() => readPasteHeader([{ id: 'fld1', name: 'A', type: 'number' }])).not.toThrow();
    for (const bad of ['x', [{ id: 'fld1' }], [null], {}])
      expect(() => readPasteHeader(bad)).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/^header: /) }),
      );
  });

  it('answers a 4xx, never anything else, for any value', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        try {
          readPasteContent(raw);
          readPasteHeader(raw);
        } catch (error) {
          expect(error).toBeInstanceOf(HttpError);
          expect((error as HttpError).status).toBeLessThan(500);
        }
      }),
    );
  });
});

describe('pasteStart', () => {
  it('is the top-left corner of a block, the first row or the first column', () => {
    expect(
      pasteStart(
        [
          [2, 5],
          [1, 7],
        ],
        undefined,
      ),
    ).toEqual([1, 5]);
    expect(pasteStart([[4, 2]], 'rows')).toEqual([0, 2]);
    expect(pasteStart([[3, 1]], 'columns')).toEqual([1, 0]);
  });

  it('needs two corners for a block', () => {
    expect(() => pasteStart([[0, 0]], undefined)).toThrow('ranges: a block needs two corners per range');
  });
});

describe('planPaste', () => {
  const content = (rows: number, cols: number) => Array.from({ length: rows }, () => Array(cols).fill('v'));

  it('covers the content from the start, inside the grid', () => {
    expect(planPaste({ columns: 3, rows: 3 }, [1, 1], content(2, 2))).toEqual({
      ranges: [
        [1, 1],
        [2, 2],
      ],
      newRows: 0,
      newColumns: 0,
    });
  });

  it('counts the rows and columns it grows the grid by, from a short row too', () => {
    expect(planPaste({ columns: 2, rows: 2 }, [1, 1], [['a'], ['b', 'c', 'd'], []])).toEqual({
      ranges: [
        [1, 1],
        [3, 3],
      ],
      newRows: 2,
      newColumns: 2,
    });
    expect(planPaste({ columns: 0, rows: 0 }, [0, 0], content(1, 1))).toMatchObject({
      newRows: 1,
      newColumns: 1,
    });
  });

  it('starts at most one past the last column or row', () => {
    expect(() => planPaste({ columns: 2, rows: 2 }, [3, 0], content(1, 1))).toThrow(
      'ranges: column 3 is past the last column (1)',
    );
    expect(() => planPaste({ columns: 2, rows: 2 }, [0, 3], content(1, 1))).toThrow(
      'ranges: row 3 is past the last row (1)',
    );
  });

  it(`adds at most ${MAX_NEW_COLUMNS} columns`, () => {
    expect(() => planPaste({ columns: 1, rows: 1 }, [0, 0], content(1, MAX_NEW_COLUMNS + 2))).toThrow(
      `content: a paste may add at most ${MAX_NEW_COLUMNS} columns`,
    );
  });
});

describe('pastedRows', () => {
  it('lays cells on the columns; computed fields, missing cells and cells past the columns left out', () => {
    const columns = [
      field('fldA', 'singleLineText'),
      field('fldF', 'formula', { isComputed: true }),
      field('fldN', 'number'),
      field('fldC', 'createdTime'),
    ];
    expect(
      pastedRows(
        [
          ['a', '=1', '2', 'now', 'extra'],
          ['', 'x'],
        ],
        columns,
      ),
    ).toEqual([{ fldA: 'a', fldN: '2' }, { fldA: null }]);
  });
});
