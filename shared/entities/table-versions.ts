import { queryAll } from '#shared/db/client.ts';
import { ENTRY_COUNT_PREFIX, isCounter, MAINTAINED_PREFIX } from '#shared/db/data-versions.ts';
import { keys } from '#shared/db/keys.ts';
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
