/**
 * Kept orders: a listing that filters, sorts, groups or searches computes its order from every
 * record of the table; that order is kept (`entities/query-orders.ts`) so the next pages of the
 * same query read only the kept ids and their own records, not the table again, for as long as
 * nothing it was computed from has changed.
 *
 * What "the same query on the same data" means, decided here:
 * - the query (filter, sort, group, collapsed groups, search), the view (its manual order breaks
 *   ties), every field definition of the table (a changed choice order, number precision or type
 *   changes an order), the caller when the filter names "Me" (else every caller shares it), and,
 *   for a filter on relative dates (today, past week…), the minute: together hashed into the kept
 *   order's key;
 * - the data version of the table and of every table whose record titles the query uses (a link
 *   field filtered, sorted, grouped or searched on): the kept order's signature. Every write of a
 *   table's records moves its version in the same transaction (`db/data-versions.ts`), so a kept
 *   order is never used after a write it did not see. Of the table itself only the counters of
 *   the attributes the query reads count: an edit of other cells leaves the order kept.
 *
 * Not kept: the link-cell pickers and `selectedRecordIds` (they read other records' cells), which
 * are computed every time as before.
 */
import { createHash } from 'node:crypto';
import { counterOf, isCounter, WHOLE } from '#shared/db/data-versions.ts';
import { linkOptionsOf } from '#shared/fields/link-options.ts';
import { queryFieldIds } from '#shared/query/engine.ts';
import type { Query } from '#shared/query/query-types.ts';
import { rowAttributes } from '#shared/records/rows.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import type { ListParams } from './params.ts';
import type { ListPlan } from './resolve.ts';

/**
 * How far past the page an order is computed and kept: nine more pages of the same size, rounded
 * up to whole chunks (a first page of 100 keeps one chunk of 2,500 ids, about 50 write units; of
 * 1,000, ten thousand ids, about 200).
 */
export const LOOKAHEAD_PAGES = 9;

/** Whether a listing's order may be kept: the general path without pickers or selected records. */
export const isKeepable = (params: ListParams, plan: ListPlan): boolean =>
  !plan.viewOrderOnly &&
  !params.filterLinkCellCandidate &&
  !params.filterLinkCellSelected &&
  !params.selectedRecordIds;

export interface KeptOrderKey {
  /** The hash of everything besides the data that decides the order. */
  hash: string;
  /** The tables whose data versions sign it: the table itself first, then linked ones. */
  tables: string[];
  /**
   * The version counters of the table itself the order depends on: `v` and the buckets of the
   * attributes the query reads; undefined for all of them (a link to the table itself: its
   * titles are any record's primary cell). Linked tables count whole.
   */
  counters?: string[];
}

/** Whether a filter compares dates relative to now (its answer changes with time alone). */
const usesRelativeDates = (query: Query): boolean => JSON.stringify(query.filter ?? null).includes('"mode"');
/** Whether a filter may name the caller (`"Me"`, in any case): its answer depends on who asks. */
const namesCaller = (query: Query): boolean =>
  JSON.stringify(query.filter ?? null)
    .toLowerCase()
    .includes('"me"');

/** The key of a listing's kept order. Pure. */
export const keptOrderKey = (
  schema: TableSchema,
  plan: Pick<ListPlan, 'query' | 'view'>,
  userId: string,
  now: Date,
): KeptOrderKey => {
  const { filter, groupBy, sort, collapsedGroupIds, search } = plan.query;
  const used = queryFieldIds(plan.query);
  const foreign = schema.fields
    .filter((field) => field.type === 'link' && used.has(field.id))
    .map((field) => linkOptionsOf(field.options).foreignTableId);
  const linked = foreign.filter((tableId) => tableId && tableId !== schema.table.id);
  const selfLinked = foreign.includes(schema.table.id);
  const hash = createHash('sha256')
    .update(
      JSON.stringify({
        query: { filter, groupBy, sort, collapsedGroupIds, search },
        view: plan.view.id,
        fields: schema.fields,
        userId: namesCaller(plan.query) ? userId : null,
        minute: usesRelativeDates(plan.query) ? Math.floor(now.getTime() / 60_000) : null,
      }),
    )
    .digest('base64url')
    .slice(0, 27);
  // What the general path reads of each record (`rowAttributes`): the order depends on nothing else.
  const counters = selfLinked
    ? undefined
    : [WHOLE, ...new Set(rowAttributes(schema.fields, used).map(counterOf))];
  return { hash, tables: [schema.table.id, ...new Set(linked)], ...(counters ? { counters } : {}) };
};

/**
 * The signature of a kept order: per table of the key, the sum of the counters it depends on
 * (every counter only grows, so the sum moves whenever one of them does). Pure.
 */
export const signatureOf = (
  key: KeptOrderKey,
  versions: ReadonlyMap<string, ReadonlyMap<string, number>>,
): string =>
  key.tables
    .map((tableId, i) => {
      const counters = versions.get(tableId) ?? new Map<string, number>();
      const wanted = i === 0 ? key.counters : undefined;
      let sum = 0;
      for (const [name, value] of counters)
        if (isCounter(name) && (!wanted || wanted.includes(name))) sum += value;
      return `${tableId}:${sum}`;
    })
    .join(',');
