import { PayloadTooLargeError } from '#shared/http/errors.ts';

/** Records one call may write (endpoints.md: 1..1000; auth-errors.md: more is a 413). */
export const MAX_RECORDS_PER_CALL = 1000;

/** More than 1000 records in one call is a 413. */
export const assertBatchSize = (count: number): void => {
  if (count > MAX_RECORDS_PER_CALL)
    throw new PayloadTooLargeError(`At most ${MAX_RECORDS_PER_CALL} records per call`);
};

/**
 * The most a record's cells may take, as UTF-8 JSON. DynamoDB stores an item of at most 400 KB,
 * and the journal of a large write holds a record's earlier image beside the write's own data:
 * 256 KB leaves room for both, for the record's envelope and for its index entries.
 */
export const MAX_RECORD_BYTES = 256 * 1024;

const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

/**
 * Refuses a record whose cells would take more than `MAX_RECORD_BYTES` (a 413 naming the record
 * and its largest field), before anything is written. `cells` are every cell the record would
 * hold after the write, by field id; `nameOf` names a field.
 */
export const assertRecordFits = (
  label: string,
  cells: Iterable<[string, unknown]>,
  nameOf: (fieldId: string) => string | undefined,
): void => {
  let total = 0;
  let largest: [string, number] = ['', 0];
  for (const [fieldId, value] of cells) {
    if (value === undefined || value === null) continue;
    const size = Buffer.byteLength(JSON.stringify(value));
    total += size;
    if (size > largest[1]) largest = [fieldId, size];
  }
  if (total > MAX_RECORD_BYTES)
    throw new PayloadTooLargeError(
      `${label} would hold ${kb(total)} of cells; a record may hold at most ${kb(MAX_RECORD_BYTES)} (its largest cell: field "${nameOf(largest[0]) ?? largest[0]}", ${kb(largest[1])})`,
    );
};
