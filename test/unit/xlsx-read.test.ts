import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { xlsxSheets } from '#shared/bulk/xlsx-read.ts';
import { ValidationError } from '#shared/core/errors.ts';

const workbook = async () => {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  const people = book.addWorksheet('People');
  people.addRow(['Name', 'Height']);
  people.addRow(['Ada', 1.65]);
  const notes = book.addWorksheet('Notes');
  notes.addRow(['Text']);
  notes.addRow(['last']);
  return Buffer.from(await book.xlsx.writeBuffer());
};

/** Every sheet with its rows, read the way an import reads them (one row at a time). */
const readAll = async (source: Readable) => {
  const sheets: { name: string; rows: string[][] }[] = [];
  for await (const sheet of xlsxSheets(source)) {
    const rows: string[][] = [];
    for await (const row of sheet.rows) rows.push(row);
    sheets.push({ name: sheet.name, rows });
  }
  return sheets;
};

describe('reading a workbook as a stream', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gets every sheet when the reader is slower than the zip parser (the whole file arrived at once)', async () => {
    const { default: ExcelJS } = await import('exceljs');
    // a reader slowed where exceljs parses the styles, as a busy process is: unzipper has by then
    // pushed the workbook's last entries and announced its end
    const reader = ExcelJS.stream.xlsx.WorkbookReader.prototype as unknown as {
      _parseStyles: (...args: unknown[]) => Promise<unknown>;
    };
    const parseStyles = reader._parseStyles;
    vi.spyOn(reader, '_parseStyles').mockImplementation(async function (this: unknown, ...args) {
      await new Promise((resolve) => setTimeout(resolve, 3));
      return parseStyles.apply(this, args);
    });
    const bytes = await workbook();

    for (let i = 0; i < 10; i++) {
      expect(await readAll(Readable.from([bytes]))).toEqual([
        {
          name: 'People',
          rows: [
            ['Name', 'Height'],
            ['Ada', '1.65'],
          ],
        },
        { name: 'Notes', rows: [['Text'], ['last']] },
      ]);
    }
  });

  it('answers a file that is no workbook with a 400, and a storage failure as itself', async () => {
    await expect(readAll(Readable.from([Buffer.from('not a zip at all')]))).rejects.toBeInstanceOf(
      ValidationError,
    );
    const bytes = await workbook();
    const failing = new Readable({
      read() {
        this.push(bytes.subarray(0, 100));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(readAll(failing)).rejects.toThrow('connection reset');
  });
});
