/**
 * The in-memory query engine's model (contract `listing.md` sections 2–5). Pure: no AWS import.
 * The listing route loads rows (only the attributes the query needs), hands them to `runQuery`
 * (`engine.ts`) and fetches the full records of the page it answers.
 */
import type { Field, StoredCell } from '#shared/fields/field-types.ts';

/** One record as the engine sees it. */
export interface Row {
  id: string;
  autoNumber: number;
  /**
   * The record's key in the view's manual order (`placement.ts` `effectiveKey`): its own key where
   * placed, else the default key of its autoNumber. Compared as plain text; absent → autoNumber.
   */
  orderKey?: string;
  /** Cells by field id, system fields included (`cellOf`); empty cells are absent/undefined. */
  cells: Record<string, StoredCell | undefined>;
}

/** A filter as validated by `filter.ts` (field references resolved to ids). */
export interface FilterGroup {
  conjunction: 'and' | 'or';
  filterSet: (FilterItem | FilterGroup)[];
}

export type FilterScalar = string | number | boolean;

export interface DateValue {
  mode: string;
  numberOfDays?: number;
  exactDate?: string;
  timeZone: string;
}

export type FilterValue = null | FilterScalar | FilterScalar[] | DateValue;

export interface FilterItem {
  fieldId: string;
  operator: string;
  value: FilterValue;
  isSymbol?: boolean;
}

export interface SortSpec {
  fieldId: string;
  order: 'asc' | 'desc';
}

export interface SearchSpec {
  value: string;
  /** Field ids to search, in search-field order (already resolved from names / defaults). */
  fieldIds: string[];
  /** Keep only records with a hit. */
  hide: boolean;
}

/** What evaluating needs besides the rows. */
export interface QueryContext {
  /** Every field of the table, by id. */
  fields: ReadonlyMap<string, Field>;
  /** The calling user (`"Me"` in user filters). */
  userId: string;
  /** "Now" for date modes (today, pastWeek…). */
  now: Date;
  /** Title of a linked record (the foreign primary field as text); undefined when unknown. */
  linkTitle: (fieldId: string, recordId: string) => string | undefined;
}

export interface Query {
  /** The combined filter (view AND request), or none. */
  filter?: FilterGroup | null;
  /** At most 3 group keys; they sort first. */
  groupBy: SortSpec[];
  /** `orderBy` items then the view's sort items on fields not already named (group keys excluded by the engine). */
  sort: SortSpec[];
  /** Header ids whose content (sub-headers, counts, records) is hidden. */
  collapsedGroupIds: readonly string[];
  search?: SearchSpec | null;
  skip: number;
  take: number;
}

export interface GroupHeader {
  id: string;
  type: 0;
  depth: number;
  value: unknown;
  isCollapsed: boolean;
}
export interface GroupCount {
  type: 1;
  count: number;
}
export type GroupPoint = GroupHeader | GroupCount;
export interface HeaderRef {
  id: string;
  depth: number;
}

export interface SearchHit {
  recordId: string;
  fieldId: string;
}

export interface QueryResult {
  /** The page's record ids in answer order. */
  ids: string[];
  /** Records matching filter, search (when hiding) and not collapsed, before paging. */
  total: number;
  groupPoints: GroupPoint[] | null;
  allGroupHeaderRefs?: HeaderRef[];
  searchHitIndex: SearchHit[] | null;
}
