import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from '#shared/bulk/csv.ts';
import { exportFilename } from '#shared/bulk/export.ts';
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
