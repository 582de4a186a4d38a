/**
 * Grid selections (teable-routes.md "Selection"): `ranges` over the view's visible fields (the
 * columns, in column order, or the `projection`) and the records the list answers for the query
 * (the rows, in list order). A range is two corners of a block, or with `type=rows`/`columns`
 * each pair a first and last row/column. The routes read ids, copy cells as text, clear cells
 * and delete records.
 */
import { ValidationError } from '#shared/core/errors.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { linkTitlesFor } from '#shared/records/links.ts';
import { cellOf, renderCell } from '#shared/records/model.ts';
import { readRecords } from '#shared/records/rows.ts';
import type { TableSchema, View } from '#shared/schema/schema.ts';
import { allMatching, type ListContext } from './list.ts';
import type { ListParams } from './params.ts';
import { planListing, viewFieldIds } from './resolve.ts';

export type RangeType = 'rows' | 'columns' | undefined;

/** `ranges` as given: JSON text (a query) or a value (a body); a list of `[col, row]` pairs. */
export const readRanges = (raw: unknown): [number, number][] => {
  let value = raw;
  if (Array.isArray(raw) && raw.length === 1 && typeof raw[0] === 'string') value = raw[0];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ValidationError('ranges: not valid JSON');
    }
  }
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= 1000 &&
    value.every(
      (p) => Array.isArray(p) && p.length === 2 && p.every((n) => Number.isInteger(n) && (n as number) >= 0),
    );
  if (!ok) throw new ValidationError('ranges: must be pairs of [column, row] with whole numbers ≥ 0');
  return value as [number, number][];
};

export const readRangeType = (raw: unknown): RangeType => {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || v === null || v === '') return undefined;
  if (v === 'rows' || v === 'columns') return v;
  throw new ValidationError('type: must be "rows" or "columns"');
};

/** The selection's columns (fields) and rows (record ids), in grid order. */
export interface Grid {
  columns: Field[];
  rows: string[];
}

/** The grid's columns: the `projection` in its order, else the view's visible fields. */
const columnsOf = (schema: TableSchema, params: ListParams, view: View): Field[] => {
  const ids = params.projection?.length
    ? params.projection
    : viewFieldIds(schema, view, params.ignoreViewQuery);
  return ids
    .map((id) => schema.fields.find((f) => f.id === id || f.name === id))
    .filter((f): f is Field => f !== undefined);
};

/** The grid a selection's ranges index: columns and the list's records, in order. */
export const gridOf = async (ctx: ListContext, params: ListParams): Promise<Grid> => {
  const { result, plan } = await allMatching(ctx, params);
  return { columns: columnsOf(ctx.schema, params, plan.view), rows: result.ids };
};

/** The grid's columns alone (no record is read); an unknown view is a 404. */
export const gridColumns = (schema: TableSchema, params: ListParams): Field[] =>
  columnsOf(schema, params, planListing(schema, params).view);

/** The covered column and row indexes of the ranges (clamped to the grid). */
const covered = (grid: Grid, ranges: [number, number][], type: RangeType) => {
  const cols = new Set<number>();
  const rows = new Set<number>();
  const span = (a: number, b: number, max: number, into: Set<number>) => {
    for (let i = Math.min(a, b); i <= Math.min(Math.max(a, b), max - 1); i++) into.add(i);
  };
  if (type === 'rows' || type === 'columns') {
    // each pair is a first and last row (or column); the other axis is covered whole
    for (const [a, b] of ranges)
      span(a, b, type === 'rows' ? grid.rows.length : grid.columns.length, type === 'rows' ? rows : cols);
    if (type === 'rows') span(0, grid.columns.length - 1, grid.columns.length, cols);
    else span(0, grid.rows.length - 1, grid.rows.length, rows);
  } else {
    if (ranges.length % 2 !== 0) throw new ValidationError('ranges: a block needs two corners per range');
    for (let i = 0; i < ranges.length; i += 2) {
      const [c1, r1] = ranges[i] as [number, number];
      const [c2, r2] = ranges[i + 1] as [number, number];
      span(c1, c2, grid.columns.length, cols);
      span(r1, r2, grid.rows.length, rows);
    }
  }
  return {
    fields: [...cols].sort((a, b) => a - b).map((i) => grid.columns[i] as Field),
    recordIds: [...rows].sort((a, b) => a - b).map((i) => grid.rows[i] as string),
  };
};

/** The ids the ranges cover. */
export const rangeToIds = async (
  ctx: ListContext,
  params: ListParams,
  ranges: [number, number][],
  type: RangeType,
  returnType: 'recordId' | 'fieldId' | 'all',
) => {
  const { fields, recordIds } = covered(await gridOf(ctx, params), ranges, type);
  return {
    ...(returnType !== 'fieldId' ? { recordIds } : {}),
    ...(returnType !== 'recordId' ? { fieldIds: fields.map((f) => f.id) } : {}),
  };
};

/** A cell's text as spreadsheets quote it in tab-separated lines. */
const quoted = (text: string): string => (/[\t\n\r"]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** The covered cells as tab-separated lines of their text, and the covered fields. */
export const copySelection = async (
  ctx: ListContext,
  params: ListParams,
  ranges: [number, number][],
  type: RangeType,
) => {
  const { schema } = ctx;
  const { fields, recordIds } = covered(await gridOf(ctx, params), ranges, type);
  const items = await readRecords(schema.table.id, recordIds);
  const byId = new Map(items.map((i) => [i.id, i]));
  const titles = await linkTitlesFor(schema, items);
  const lines = recordIds.map((id) => {
    const item = byId.get(id);
    return fields
      .map((f) => {
        const value = item ? cellOf(item, f) : undefined;
        return quoted(value === undefined ? '' : String(renderCell(value, f, 'text', titles) ?? ''));
      })
      .join('\t');
  });
  return { content: lines.join('\n'), header: fields };
};

/** The covered records and their covered fields that hold values a write may change. */
export const clearTargets = async (
  ctx: ListContext,
  params: ListParams,
  ranges: [number, number][],
  type: RangeType,
  schema: TableSchema,
) => {
  const { fields, recordIds } = covered(await gridOf(ctx, params), ranges, type);
  const writable = fields.filter((f) => !f.isComputed && !f.isLookup);
  return { recordIds, fieldIds: writable.map((f) => f.id), schema };
};

/** The covered records. */
export const selectedRecordIds = async (
  ctx: ListContext,
  params: ListParams,
  ranges: [number, number][],
  type: RangeType,
) => covered(await gridOf(ctx, params), ranges, type).recordIds;
