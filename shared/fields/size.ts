/**
 * How large a cell may be. Pure. DynamoDB stores an item of at most 400 KB; a record is one item
 * (`shared/records/model.ts`), and a journaled write keeps a record's earlier image in a journal
 * item of its own (`shared/db/commit.ts`), so a record's cells are held well under that
 * (`MAX_RECORD_BYTES` in `shared/records/limits.ts`) and one cell to half of it.
 */

/** The most one cell may take, as UTF-8 JSON (a text of up to about 131,000 ASCII characters). */
export const MAX_CELL_BYTES = 128 * 1024;

/** The size of a cell value as UTF-8 JSON, the measure of every size limit on cells. */
export const cellBytes = (value: unknown): number =>
  value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));

/** A byte count for people: `421 KB`, rounded up. */
export const kb = (bytes: number): string => `${Math.ceil(bytes / 1024)} KB`;
