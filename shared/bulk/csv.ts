/**
 * CSV as RFC 4180 writes it (data-flow.md 7): fields separated by commas, records ended by CRLF,
 * a field quoted when it holds a comma, a double quote, a carriage return or a line feed (its
 * quotes doubled). The file starts with a UTF-8 byte order mark, so spreadsheets read it as UTF-8.
 * Cells are written as they are: text that starts with `=` is not altered, so a spreadsheet that
 * evaluates formulas on open may evaluate it (the export gives the data, unchanged). Pure.
 */

/** The byte order mark a UTF-8 CSV starts with. */
export const BOM = '\uFEFF';

const NEEDS_QUOTES = /[",\r\n]/;

/** One field as CSV. */
export const csvField = (text: string): string =>
  NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;

/** One record as a CSV line, CRLF included. */
export const csvLine = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}\r\n`;
