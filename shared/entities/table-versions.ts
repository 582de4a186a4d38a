import { bumpDataVersions, queryAll } from '#shared/db/client.ts';
import {
  deletionNoteOf,
  ENTRY_COUNT_PREFIX,
  isCounter,
  MAINTAINED_PREFIX,
} from '#shared/db/data-versions.ts';
import { keyOfItem, keys } from '#shared/db/keys.ts';
import { count } from './attributes.ts';

/**
 * The data-version counters of each table (`db/data-versions.ts`), the view indexes' counters
 * included: each summed over the shards, read strongly consistent, one query per table, all in
 * parallel.
 */
export const readDataVersions = async (
  tableIds: readonly string[],
): Promise<Map<string, Map<string, number>>> => {
  const sums = await Promise.all(
    tableIds.map(async (tableId) => {
      const counters = new Map<string, number>();
      for (const shard of await queryAll(keys.dataVersionsOf(tableId)))
        for (const [name, value] of Object.entries(shard))
          if (isCounter(name) || name.startsWith(MAINTAINED_PREFIX) || name.startsWith(ENTRY_COUNT_PREFIX))
            counters.set(name, (counters.get(name) ?? 0) + count(value));
      return [tableId, counters] as const;
    }),
  );
  return new Map(sums);
};

/**
 * The deletion note a stream record of a data-version shard carries (`db/data-versions.ts`
 * `DELETION_NOTE`): the table, the records its write deleted, the request, the user and the time
 * of the write; undefined for any other item or a write that deleted nothing. Pure.
 */
export const deletionNoteIn = (
  oldImage: Readonly<Record<string, unknown>> | undefined,
  newImage: Readonly<Record<string, unknown>> | undefined,
): { tableId: string; recordIds: string[]; tx?: string; by?: string; at?: string } | undefined => {
  const tableId = newImage && keys.tableOfDataVersionKey(keyOfItem(newImage));
  const note = tableId ? deletionNoteOf(oldImage, newImage) : undefined;
  if (!tableId || !note) return undefined;
  const { id: _id, ...rest } = note;
  return { tableId, ...rest };
};

/**
 * Moves the data version of tables after a write that was not one transaction (cells rewritten
 * one by one): called after its last record write.
 */
export const bumpTableVersions = (tableIds: Iterable<string>): Promise<void> => bumpDataVersions(tableIds);
