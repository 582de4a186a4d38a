import type { Step } from '#shared/db/commit.ts';
import { queryRecords, type RecordItem } from '#shared/entities/records.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { propagate } from './propagate.ts';

/**
 * The steps that bring `fieldIds` (and what depends on them) up to date in every record of the
 * table, computed with `schema` (the schema as it will be once the change lands). Each record is
 * written on the condition that it did not change since it was read (a concurrent write fails
 * the whole change, which the caller retries); its version (ETag) moves, its lastModifiedTime
 * does not (nobody edited the record).
 */
export const recomputeSteps = async (
  schema: TableSchema,
  fieldIds: ReadonlySet<string>,
  now: Date,
): Promise<Step[]> => {
  if (fieldIds.size === 0) return [];
  const items = await queryRecords(schema.table.id);
  return recomputeItemSteps(schema, items, fieldIds, now);
};

/** `recomputeSteps` over records the caller has already read (every record of the table). */
export const recomputeItemSteps = async (
  schema: TableSchema,
  items: readonly RecordItem[],
  fieldIds: ReadonlySet<string>,
  now: Date,
): Promise<Step[]> => {
  const tableId = schema.table.id;
  const { steps } = await propagate(
    items.map((item) => ({
      tableId,
      item: structuredClone(item),
      original: item,
      own: false,
      changed: new Set<string>(),
      compute: fieldIds,
    })),
    now,
    new Map([[tableId, schema]]),
  );
  return steps;
};
