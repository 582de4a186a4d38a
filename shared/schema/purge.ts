import { type Budget, purgePartition, purgeTableItems } from '#shared/entities/purges.ts';

/**
 * Permanent deletes of the schema's data: the partitions themselves are the entity module's
 * (`entities/purges.ts`); a purge stops when its budget is spent and runs again from what is left.
 */
export type { Budget };
export { purgePartition };

/**
 * Deletes every item of a table for good (records, orders, indexes, claims, journals, answers,
 * schema, then the table item last). True when done, false when the budget ran out first. The
 * caller made the table invisible and removed the base's reference before.
 */
export const purgeTable = (tableId: string, budget?: Budget): Promise<boolean> =>
  purgeTableItems(tableId, budget);
