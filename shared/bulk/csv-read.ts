/**
 * Reading an uploaded CSV as rows, streaming (never the whole file in memory): UTF-8 (a byte order
 * mark is dropped; bytes that are not UTF-8 stop the read with a clear error, as does a file with no
 * rows), RFC 4180 quoting (`csv-parse`), rows of any width (a short row's missing cells are empty;
 * the caller reports a long row's extra cells). Limits: a row of at most 1 MB, at most 500 columns.
 */

import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { parse } from 'csv-parse';
import { ValidationError } from '#shared/core/errors.ts';

/** The widest file an import reads. */
export const MAX_COLUMNS = 500;
/** The longest row (in characters) an import reads. */
export const MAX_ROW_CHARS = 1024 * 1024;

/** Decodes UTF-8 strictly: bytes that are not UTF-8 are an error naming it, never replaced silently. */
const strictUtf8 = (): Transform => {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        done(null, decoder.decode(chunk, { stream: true }));
      } catch {
        done(new ValidationError('The file is not UTF-8 text: save it as CSV UTF-8 and upload it again'));
      }
    },
    flush(done) {
      try {
        done(null, decoder.decode());
      } catch {
        done(new ValidationError('The file is not UTF-8 text: save it as CSV UTF-8 and upload it again'));
      }
    },
  });
};

/** What a parse error means to the person who sent the file. */
const readable = (error: unknown): Error => {
  if (error instanceof ValidationError) return error;
  const e = error as { code?: string; message?: string; lines?: number };
  const at = e.lines ? ` (line ${e.lines})` : '';
  if (e.code === 'CSV_QUOTE_NOT_CLOSED')
    return new ValidationError(`A quoted field is never closed${at}: the file is not valid CSV`);
  if (e.code === 'CSV_MAX_RECORD_SIZE')
    return new ValidationError(
      `A row is longer than ${MAX_ROW_CHARS / 1048576} MB${at}: the file cannot be imported`,
    );
  if (e.code?.startsWith('CSV_'))
    return new ValidationError(`The file is not valid CSV${at}: ${e.message ?? e.code}`);
  return error as Error;
};

/** The rows of a CSV stream, in order, each a list of cell texts. Throws a 400 for what cannot be read. */
export async function* csvRows(source: Readable): AsyncGenerator<string[]> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_CHARS,
  });
  const decode = strictUtf8();
  source.on('error', (e) => decode.destroy(e));
  decode.on('error', (e) => parser.destroy(e));
  source.pipe(decode).pipe(parser);
  let any = false;
  try {
    for await (const row of parser as AsyncIterable<string[]>) {
      if (row.length > MAX_COLUMNS)
        throw new ValidationError(`A row has ${row.length} columns; an import reads at most ${MAX_COLUMNS}`);
      any = true;
      yield row;
    }
  } catch (error) {
    throw readable(error);
  } finally {
    source.destroy();
  }
  if (!any) throw new ValidationError('The file is empty: it has no rows');
}
