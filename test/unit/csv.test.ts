import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from '#shared/bulk/csv.ts';
import { exportFilename } from '#shared/bulk/export.ts';
import { inferredOptions, inferType, numberPrecisionOf } from '#shared/bulk/infer.ts';
import type { TableSchema } from '#shared/schema/schema.ts';

describe('CSV (RFC 4180)', () => {
  it('quotes a field with a comma, a quote, CR or LF, doubling its quotes; leaves others as they are', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('=SUM(A1)')).toBe('=SUM(A1)');
    expect(csvField(' spaced ')).toBe(' spaced ');
  });

  it('ends every line with CRLF', () => {
    expect(csvLine(['a', 'b,c', ''])).toBe('a,"b,c",\r\n');
    expect(csvLine([])).toBe('\r\n');
  });

  it("names the file after the table (and view), without characters a header can't carry", () => {
    const schema = { table: { name: 'Q3 / "draft"\r\n' } } as unknown as TableSchema;
    expect(exportFilename(schema)).toBe('Q3 _ _draft___.csv');
    expect(exportFilename({ table: { name: 'Stock' } } as unknown as TableSchema, 'Grid')).toBe(
      'Stock - Grid.csv',
    );
  });
});

describe('the analysis of an exported column (hardening item 17)', () => {
  it.each([
    ['integers', ['1', '20', '-3', '0', ''], 0],
    ['one decimal, padded as an export pads it', ['2.5', '10.0', '0.1'], 1],
    ['three decimals', ['0.125', '1.000', '-2.500'], 3],
    ['the most decimals any value shows', ['3', '4.5', '1,234.56'], 2],
    ['more decimals than a field shows: capped at 5', ['1.1234567'], 5],
    ['a leading point', ['.5'], 1],
    ['text that is no number left out', ['abc', '7'], 0],
  ])('a number column of %s takes the precision that shows it as written', (_, values, precision) => {
    expect(numberPrecisionOf(values)).toBe(precision);
    expect(inferredOptions('number', values)).toEqual({ formatting: { type: 'decimal', precision } });
  });

  it('a column with no number, or of another type, gets no options', () => {
    expect(numberPrecisionOf(['', 'abc'])).toBeUndefined();
    expect(inferredOptions('number', ['', 'abc'])).toBeUndefined();
    expect(inferredOptions('singleLineText', ['1.5'])).toBeUndefined();
    expect(inferredOptions('checkbox', ['true'])).toBeUndefined();
  });

  it.each([
    ['checked and unchecked as an export writes them', ['true', '', 'true', '']],
    ['true and false', ['true', 'false']],
    ['true, false and empty, any case', ['TRUE', '', 'False']],
    ['checked only', ['true', 'true']],
  ])('a column of %s is a checkbox', (_, values) => {
    expect(inferType(values)).toBe('checkbox');
  });

  it('a column every cell of which is empty is text (nothing says it was a checkbox)', () => {
    expect(inferType(['', '', ''])).toBe('singleLineText');
  });
});
