/**
 * Reading an uploaded Excel workbook (`.xlsx`) as rows, streaming (exceljs's workbook reader: one
 * sheet's rows at a time, shared strings and styles cached, hyperlinks skipped): the worksheets in
 * order, each a name and its rows of cell texts. A cell's text is what its CSV would hold: numbers
 * as JavaScript writes them, dates as ISO (a date alone when at midnight UTC), booleans as
 * `true`/`false`, a formula's last result, rich text and hyperlinks as their text. The same limits
 * as CSV: at most 500 columns; a file that is no workbook is a 400.
 */
import { PassThrough, type Readable } from 'node:stream';
import { ValidationError } from '#shared/core/errors.ts';
import { MAX_COLUMNS } from './csv-read.ts';

/** The text of one cell value as exceljs reads it. Pure. */
export const cellText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText))
      return v.richText.map((r) => String((r as { text?: unknown }).text ?? '')).join('');
    if ('result' in v) return cellText(v.result);
    if ('text' in v) return cellText(v.text);
    if ('error' in v) return String(v.error);
  }
  return String(value);
};

/** One worksheet of a workbook as it is read: its name and its rows. */
export interface SheetRows {
  name: string;
  rows: AsyncGenerator<string[]>;
}

/**
 * The source as exceljs's reader should get it. That reader pipes the source into unzipper's zip
 * parser and iterates the parser's entries with a loop that pauses it between entries; the parser
 * announces its end out of band (an `end` event when its input is consumed), so entries it pushed
 * while paused are lost when the reader is slower than the parser — under load, the workbook's
 * last entry (`xl/workbook.xml` in files exceljs writes) and the sheets after it, which failed an
 * import now and then with "reading 'sheets'". The zip parser this source is piped into is kept
 * flowing (its pause is ignored), so every entry reaches the reader. Memory stays bounded: an
 * entry is a stream whose bytes are held back by its own back-pressure until the reader reads it.
 * A failure of the source (the storage connection) fails the zip parser, so the reader throws it.
 */
export const zipFeedOf = (source: Readable): Readable => {
  const feed = new PassThrough();
  const pipe = feed.pipe.bind(feed);
  feed.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
    const parser = destination as unknown as Readable;
    parser.pause = () => parser;
    source.once('error', (error) => parser.destroy(error));
    return pipe(destination, options);
  };
  return source.pipe(feed);
};

/**
 * The worksheets of a workbook stream, in order; each sheet's rows must be read (or left) before
 * the next sheet comes. Rows are dense from the first column (blank rows are skipped).
 */
export async function* xlsxSheets(source: Readable): AsyncGenerator<SheetRows> {
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(zipFeedOf(source), {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'cache', // a date is a number with a date format: the styles tell it
    worksheets: 'emit',
    entries: 'ignore',
  });
  let sourceError: unknown;
  source.once('error', (error) => {
    sourceError = error;
  });
  let index = 0;
  try {
    for await (const sheet of reader as AsyncIterable<
      AsyncIterable<{ values: unknown }> & { name?: string }
    >) {
      index++;
      const name = sheet.name || `Sheet${index}`;
      yield {
        name,
        rows: (async function* () {
          for await (const row of sheet) {
            const values = Array.isArray(row.values) ? (row.values as unknown[]).slice(1) : [];
            if (values.length > MAX_COLUMNS)
              throw new ValidationError(
                `A row has ${values.length} columns; an import reads at most ${MAX_COLUMNS}`,
              );
            const texts = Array.from({ length: values.length }, (_, i) => cellText(values[i]));
            if (texts.some((t) => t !== '')) yield texts;
          }
        })(),
      };
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    if (sourceError) throw sourceError; // the storage failed, not the file
    throw new ValidationError(
      `The file is not an Excel workbook (.xlsx) that can be read: ${(error as Error).message}`,
    );
  } finally {
    source.destroy();
  }
}
