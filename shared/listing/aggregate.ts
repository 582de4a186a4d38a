/**
 * The aggregation routes (contract `teable-routes.md`, Aggregation): row count, column
 * statistics (whole and per group), group points, search count and search index, calendar day
 * counts. Each reads the records the listing would answer with the same parameters (view,
 * filter, search, groupBy), on all pages (`allMatching`), and measures them; an unnarrowed row
 * count reads the table's record counter instead.
 */
import { ValidationError } from '#shared/core/errors.ts';
import { canonicalTimeZone, wallClockAt } from '#shared/core/format.ts';
import { readRecordCount } from '#shared/entities/record-counts.ts';
import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import type { GroupPoint, Row } from '#shared/query/query-types.ts';
import {
  allowedStatistics,
  STATISTIC_FUNCS,
  type StatisticFunc,
  statistic,
} from '#shared/query/statistics.ts';
import { renderRecords } from '#shared/records/read.ts';
import { readRecords } from '#shared/records/rows.ts';
import { fieldByRef, type TableSchema } from '#shared/schema/schema.ts';
import { completeColumnMeta } from '#shared/schema/views.ts';
import { allMatching, type ListContext, matchingSummary } from './list.ts';
import type { ListParams } from './params.ts';
import { planListing } from './resolve.ts';

/**
 * Records the list would answer with these parameters, all pages. When nothing narrows the list
 * (no filter of the view or the request, no hiding search, no picker or selection), this is the
 * table's record count, read from the counter the writes keep: O(1) whatever the table's size.
 * Else the count of a kept order of the same query while the data is unchanged (`kept-orders.ts`),
 * or computed from the table.
 */
export const rowCount = async (ctx: ListContext, params: ListParams): Promise<number> => {
  const { query } = planListing(ctx.schema, params);
  const narrowed =
    query.filter !== null ||
    query.search?.hide === true ||
    params.selectedRecordIds !== undefined ||
    params.filterLinkCellCandidate !== undefined ||
    params.filterLinkCellSelected !== undefined;
  const counted = narrowed ? undefined : await readRecordCount(ctx.schema.table.id);
  return counted ?? (await matchingSummary(ctx, params, false)).total;
};

/** The group points the list would answer (null without `groupBy`). */
export const groupPointsOf = async (ctx: ListContext, params: ListParams): Promise<GroupPoint[] | null> =>
  (await matchingSummary(ctx, params)).groupPoints;

/** Matching cells of a search (not records). */
export const searchCount = async (ctx: ListContext, params: ListParams): Promise<number> => {
  if (!params.search) throw new ValidationError('search: required');
  return (await allMatching(ctx, params)).result.searchHitIndex?.length ?? 0;
};

/**
 * The search hits in list order, `index` the 1-based position of the hit's record in the list.
 * `skip` and `take` page the records that hold a hit (decision: the reference leaves it open).
 */
export const searchIndex = async (
  ctx: ListContext,
  params: ListParams,
): Promise<{ index: number; fieldId: string; recordId: string }[] | null> => {
  if (!params.search) throw new ValidationError('search: required');
  const { result } = await allMatching(ctx, { ...params, collapsedGroupIds: [] });
  const position = new Map(result.ids.map((id, i) => [id, i + 1]));
  const hits = result.searchHitIndex ?? [];
  const holders = [...new Set(hits.map((h) => h.recordId))].slice(params.skip, params.skip + params.take);
  const wanted = new Set(holders);
  const out = hits
    .filter((h) => wanted.has(h.recordId))
    .map((h) => ({ index: position.get(h.recordId) ?? 0, fieldId: h.fieldId, recordId: h.recordId }));
  return out.length ? out : null;
};

/** Which statistics to compute: `field[<func>][]=<field>` pairs, else the view's column meta. */
export type FieldFuncs = { func: StatisticFunc; fieldId: string }[];

/** Reads `field[<func>]` keys of a parsed query (also `field` as JSON text). */
export const readFieldFuncs = (
  query: Record<string, unknown>,
  schema: TableSchema,
): FieldFuncs | undefined => {
  const pairs: [string, unknown][] = [];
  for (const [key, value] of Object.entries(query)) {
    const bracket = /^field\[([A-Za-z]+)\]$/.exec(key);
    if (bracket) pairs.push([bracket[1] as string, value]);
  }
  if (typeof query.field === 'string' && query.field.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(query.field);
    } catch {
      throw new ValidationError('field: not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new ValidationError('field: must map a statistic function to field ids');
    pairs.push(...Object.entries(parsed));
  }
  if (pairs.length === 0) return undefined;
  return pairs.flatMap(([func, value]) => {
    if (!STATISTIC_FUNCS.includes(func as StatisticFunc))
      throw new ValidationError(
        `field: unknown statistic function "${func}"; expected one of ${STATISTIC_FUNCS.join(', ')}`,
      );
    const refs = Array.isArray(value) ? value : [value];
    return refs.map((ref) => {
      const field = typeof ref === 'string' ? fieldByRef(schema, ref) : undefined;
      if (!field) throw new ValidationError(`field[${func}]: field ${JSON.stringify(ref)} not found`);
      return { func: func as StatisticFunc, fieldId: field.id };
    });
  });
};

/** The view's own statistics: the `statisticFunc` of each column that has one. */
const viewFuncs = (schema: TableSchema, viewId: string | undefined): FieldFuncs => {
  const view = schema.views.find((v) => v.id === viewId) ?? schema.views[0];
  if (!view) return [];
  const meta = completeColumnMeta(view.columnMeta, schema.fields) as Record<
    string,
    { statisticFunc?: unknown }
  >;
  return schema.fields.flatMap((f) => {
    const func = meta[f.id]?.statisticFunc;
    return typeof func === 'string' && STATISTIC_FUNCS.includes(func as StatisticFunc)
      ? [{ func: func as StatisticFunc, fieldId: f.id }]
      : [];
  });
};

/** The record ids under each group header, from the list order and its group points. */
const idsByGroup = (ids: readonly string[], points: readonly GroupPoint[]): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  const open: { id: string; depth: number }[] = [];
  let next = 0;
  for (const point of points) {
    if (point.type === 0) {
      while (open.length && (open[open.length - 1] as { depth: number }).depth >= point.depth) open.pop();
      open.push({ id: point.id, depth: point.depth });
      out.set(point.id, []);
    } else {
      const rows = ids.slice(next, next + point.count);
      next += point.count;
      for (const header of open) out.get(header.id)?.push(...rows);
    }
  }
  return out;
};

interface StatisticOut {
  value: number | string | null;
  aggFunc: StatisticFunc;
}

/**
 * Column statistics of the records the list would answer: per requested (or view) function and
 * field, the total and, with `groupBy`, per group header id. A function a field does not allow
 * is a 400 listing the allowed ones.
 */
export const aggregations = async (
  ctx: ListContext,
  params: ListParams,
  requested: FieldFuncs | undefined,
): Promise<{ fieldId: string; total: StatisticOut | null; group?: Record<string, StatisticOut> }[]> => {
  const { schema } = ctx;
  const wanted = requested ?? viewFuncs(schema, params.viewId);
  for (const { func, fieldId } of wanted) {
    const field = schema.fields.find((f) => f.id === fieldId) as Field;
    const allowed = allowedStatistics(field);
    if (!allowed.includes(func))
      throw new ValidationError(
        `field[${func}]: not a statistic of field "${field.name}" (${field.type}); allowed: ${allowed.join(', ')}`,
      );
  }
  if (wanted.length === 0) return [];
  const { result, rows } = await allMatching(ctx, params, new Set(wanted.map((w) => w.fieldId)));
  const column = (fieldId: string, ids: readonly string[]): (StoredCell | undefined)[] => {
    const field = schema.fields.find((f) => f.id === fieldId) as Field;
    return ids.map((id) => cellOfRow(rows.get(id), field));
  };
  const groups = result.groupPoints ? idsByGroup(result.ids, result.groupPoints) : undefined;
  return wanted.map(({ func, fieldId }) => ({
    fieldId,
    total: { value: statistic(func, column(fieldId, result.ids)), aggFunc: func },
    ...(groups
      ? {
          group: Object.fromEntries(
            [...groups].map(([groupId, ids]) => [
              groupId,
              { value: statistic(func, column(fieldId, ids)), aggFunc: func },
            ]),
          ),
        }
      : {}),
  }));
};

/** A row's cell of a field (rows carry every cell by field id, system fields included). */
const cellOfRow = (row: Row | undefined, field: Field): StoredCell | undefined => row?.cells[field.id];

/** The calendar window and its date fields. */
export interface CalendarWindow {
  startDate: string;
  endDate: string;
  startDateFieldId: string;
  endDateFieldId: string;
  timeZone?: string;
}

const dateField = (schema: TableSchema, ref: string, name: string): Field => {
  const field = fieldByRef(schema, ref);
  if (!field) throw new ValidationError(`${name}: field ${JSON.stringify(ref)} not found`);
  if (field.cellValueType !== 'dateTime' || field.isMultipleCellValue)
    throw new ValidationError(`${name}: field "${field.name}" is not a date field`);
  return field;
};

const instant = (text: string, name: string): number => {
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new ValidationError(`${name}: not a date`);
  return t;
};

/** `YYYY-MM-DD` of an instant in a zone. */
const dayOf = (ms: number, zone: string): string => {
  const w = wallClockAt(ms, zone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
};

const DAY_MS = 86_400_000;
const MAX_DAYS = 400;

/**
 * Records whose span [start, end] (end absent: the start) meets the window, and per day of the
 * window (in `timeZone`, UTC by default) how many records' spans cover it.
 */
export const calendarDailyCollection = async (
  ctx: ListContext,
  params: ListParams,
  window: CalendarWindow,
) => {
  const { schema } = ctx;
  const start = dateField(schema, window.startDateFieldId, 'startDateFieldId');
  const end = dateField(schema, window.endDateFieldId, 'endDateFieldId');
  const from = instant(window.startDate, 'startDate');
  const to = instant(window.endDate, 'endDate');
  if (to < from) throw new ValidationError('endDate: before startDate');
  if (to - from > MAX_DAYS * DAY_MS)
    throw new ValidationError(`the window may span at most ${MAX_DAYS} days`);
  const zone = window.timeZone ? canonicalTimeZone(window.timeZone) : 'UTC';
  if (!zone) throw new ValidationError(`timeZone: "${window.timeZone}" is not an IANA time zone`);
  const { result, rows } = await allMatching(ctx, params, new Set([start.id, end.id]));
  const countMap: Record<string, number> = {};
  const hit: string[] = [];
  for (const id of result.ids) {
    const row = rows.get(id);
    const s = cellOfRow(row, start);
    if (typeof s !== 'string') continue;
    const e = cellOfRow(row, end);
    const a = Date.parse(s);
    const b = typeof e === 'string' ? Math.max(a, Date.parse(e)) : a;
    if (b < from || a > to) continue;
    hit.push(id);
    for (let t = Math.max(a, from); t <= Math.min(b, to); t += DAY_MS) {
      const day = dayOf(t, zone);
      countMap[day] = (countMap[day] ?? 0) + 1;
    }
    const last = dayOf(Math.min(b, to), zone);
    if (countMap[last] === undefined) countMap[last] = 1;
  }
  const items = await readRecords(schema.table.id, hit);
  const records = await renderRecords(schema, items, {
    keyType: params.fieldKeyType,
    cellFormat: params.cellFormat,
    canUpdate: ctx.canUpdate,
    canDelete: ctx.canDelete,
  });
  return { countMap, records };
};
