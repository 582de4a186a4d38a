/**
 * Turns the listing parameters and the table's schema into the engine's query (contract
 * `listing.md` sections 1–5): the view, its filter and sort (unless `ignoreViewQuery`), the
 * request's filter (or `filterByTql`), `orderBy`, `groupBy`, search fields and the projection.
 * Pure. Decisions: the view's own `group` does not group the listing (the contract names only the
 * view's filter, sort, manual order and hidden columns); `groupBy` does. A saved view filter
 * member that a later field change made invalid is dropped, not answered with a 400.
 */

import { ValidationError } from '#shared/core/errors.ts';
import { fieldByRef as fieldIn } from '#shared/fields/field-names.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { andFilters, resolveFilter } from '#shared/query/filter.ts';
import type { FilterGroup, Query, SortSpec } from '#shared/query/query-types.ts';
import { searchFieldIds } from '#shared/query/search.ts';
import { parseTql } from '#shared/query/tql.ts';
import { projectionOf } from '#shared/records/read.ts';
import { defaultView, type TableSchema, type View } from '#shared/schema/schema.ts';
import { completeColumnMeta, findView, MAX_GROUP_LEVELS, viewQueryOf } from '#shared/schema/views.ts';
import type { ListParams } from './params.ts';

/** What the listing does, decided from the parameters before any record is read. */
export interface ListPlan {
  view: View;
  query: Query;
  /** Field ids answered per record; undefined means every field. */
  projection?: ReadonlySet<string>;
  /**
   * True when the answer is simply the view's order (no filter, sort, group or search from the
   * request or the view): the index walk serves it.
   */
  viewOrderOnly: boolean;
}

/** `orderBy` / `groupBy` items: field ids or names, `asc` / `desc`; unknown fields are a 400. */
export const resolveSortItems = (raw: unknown, fields: readonly Field[], param: string): SortSpec[] => {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ValidationError(`${param}: must be a list of {fieldId, order}`);
  if (raw.length > 50) throw new ValidationError(`${param}: at most 50 items`);
  return raw.map((item, i) => {
    const s = item as { fieldId?: unknown; order?: unknown } | null;
    if (!s || typeof s !== 'object' || typeof s.fieldId !== 'string')
      throw new ValidationError(`${param}.${i}.fieldId: must be a field id or name`);
    const order = s.order ?? 'asc';
    if (order !== 'asc' && order !== 'desc')
      throw new ValidationError(`${param}.${i}.order: must be "asc" or "desc"`);
    const field = fieldIn(fields, s.fieldId);
    if (!field)
      throw new ValidationError(`${param}.${i}.fieldId: field ${JSON.stringify(s.fieldId)} not found`);
    return { fieldId: field.id, order };
  });
};

/** The view's fields in column order, hidden ones left out unless `withHidden`. Pure. */
export const viewFieldIds = (schema: TableSchema, view: View, withHidden: boolean): string[] => {
  const meta = completeColumnMeta(view.columnMeta, schema.fields);
  return schema.fields
    .filter((f) => withHidden || !meta[f.id]?.hidden)
    .sort((a, b) => (meta[a.id]?.order ?? 0) - (meta[b.id]?.order ?? 0))
    .map((f) => f.id);
};

/** Builds the listing plan; every bad parameter is a 400 naming it, an unknown view a 404. */
export const planListing = (
  schema: TableSchema,
  params: ListParams,
  /** A filter the caller adds (a link picker's limits), AND-ed with the view's and the request's. */
  extraFilter: FilterGroup | null = null,
): ListPlan => {
  const view = params.viewId ? findView(schema, params.viewId) : defaultView(schema);
  const useView = !params.ignoreViewQuery;
  const fields = schema.fields;

  const requested = projectionOf(schema, params.projection, params.fieldKeyType);
  const columns = viewFieldIds(schema, view, !useView);
  const projection = requested ?? (columns.length < fields.length ? new Set(columns) : undefined);
  const visible = requested ? columns.filter((id) => requested.has(id)) : columns;

  const requestFilter: FilterGroup | null =
    params.filterByTql !== undefined
      ? parseTql(params.filterByTql, fields)
      : resolveFilter(params.filter, fields, 'filter');
  const own = useView ? viewQueryOf(fields, view) : { filter: null, sort: [] };
  const filter = andFilters(own.filter, requestFilter, extraFilter);

  const orderBy = resolveSortItems(params.orderBy, fields, 'orderBy');
  const groupBy = resolveSortItems(params.groupBy, fields, 'groupBy');
  if (groupBy.length > MAX_GROUP_LEVELS)
    throw new ValidationError(`groupBy: at most ${MAX_GROUP_LEVELS} items`);
  const named = new Set(orderBy.map((s) => s.fieldId));
  const sort = [...orderBy, ...own.sort.filter((s) => !named.has(s.fieldId))];

  const search = params.search
    ? {
        value: params.search.value,
        fieldIds: searchFieldIds(params.search.fields, fields, visible),
        hide: params.search.hide,
      }
    : null;

  const query: Query = {
    filter,
    groupBy,
    sort,
    collapsedGroupIds: params.collapsedGroupIds,
    search,
    skip: params.skip,
    take: params.take,
  };
  const viewOrderOnly =
    !filter &&
    sort.length === 0 &&
    groupBy.length === 0 &&
    !search &&
    !params.selectedRecordIds &&
    !params.filterLinkCellCandidate &&
    !params.filterLinkCellSelected;
  return { view, query, projection, viewOrderOnly };
};
