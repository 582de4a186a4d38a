/**
 * Fast seeding of large tables for benchmarks and size tests: record items and their
 * default-order index entries are built with the write path's own builders
 * (`shared/records/model.ts` `newRecordItem`, `recordNumberItem`) and written with BatchWriteItem
 * (25 items a call, many calls in parallel), after reserving the autoNumbers on the table's counter
 * (`allocateAutoNumbers`), so later creates continue after them; the table's record count is
 * added to as a create adds to it. It skips what the record routes
 * add per write (validation, links, unique claims, journals, idempotency): seed only tables
 * without link or unique fields.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { transact, writeItems } from '#shared/db/client.ts';
import { recordCountOp } from '#shared/entities/record-counts.ts';
import { newRecordItem, recordNumberItem } from '#shared/entities/records.ts';
import type { StoredCell, UserRef } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import { allocateAutoNumbers } from '#shared/records/context.ts';

/** Writes `count` records whose cells come from `cellsOf(i)` (by field id); answers their ids in order. */
export const seedRecords = async (
  tableId: string,
  count: number,
  cellsOf: (i: number) => Record<string, StoredCell>,
  options: { user?: UserRef; chunk?: number; parallel?: number } = {},
): Promise<string[]> => {
  const user = options.user ?? { id: 'usrSeed0000000000000', title: 'Seed', email: 'seed@example.com' };
  const chunk = options.chunk ?? 5000;
  const ids: string[] = [];
  const now = new Date().toISOString();
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    const first = await allocateAutoNumbers(tableId, n);
    const writes: { put: Record<string, unknown> }[] = [];
    for (let k = 0; k < n; k++) {
      const id = newId('record');
      const autoNumber = first + k;
      ids.push(id);
      const cells = new Map(Object.entries(cellsOf(start + k)));
      writes.push({ put: newRecordItem(tableId, { id, autoNumber, cells, user, now }) });
      writes.push({ put: recordNumberItem(tableId, autoNumber, id) });
    }
    await writeItems(writes, options.parallel ?? 16);
    // the table's record count follows, as a create's does
    await transact([recordCountOp(tableId, n)], () => new ConflictError('record count'));
  }
  return ids;
};
