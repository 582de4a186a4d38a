/**
 * The in-memory query engine (contract `listing.md` sections 2–5, 8). Pure: no AWS import.
 *
 * `runQuery` takes every row of the table (with at least the attributes `queryFieldIds` names)
 * and answers the page's record ids, the total and the `extra` of the listing:
 * filter → search (hiding rows without a hit when asked) → order (group keys, then the sort items
 * on other fields, then the manual order, autoNumber, id) → group points and collapse → total →
 * page → search hits of the page.
 *
 * Only as much is sorted as the answer needs: keys are computed only for rows that pass the filter
 * and the search; group points come from the ordered distinct group tuples (`groups.ts`), not from
 * sorting rows; the page is taken with a bounded heap when it lies near the start
 * (`sortedWindow`), and with grouping only the rows of the groups it overlaps are ordered.
 */

import type { StoredCell } from '#shared/fields/field-types.ts';
import { compileFilter, filterFieldIds } from './filter.ts';
import { buildGroupPoints, type GroupLevel, groupTuples, groupValueOf } from './groups.ts';
import type {
  Query,
  QueryContext,
  QueryResult,
  Row,
  SearchHit,
  SearchSpec,
  SortSpec,
} from './query-types.ts';
import { compileSearch, type SearchMatcher } from './search.ts';
import { compareIndexes, fieldOf, type OrderColumn, orderColumnOf, sortedWindow } from './sort.ts';

/** The fields the query reads (filter, group keys, sort items, search fields). */
export const queryFieldIds = (query: Query): Set<string> => {
  const ids = filterFieldIds(query.filter ?? null);
  for (const spec of query.groupBy) ids.add(spec.fieldId);
  for (const spec of query.sort) ids.add(spec.fieldId);
  for (const id of query.search?.fieldIds ?? []) ids.add(id);
  return ids;
};

/** Group keys, then sort items on fields that are not group keys (first item per field wins). */
export const effectiveSort = (query: Pick<Query, 'groupBy' | 'sort'>): SortSpec[] => {
  const seen = new Set(query.groupBy.map((spec) => spec.fieldId));
  const specs: SortSpec[] = [...query.groupBy];
  for (const spec of query.sort) {
    if (seen.has(spec.fieldId)) continue;
    seen.add(spec.fieldId);
    specs.push(spec);
  }
  return specs;
};

/** Indexes 0..n-1. */
const range = (n: number): number[] => {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
};

/** Runs a query over all rows of a table (section 3–5 and 8); see the file comment. */
export const runQuery = (rows: readonly Row[], query: Query, ctx: QueryContext): QueryResult => {
  for (const spec of [...query.groupBy, ...query.sort]) fieldOf(spec.fieldId, ctx);
  const matchesFilter = query.filter ? compileFilter(query.filter, ctx) : undefined;
  const search = query.search ? compileSearch(query.search, ctx) : undefined;
  const hide = search !== undefined && query.search?.hide === true;

  const specs = effectiveSort(query);
  // one pass over the rows: filter, search, and the cells the order needs, read while the row's
  // object is in the CPU cache (reading cells out of 100,000 row objects is the costly part)
  const ids = [...new Set(specs.map((spec) => spec.fieldId))];
  const k = ids.length;
  const arrays = ids.map(() => [] as (StoredCell | undefined)[]);
  const kept: Row[] = [];
  for (const row of rows) {
    if (matchesFilter && !matchesFilter(row)) continue;
    if (hide && !search.matches(row)) continue;
    kept.push(row);
    const rowCells = row.cells;
    for (let j = 0; j < k; j++) (arrays[j] as (StoredCell | undefined)[]).push(rowCells[ids[j] as string]);
  }
  const cells: CellColumns = new Map(ids.map((id, j) => [id, arrays[j] as (StoredCell | undefined)[]]));

  const from = query.skip;
  const to = query.skip + query.take;
  let page: Row[];
  let total: number;
  let groupPoints: QueryResult['groupPoints'] = null;
  let allGroupHeaderRefs: QueryResult['allGroupHeaderRefs'];

  if (query.groupBy.length === 0) {
    const compare = compareIndexes(
      kept,
      specs.map((spec) => orderColumnOf(cells.get(spec.fieldId) ?? [], spec, ctx)),
    );
    page = sortedWindow(range(kept.length), compare, from, to).map((i) => kept[i] as Row);
    total = kept.length;
  } else {
    ({ page, total, groupPoints, allGroupHeaderRefs } = groupAndPage(
      kept,
      cells,
      query,
      specs,
      ctx,
      from,
      to,
    ));
  }

  const hits = search ? hitsOf(page, search) : [];
  const searchHitIndex = hits.length > 0 ? hits : null;
  return {
    ids: page.map((row) => row.id),
    total,
    groupPoints,
    ...(allGroupHeaderRefs ? { allGroupHeaderRefs } : {}),
    searchHitIndex,
  };
};

const hitsOf = (rows: readonly Row[], search: SearchMatcher): SearchHit[] => {
  const hits: SearchHit[] = [];
  for (const row of rows)
    for (const fieldId of search.hitFieldIds(row)) hits.push({ recordId: row.id, fieldId });
  return hits;
};

/** The search hits of some rows (a page whose order was computed before), in row order. */
export const searchHits = (rows: readonly Row[], spec: SearchSpec, ctx: QueryContext): SearchHit[] => {
  const search = compileSearch(spec, ctx);
  return search ? hitsOf(rows, search) : [];
};

type CellColumns = ReadonlyMap<string, readonly (StoredCell | undefined)[]>;

/** The columns restricted to the rows at `indexes`. */
const pick = (columns: CellColumns, indexes: readonly number[]): CellColumns =>
  new Map([...columns].map(([id, cells]) => [id, indexes.map((i) => cells[i])]));

/** The group levels of the rows and each level's sort column (group text as the last tiebreak). */
const groupLevels = (cells: CellColumns, groupBy: readonly SortSpec[], ctx: QueryContext) => {
  const levels: GroupLevel[] = [];
  const columns: OrderColumn[] = [];
  for (const spec of groupBy) {
    const groupValue = groupValueOf(fieldOf(spec.fieldId, ctx), ctx);
    const fieldCells = cells.get(spec.fieldId) ?? [];
    const texts = fieldCells.map((cell) => groupValue.text(cell));
    const column = orderColumnOf(fieldCells, spec, ctx);
    column.d = texts.map((t) => t ?? '');
    columns.push(column);
    levels.push({ fieldId: spec.fieldId, texts, value: (i) => groupValue.value(fieldCells[i]) });
  }
  return { levels, columns };
};

/**
 * Group points over all rows, then the page: only the rows of the tuples that the page overlaps
 * are sorted (by tuple, then the full order), and of those only as far as the page reaches.
 */
const groupAndPage = (
  kept: readonly Row[],
  cells: CellColumns,
  query: Query,
  specs: readonly SortSpec[],
  ctx: QueryContext,
  from: number,
  to: number,
) => {
  const groupCount = query.groupBy.length;
  const { levels, columns } = groupLevels(cells, query.groupBy, ctx);
  const { tupleOf, reps, counts } = groupTuples(
    kept.length,
    levels,
    columns.map((column) => compareIndexes(kept, [column])),
  );
  const walk = buildGroupPoints(reps, counts, levels, new Set(query.collapsedGroupIds));

  // the visible tuples the page overlaps, and how many visible rows come before the first of them
  let total = 0;
  let before = 0;
  const wanted = new Uint8Array(reps.length);
  let anyWanted = false;
  for (let t = 0; t < reps.length; t++) {
    if (!walk.visible[t]) continue;
    const count = counts[t] as number;
    if (total + count > from && total < to) {
      if (!anyWanted) before = total;
      wanted[t] = 1;
      anyWanted = true;
    }
    total += count;
  }
  let page: Row[] = [];
  if (anyWanted) {
    const indexes: number[] = [];
    for (let i = 0; i < kept.length; i++) if (wanted[tupleOf[i] as number]) indexes.push(i);
    const sub = indexes.map((i) => kept[i] as Row);
    const subCells = pick(cells, indexes);
    const subColumns: OrderColumn[] = [
      { num: Float64Array.from(indexes, (i) => tupleOf[i] as number), dir: 1 } as OrderColumn,
      ...groupLevels(subCells, query.groupBy, ctx).columns,
      ...specs.slice(groupCount).map((spec) => orderColumnOf(subCells.get(spec.fieldId) ?? [], spec, ctx)),
    ];
    page = sortedWindow(range(sub.length), compareIndexes(sub, subColumns), from - before, to - before).map(
      (i) => sub[i] as Row,
    );
  }
  return { page, total, groupPoints: walk.groupPoints, allGroupHeaderRefs: walk.allGroupHeaderRefs };
};
