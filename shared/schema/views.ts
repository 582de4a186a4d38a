import type { Principal } from '#shared/auth/permission.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import { commitSteps, type Step, type TransactOp, transact } from '#shared/db/commit.ts';
import { purgeViewPartitions } from '#shared/entities/purges.ts';
import { createViewOp, deleteViewOp, putViewOp, replaceViewOp } from '#shared/entities/schema-items.ts';
import { viewIndexBookkeepingDeletes } from '#shared/entities/view-indexes.ts';
import { fieldByRef } from '#shared/fields/field-names.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import { andFilters, resolveFilter } from '#shared/query/filter.ts';
import type { FilterGroup } from '#shared/query/query-types.ts';
import {
  bumpSchemaOp,
  type ColumnMeta,
  type SortItem,
  type TableSchema,
  type View,
  type ViewType,
} from './schema.ts';
import { checkViewOptions } from './view-options.ts';

/** What a caller may set on a view (create and update). */
export interface ViewInput {
  type?: ViewType;
  name?: string;
  filter?: unknown | null;
  sort?: { sortObjs: SortItem[]; manualSort?: boolean } | null;
  group?: SortItem[] | null;
  columnMeta?: Record<string, Partial<ColumnMeta>>;
  options?: Record<string, unknown>;
  description?: string;
  isLocked?: boolean;
}

const DEFAULT_VIEW_NAME: Record<ViewType, string> = {
  grid: 'Grid view',
  kanban: 'Kanban view',
  form: 'Form',
  gallery: 'Gallery',
  calendar: 'Calendar',
};

/** At most this many group levels (listing.md section 4). */
export const MAX_GROUP_LEVELS = 3;

/**
 * A view's own query as a listing of it applies it: its filter resolved (members a later field
 * change made invalid are dropped; none when empty), its sort items on fields that still exist,
 * and its group with field ids (which a listing applies only when asked as `groupBy`). Throws a
 * 400 for a saved filter no listing could apply. Pure.
 */
export const viewQueryOf = (
  fields: readonly Field[],
  view: View,
): { filter: FilterGroup | null; sort: SortItem[]; group: SortItem[] } => ({
  filter: andFilters(
    view.filter ? resolveFilter(view.filter, fields, 'view filter', { dropInvalid: true }) : null,
  ),
  sort: (view.sort?.sortObjs ?? []).filter((s) => fieldByRef(fields, s.fieldId)),
  group: (view.group ?? []).flatMap((g) => {
    const field = fieldByRef(fields, g.fieldId);
    return field
      ? [{ fieldId: field.id, order: g.order === 'desc' ? ('desc' as const) : ('asc' as const) }]
      : [];
  }),
});

const resolveRef = (fields: readonly Field[], ref: string, where: string): Field => {
  const field = fieldByRef(fields, ref);
  if (!field) throw new ValidationError(`${where}: field ${JSON.stringify(ref)} not found`);
  return field;
};

/**
 * Checks a view filter as a request's filter is checked (`resolveFilter`: shape, field
 * references, operators per field kind, value shapes), answering it with field names replaced by
 * ids; a 400 names the path (`filter.filterSet.0.fieldId: …`).
 */
export const normalizeFilter = (
  filter: unknown,
  fields: readonly Field[],
  where = 'filter',
): FilterGroup | null => resolveFilter(filter, fields, where);

const normalizeSortItems = (items: unknown, fields: readonly Field[], where: string): SortItem[] => {
  if (!Array.isArray(items)) throw new ValidationError(`${where}: must be a list`);
  return items.map((item, i) => {
    const s = item as Partial<SortItem>;
    if (typeof s?.fieldId !== 'string')
      throw new ValidationError(`${where}.${i}.fieldId: must be a field id or name`);
    if (s.order !== 'asc' && s.order !== 'desc')
      throw new ValidationError(`${where}.${i}.order: must be "asc" or "desc"`);
    return { fieldId: resolveRef(fields, s.fieldId, `${where}.${i}.fieldId`).id, order: s.order };
  });
};

/** Checks a view's query parts against the table's fields; unknown fields are a 400. Pure. */
export const normalizeViewQuery = (input: ViewInput, fields: readonly Field[]) => {
  const out: Partial<View> = {};
  if (input.filter !== undefined) out.filter = normalizeFilter(input.filter, fields);
  if (input.sort !== undefined)
    out.sort =
      input.sort === null
        ? null
        : {
            sortObjs: normalizeSortItems(input.sort.sortObjs ?? [], fields, 'sort.sortObjs'),
            ...(input.sort.manualSort !== undefined ? { manualSort: input.sort.manualSort } : {}),
          };
  if (input.group !== undefined) {
    out.group = input.group === null ? null : normalizeSortItems(input.group, fields, 'group');
    if (out.group && out.group.length > MAX_GROUP_LEVELS)
      throw new ValidationError(`group: at most ${MAX_GROUP_LEVELS} levels`);
  }
  return out;
};

/** Column metadata with every field present: stored entries first, missing fields appended. Pure. */
export const completeColumnMeta = (
  stored: Record<string, ColumnMeta> | undefined,
  fields: readonly Field[],
): Record<string, ColumnMeta> => {
  const out: Record<string, ColumnMeta> = {};
  let next = 0;
  for (const f of fields) {
    const meta = stored?.[f.id];
    if (meta) {
      out[f.id] = meta;
      next = Math.max(next, meta.order + 1);
    }
  }
  for (const f of fields) if (!out[f.id]) out[f.id] = { order: next++ };
  return out;
};

const mergeColumnMeta = (
  current: Record<string, ColumnMeta>,
  patch: Record<string, Partial<ColumnMeta>> | undefined,
  fields: readonly Field[],
): Record<string, ColumnMeta> => {
  if (!patch) return current;
  const out = { ...current };
  for (const [ref, meta] of Object.entries(patch)) {
    const field = resolveRef(fields, ref, 'columnMeta');
    const prev = out[field.id] ?? { order: Object.keys(out).length };
    // Only the parts the patch names change (a null statisticFunc is a value: "none").
    const named = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined));
    out[field.id] = { ...prev, ...named, order: typeof meta.order === 'number' ? meta.order : prev.order };
  }
  return out;
};

/** Builds a new view for a table of `fields` among `existing` views. Pure but for the id. */
export const defineView = (
  input: ViewInput,
  fields: readonly Field[],
  existing: readonly View[],
  createdBy: string,
  now: Date,
): View => {
  const type = input.type ?? 'grid';
  // Names may repeat (teable-routes.md 4); only a default name is made unique.
  const taken = existing.map((v) => v.name);
  const query = normalizeViewQuery(input, fields);
  const time = now.toISOString();
  return {
    id: newId('view'),
    name: input.name ?? uniqueName(DEFAULT_VIEW_NAME[type], taken),
    type,
    order: existing.reduce((m, v) => Math.max(m, v.order + 1), 0),
    filter: query.filter ?? null,
    sort: query.sort ?? null,
    group: query.group ?? null,
    columnMeta: mergeColumnMeta(completeColumnMeta(undefined, fields), input.columnMeta, fields),
    options: checkViewOptions(type, input.options ?? {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.isLocked !== undefined ? { isLocked: input.isLocked } : {}),
    createdBy,
    createdTime: time,
    lastModifiedTime: time,
  };
};

/** A view as answered: column metadata completed with fields added since. */
export const toViewOut = (view: View, fields: readonly Field[]): View => ({
  ...view,
  columnMeta: completeColumnMeta(view.columnMeta, fields),
});

const viewNotFound = (tableId: string, viewId: string) =>
  new NotFoundError(`View ${viewId} not found in table ${tableId}`);

/** Finds a view of the table, or a 404. */
export const findView = (schema: TableSchema, viewId: string): View => {
  const view = schema.views.find((v) => v.id === viewId);
  if (!view) throw viewNotFound(schema.table.id, viewId);
  return view;
};

const schemaConflict = () => new ConflictError('The table changed at the same time; retry');

/** Creates a view at the end of the table's views. */
export const createView = async (principal: Principal, schema: TableSchema, input: ViewInput) => {
  const tableId = schema.table.id;
  const view = defineView(input, schema.fields, schema.views, principal.userId, new Date());
  await transact([createViewOp(tableId, view), bumpSchemaOp(tableId, schema.version)], schemaConflict);
  return toViewOut(view, schema.fields);
};

/**
 * Changes a view's name (names may repeat), query, columns, options, description or lock; the
 * parts absent from `input` stay. Every change bumps its `lastModifiedTime`.
 */
export const updateView = async (schema: TableSchema, viewId: string, input: Omit<ViewInput, 'type'>) => {
  const tableId = schema.table.id;
  const current = findView(schema, viewId);
  const query = normalizeViewQuery(input, schema.fields);
  const view: View = {
    ...current,
    ...query,
    name: input.name ?? current.name,
    columnMeta: mergeColumnMeta(
      completeColumnMeta(current.columnMeta, schema.fields),
      input.columnMeta,
      schema.fields,
    ),
    // the patch is checked, not what was stored before checks existed: an old key stays harmless
    options: input.options
      ? { ...current.options, ...checkViewOptions(current.type, input.options) }
      : current.options,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.isLocked !== undefined ? { isLocked: input.isLocked } : {}),
    lastModifiedTime: new Date().toISOString(),
  };
  await transact([replaceViewOp(tableId, view), bumpSchemaOp(tableId, schema.version)], schemaConflict);
  return toViewOut(view, schema.fields);
};

/** Deletes a view; the last view of a table cannot be deleted (400). */
export const deleteView = async (schema: TableSchema, viewId: string) => {
  const tableId = schema.table.id;
  findView(schema, viewId);
  if (schema.views.length <= 1)
    throw new ValidationError(`View ${viewId} is the last view of table ${tableId}`);
  const ops: TransactOp[] = [
    deleteViewOp(tableId, viewId),
    bumpSchemaOp(tableId, schema.version),
    ...viewIndexBookkeepingDeletes(tableId, viewId),
  ];
  await transact(ops, schemaConflict);
  // The view's manual order and its indexes go with it (after the view: nothing reads them any more).
  await purgeViewPartitions(viewId);
};

/** One entry of `PUT …/column-meta`: a field and the parts of its column to change. */
export interface ColumnMetaChange {
  fieldId: string;
  columnMeta: Partial<ColumnMeta>;
}

/** Merges column metadata per field (`PUT …/column-meta`); a field named twice gets both, in order. */
export const updateViewColumnMeta = (
  schema: TableSchema,
  viewId: string,
  changes: readonly ColumnMetaChange[],
) => {
  const columnMeta: Record<string, Partial<ColumnMeta>> = {};
  for (const { fieldId, columnMeta: meta } of changes)
    columnMeta[fieldId] = { ...columnMeta[fieldId], ...meta };
  return updateView(schema, viewId, { columnMeta });
};

/**
 * The order a view gets when moved before or after `anchor` among `views` (by order, the moved
 * view left out): halfway between its new neighbours, one past the end, or undefined when no
 * number fits between them (the views are then numbered again). Pure.
 */
export const orderBetween = (
  others: readonly View[],
  anchorIndex: number,
  position: 'before' | 'after',
): number | undefined => {
  const at = position === 'before' ? anchorIndex : anchorIndex + 1;
  const lower = others[at - 1]?.order;
  const upper = others[at]?.order;
  const order =
    lower === undefined ? (upper ?? 0) - 1 : upper === undefined ? lower + 1 : lower + (upper - lower) / 2;
  const fits =
    Number.isFinite(order) &&
    (lower === undefined || order > lower) &&
    (upper === undefined || order < upper);
  return fits ? order : undefined;
};

/**
 * Moves a view before or after another view of the table (`PUT …/order`, ordering.md "Other
 * ordered lists"): itself as anchor is a 400, an anchor not among the table's views a 404. The
 * view gets an order between its new neighbours; when none fits, every view is numbered again
 * (0, 1, 2… in the new order) in the same write.
 */
export const moveView = async (
  schema: TableSchema,
  viewId: string,
  move: { anchorId: string; position: 'before' | 'after' },
) => {
  const tableId = schema.table.id;
  const view = findView(schema, viewId);
  if (move.anchorId === viewId)
    throw new ValidationError(`View ${viewId} cannot be moved relative to itself`);
  const others = schema.views.filter((v) => v.id !== viewId);
  const anchorIndex = others.findIndex((v) => v.id === move.anchorId);
  if (anchorIndex < 0) throw new NotFoundError(`Anchor ${move.anchorId} not found in table ${tableId}`);
  const now = new Date().toISOString();
  const order = orderBetween(others, anchorIndex, move.position);
  const at = move.position === 'before' ? anchorIndex : anchorIndex + 1;
  const changed: View[] =
    order !== undefined
      ? [{ ...view, order, lastModifiedTime: now }]
      : [...others.slice(0, at), view, ...others.slice(at)].flatMap((v, i) =>
          v.id === viewId
            ? [{ ...v, order: i, lastModifiedTime: now }]
            : v.order === i
              ? []
              : [{ ...v, order: i }],
        );
  const before = new Map(schema.views.map((v) => [v.id, v]));
  const steps: Step[] = [
    ...changed.map(
      (v): Step => ({
        op: replaceViewOp(tableId, v),
        undo: putViewOp(tableId, before.get(v.id) as View),
      }),
    ),
    { op: bumpSchemaOp(tableId, schema.version), undo: null },
  ];
  await commitSteps(tableId, steps, schemaConflict);
};
