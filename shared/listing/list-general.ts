/**
 * The general path of a listing: the table's rows with the attributes the query needs (or the
 * selected records only), restricted by the link-cell pickers, through the query engine. It reads
 * every record, so its 503 says why (`noteSlowBecause`).
 */
import { noteSlowBecause } from '#shared/db/request-scope.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { queryFieldIds, runQuery } from '#shared/query/engine.ts';
import type { QueryResult, Row } from '#shared/query/query-types.ts';
import { linkTitlesFor } from '#shared/records/link-cells.ts';
import { rangesFor, readAllRecords, readRecordParts, rowAttributes, toRow } from '#shared/records/rows.ts';
import { type ListContext, queryContext } from './list-page.ts';
import type { ListParams } from './params.ts';
import {
  candidateFilter,
  candidateRule,
  findPickerLink,
  linkCellIds,
  linkedThroughColumn,
  type PickerLink,
} from './pickers.ts';
import type { ListPlan } from './resolve.ts';

/**
 * What the answer of a request that reads every record says should it run out of time
 * (`noteSlowBecause`, noted by `runGeneral`): in general, or for a view whose index this request
 * asked for.
 */
const COMPUTED_FROM_EVERY_RECORD =
  "It computes its answer from every record of the table, which at this table's size takes longer than the time limit allows. Record lists of a view's own filter, sort and group are served from the view's index at any size (built in the background once the view is saved).";
const INDEX_NOT_READY =
  "This view's index is not ready (its build was asked for now and runs in the background); until it is, the view's records are computed from every record of the table, which at this table's size takes longer than the time limit allows. Retry in a few minutes.";

/** The listings (by their context) that asked for their view's index. */
const askedForIndex = new WeakSet<ListContext>();

/** Notes that this listing asked for its view's index (its 503, if any, then says the index is not ready). */
export const noteIndexAsked = (ctx: ListContext): void => {
  askedForIndex.add(ctx);
};

/** Whether this listing asked for its view's index. */
export const indexAsked = (ctx: ListContext): boolean => askedForIndex.has(ctx);

/** Notes why this listing may run out of time (it reads every record), for its 503 to say. */
export const noteReadingEveryRecord = (ctx: ListContext): void =>
  noteSlowBecause(askedForIndex.has(ctx) ? INDEX_NOT_READY : COMPUTED_FROM_EVERY_RECORD);

/** The link field of a picker parameter, found and checked; undefined without one. */
export const pickerOf = (ctx: ListContext, params: ListParams): Promise<PickerLink | undefined> => {
  const ref = params.filterLinkCellCandidate ?? params.filterLinkCellSelected;
  const param = params.filterLinkCellCandidate ? 'filterLinkCellCandidate' : 'filterLinkCellSelected';
  return ref ? findPickerLink(ctx.schema, ref, param) : Promise.resolve(undefined);
};

/** A candidate picker's limits (the link's filter and filter view); the selected picker has none. */
export const pickerFilter = (ctx: ListContext, params: ListParams, link: PickerLink | undefined) =>
  link && params.filterLinkCellCandidate ? candidateFilter(ctx.schema, link) : null;

/** The general path: rows with the needed attributes, restricted by pickers, through the engine. */
export const runGeneral = async (
  ctx: ListContext,
  params: ListParams,
  plan: ListPlan,
  link: PickerLink | undefined,
  extra: ReadonlySet<string> = new Set(),
): Promise<{ result: QueryResult; rows: Map<string, Row> }> => {
  const { schema } = ctx;
  const tableId = schema.table.id;
  const queried = queryFieldIds(plan.query);
  const needed = new Set([...queried, ...extra]);
  if (link?.symmetricFieldId) needed.add(link.symmetricFieldId);
  const fields: Field[] = schema.fields.filter((f) => needed.has(f.id));
  const attrs = rowAttributes(schema.fields, needed);

  const candidate = params.filterLinkCellCandidate;
  const selectedLink = params.filterLinkCellSelected;
  const linkedAnywhere =
    link && !link.symmetricFieldId && (selectedLink || candidateRule(link).excludeLinkedAnywhere);
  // Only selected records: read just those. Otherwise the whole table, sliced.
  const onlySelected = params.selectedRecordIds && !candidate;
  if (!onlySelected) noteReadingEveryRecord(ctx);
  const [items, linkedSet, cell] = await Promise.all([
    onlySelected
      ? readRecordParts(tableId, [...new Set(params.selectedRecordIds)], attrs)
      : readAllRecords(tableId, attrs, rangesFor(schema.table.autoNumber)),
    linkedAnywhere && link ? linkedThroughColumn(link) : undefined,
    candidate?.recordId && link ? linkCellIds(link, candidate.recordId) : undefined,
  ]);

  let rows: Row[] = items.map((item) => toRow(item, fields, plan.view.id));
  if (link) {
    const isLinked = (row: Row) =>
      link.symmetricFieldId
        ? Array.isArray(row.cells[link.symmetricFieldId]) &&
          (row.cells[link.symmetricFieldId] as unknown[]).length > 0
        : (linkedSet?.has(row.id) ?? false);
    if (selectedLink) rows = rows.filter(isLinked);
    else {
      const exclude = new Set([...(cell ?? []), ...(params.selectedRecordIds ?? [])]);
      const anywhere = candidateRule(link).excludeLinkedAnywhere;
      rows = rows.filter((row) => !exclude.has(row.id) && !(anywhere && isLinked(row)));
    }
  }

  const linkFieldIds = new Set(fields.filter((f) => f.type === 'link' && queried.has(f.id)).map((f) => f.id));
  const titles = linkFieldIds.size ? await linkTitlesFor(schema, items, linkFieldIds) : undefined;
  const result = runQuery(rows, plan.query, queryContext(ctx, titles));
  return { result, rows: new Map(rows.map((row) => [row.id, row])) };
};
