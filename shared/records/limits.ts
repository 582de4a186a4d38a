import { PayloadTooLargeError } from '#shared/core/errors.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { describeField } from '#shared/fields/kind-helpers.ts';
import { cellBytes, kb, MAX_CELL_BYTES } from '#shared/fields/size.ts';

export { MAX_CELL_BYTES } from '#shared/fields/size.ts';

/** Records one call may write (endpoints.md: 1..1000; auth-errors.md: more is a 413). */
export const MAX_RECORDS_PER_CALL = 1000;

/** More than 1000 records in one call is a 413. */
export const assertBatchSize = (count: number): void => {
  if (count > MAX_RECORDS_PER_CALL)
    throw new PayloadTooLargeError(`At most ${MAX_RECORDS_PER_CALL} records per call`);
};

/**
 * The most a record's cells may take together, as UTF-8 JSON. DynamoDB stores an item of at most
 * 400 KB: 256 KB of cells leaves room for the record's envelope (times, creator, version, its
 * keys in views' manual orders), and a journaled write's undo image of the record (the record
 * item plus a few bytes of operation) still fits a journal item of its own
 * (`shared/db/commit.ts` closes a journal at 300 KB, or after one step larger than that).
 */
export const MAX_RECORD_BYTES = 256 * 1024;

/** True for an attribute of a record item that holds a cell (cells are named by field id). */
export const isCellAttribute = (name: string) => name.startsWith('fld');

/** The cells of a stored record item, by field id. */
export const cellsOfItem = (item: Record<string, unknown>): [string, unknown][] =>
  Object.entries(item).filter(([name]) => isCellAttribute(name));

/** How much a record's cells take together (the measure of `MAX_RECORD_BYTES`). */
export const cellsBytes = (cells: Iterable<[string, unknown]>): number => {
  let total = 0;
  for (const [, value] of cells) total += cellBytes(value ?? undefined);
  return total;
};

/**
 * Refuses, before anything is written, a record whose cells would not fit: a cell over
 * `MAX_CELL_BYTES` is a 413 naming its field; cells over `MAX_RECORD_BYTES` together a 413 naming
 * the record and its largest cell. `cells` are every cell the record would hold after the write,
 * by field id; `label` names the record (`Record 2 of the request`, `Record rec…`). For a record
 * already stored, `stored` names the cells the write changes and what the cells took before:
 * only those cells are measured one by one, and the record only when it grows, so a record
 * stored before these limits may still shrink, or lose a link.
 */
export const assertRecordFits = (
  label: string,
  cells: Iterable<[string, unknown]>,
  fieldOf: (fieldId: string) => Pick<Field, 'id' | 'name'> | undefined,
  stored?: { written: ReadonlySet<string>; bytesBefore: number },
): void => {
  const named = (fieldId: string) => describeField(fieldOf(fieldId) ?? { id: fieldId, name: fieldId });
  let total = 0;
  let largest: [string, number] = ['', 0];
  for (const [fieldId, value] of cells) {
    if (value === undefined || value === null) continue;
    const size = cellBytes(value);
    if (size > MAX_CELL_BYTES && (!stored || stored.written.has(fieldId)))
      throw new PayloadTooLargeError(
        `${label}: ${named(fieldId)} would hold ${kb(size)}; a cell may hold at most ${kb(MAX_CELL_BYTES)}`,
      );
    total += size;
    if (size > largest[1]) largest = [fieldId, size];
  }
  if (total > MAX_RECORD_BYTES && (!stored || total > stored.bytesBefore))
    throw new PayloadTooLargeError(
      `${label} would hold ${kb(total)} of cells; a record may hold at most ${kb(MAX_RECORD_BYTES)} (its largest cell: ${named(largest[0])}, ${kb(largest[1])})`,
    );
};
