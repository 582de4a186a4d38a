/**
 * Undo and redo (Teable's `POST /table/{t}/undo-redo/undo` and `…/redo`; contract web-app §4), on
 * the change log. Each write of a record route made with `X-Window-Id` (Teable's web app sends one
 * per tab) pushes its request onto the user's stack for that table and window
 * (`entities/undo-stacks.ts`). An undo takes the request on top, finds its entries in the base's
 * log (waiting a moment for the capture when they are not there yet), and writes their inverse
 * as a new write of the user's — through the same use cases as the REST routes, so history, the
 * feed, webhooks and live subscribers see it like any other write:
 * - a record's cells the request changed are set back to what they were;
 * - a record it created is deleted, a record it deleted is created again (same id and cells; a
 *   new autoNumber);
 * - only cells the user wrote: computed cells (formulas, lookups, rollups) follow by themselves.
 * A view's settings (name, filter, sort, group, columns, options) are set back the same way, a
 * field's name and description too, and a field the request created is deleted again.
 * Before anything is written, every cell or setting to be set back must still hold what the
 * request left (a record it created must still be as it made it, a record it deleted must still be
 * gone): when someone — another user, another window — changed one since, nothing is written and
 * the answer is `failed` with a message that says so. A redo does the same from the other side.
 * Other field changes (a conversion, options, a deletion), a field's creation redone, and a view
 * made or deleted go on the stack too (so Ctrl+Z never reaches past them to an earlier write) but
 * are not built yet: their undo answers `failed` saying so.
 * Either way, as in Teable, the request leaves the stack it was taken from.
 */
import { checkAccess, type Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, HttpError } from '#shared/core/errors.ts';
import { type ChangeEntry, changesBefore } from '#shared/entities/change-log.ts';
import { getRecords, type RecordItem } from '#shared/entities/records.ts';
import { moveUndo, readUndoStack, type UndoStack, type UndoStep } from '#shared/entities/undo-stacks.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { createRecords } from '#shared/records/create.ts';
import { deleteRecords } from '#shared/records/delete.ts';
import { renderRecords } from '#shared/records/read.ts';
import { updateRecords } from '#shared/records/update.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { updateView } from '#shared/schema/views.ts';
import { deleteField, updateField } from '#shared/tables/fields.ts';
import { sameValue } from './capture.ts';

/** Teable's answer to an undo or a redo. */
export interface UndoAnswer {
  status: 'fulfilled' | 'failed' | 'empty';
  errorMessage?: string;
}

/** How long an undo waits for its request's entries to reach the log (the capture runs behind writes). */
export const UNDO_WAIT_MS = 5_000;
/** Entries an undo reads back through the log at most, looking for its request's. */
const SCAN_LIMIT = 2_000;
/** How far before the request's own time an entry of it may be stamped (clocks of Lambdas differ). */
const CLOCK_MARGIN_MS = 60_000;

/**
 * The entries of a request in a base's log, oldest first: read back from the newest until an
 * entry older than the request (less the clock margin). Empty when the capture has not written
 * them yet.
 */
const entriesOf = async (baseId: string, step: UndoStep): Promise<ChangeEntry[]> => {
  const since = Date.parse(step.at) - CLOCK_MARGIN_MS;
  const found: ChangeEntry[] = [];
  let before: number | undefined;
  for (let read = 0; read < SCAN_LIMIT; ) {
    const page = await changesBefore(baseId, before, 200);
    for (const entry of page) if (entry.txId === step.tx) found.push(entry);
    read += page.length;
    const last = page.at(-1);
    if (!last || page.length < 200 || Date.parse(last.occurredAt) < since) break;
    before = last.seq;
  }
  return found.sort((a, b) => a.seq - b.seq);
};

/** The entries, waiting for the capture: until some are there and two reads in a row agree. */
const awaitEntries = async (baseId: string, step: UndoStep, waitMs: number): Promise<ChangeEntry[]> => {
  const end = Date.now() + waitMs;
  let last: ChangeEntry[] = [];
  for (;;) {
    const now = await entriesOf(baseId, step);
    if (now.length && now.length === last.length) return now;
    if (Date.now() > end) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, now.length ? 150 : 100));
  }
};

type Direction = 'undo' | 'redo';

/** What an undo or redo writes, worked out from the entries; `expect` what must hold first. */
interface Plan {
  /** Records to set cells of: the stored cells to write (undefined: empty the cell). */
  update: Map<string, Record<string, unknown>>;
  create: Map<string, Record<string, unknown>>;
  delete: Set<string>;
  /** Cells that must hold these stored values now (by record; `null`: the record must be gone). */
  expect: Map<string, Record<string, unknown> | null>;
}

/** The cells of an entry the user can write (fields still there, not computed). */
const writable = (
  schema: TableSchema,
  cells: Record<string, unknown> | undefined,
  keys: Iterable<string>,
) => {
  const out: Record<string, unknown> = {};
  for (const id of keys) {
    const field = schema.fields.find((f) => f.id === id);
    if (!field || field.isComputed || fieldKind(field.type).isComputed) continue;
    out[id] = cells?.[id];
  }
  return out;
};

/** The settings of a view an undo sets back (not its id, type, order or times). */
const VIEW_SETTINGS = ['name', 'description', 'filter', 'sort', 'group', 'options', 'columnMeta', 'isLocked'];

/** A view's settings to write back, with what they must hold now: by view id. */
type ViewPlan = Map<string, { to: Record<string, unknown>; expect: Record<string, unknown> }>;

type Columns = Record<string, Record<string, unknown>>;

/**
 * The column metadata to write for a view's columns to become `to` again: per field whose column
 * changed, its earlier parts, and for a part it did not have then, the value that means none
 * (`hidden: false`, `statisticFunc: null`).
 */
const columnsBack = (from: Columns, to: Columns): Columns => {
  const out: Columns = {};
  for (const id of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (sameValue(from[id], to[id])) continue;
    const patch: Record<string, unknown> = { ...to[id] };
    for (const key of Object.keys(from[id] ?? {}))
      if (!(key in patch)) {
        if (key === 'hidden') patch.hidden = false;
        if (key === 'statisticFunc') patch.statisticFunc = null;
      }
    out[id] = patch;
  }
  return out;
};

const viewPlanOf = (direction: Direction, entries: readonly ChangeEntry[]): ViewPlan => {
  const plan: ViewPlan = new Map();
  for (const e of entries) {
    const [from, to] =
      direction === 'undo' ? [e.after ?? {}, e.before ?? {}] : [e.before ?? {}, e.after ?? {}];
    const had = plan.get(e.viewId as string);
    const changed = VIEW_SETTINGS.filter((k) => !sameValue(from[k], to[k]));
    plan.set(e.viewId as string, {
      to: { ...had?.to, ...Object.fromEntries(changed.map((k) => [k, to[k] ?? null])) },
      expect: { ...Object.fromEntries(changed.map((k) => [k, from[k]])), ...had?.expect },
    });
  }
  return plan;
};

/** A field's parts an undo sets back: its name and description (a rename). */
const FIELD_NAMING = ['name', 'description'];
/** Parts of a field that change with any write of it, and say nothing of what the user changed. */
const FIELD_STAMPS = new Set(['lastModifiedTime', 'lastModifiedBy', 'version']);

/**
 * What an undo or redo of a field's change does, when it is one it can: a rename (or description)
 * set back, or a field the request created deleted again (its redo would create it anew under
 * another id: not built). Undefined for anything else.
 */
type FieldPlan =
  | { kind: 'rename'; fieldId: string; to: Record<string, unknown>; expect: Record<string, unknown> }
  | { kind: 'delete'; fieldId: string; expect: Record<string, unknown> };

const fieldPlanOf = (direction: Direction, entries: readonly ChangeEntry[]): FieldPlan | undefined => {
  const [e] = entries;
  if (entries.length !== 1 || !e?.fieldId) return undefined;
  if (e.type === 'field.created' && direction === 'undo')
    return { kind: 'delete', fieldId: e.fieldId, expect: { name: e.after?.name } };
  if (e.type !== 'field.updated') return undefined;
  const before = e.before ?? {};
  const after = e.after ?? {};
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => !FIELD_STAMPS.has(k) && !sameValue(before[k], after[k]),
  );
  if (!changed.length || changed.some((k) => !FIELD_NAMING.includes(k))) return undefined;
  const [from, to] = direction === 'undo' ? [after, before] : [before, after];
  return {
    kind: 'rename',
    fieldId: e.fieldId,
    to: Object.fromEntries(changed.map((k) => [k, to[k] ?? null])),
    expect: Object.fromEntries(changed.map((k) => [k, from[k]])),
  };
};

const planOf = (
  direction: Direction,
  entries: readonly ChangeEntry[],
  schema: TableSchema,
): Plan | ViewPlan | FieldPlan | string => {
  const plan: Plan = { update: new Map(), create: new Map(), delete: new Set(), expect: new Map() };
  const mine = entries.filter((e) => e.tableId === schema.table.id && !e.computed);
  if (mine.length && mine.every((e) => e.type === 'view.updated')) return viewPlanOf(direction, mine);
  const field = fieldPlanOf(direction, mine);
  if (field) return field;
  if (mine.some((e) => !e.type.startsWith('record.')))
    return `Undoing and redoing changes to fields and tables, and views made or deleted, is not built yet on this service; this ${direction} was dropped and nothing was changed`;
  if (mine.some((e) => e.cellsOmitted))
    return `The change is too large for the log to hold its cells; this ${direction} was dropped and nothing was changed`;
  for (const e of mine) {
    const id = e.recordId as string;
    const keys = new Set([...Object.keys(e.before ?? {}), ...Object.keys(e.after ?? {})]);
    // what the request left, and what it found
    const left = writable(schema, e.after, keys);
    const found = writable(schema, e.before, keys);
    const [from, to] = direction === 'undo' ? [left, found] : [found, left];
    if (e.type === 'record.updated') {
      plan.update.set(id, { ...plan.update.get(id), ...to });
      if (!plan.expect.has(id)) plan.expect.set(id, from);
    } else if ((e.type === 'record.created') === (direction === 'undo')) {
      // the record is to go: it must still be as the request (or its undo) left it
      plan.delete.add(id);
      plan.update.delete(id);
      plan.expect.set(
        id,
        writable(schema, direction === 'undo' ? e.after : e.before, Object.keys(e.after ?? e.before ?? {})),
      );
    } else {
      // the record is to come back
      plan.create.set(
        id,
        writable(schema, direction === 'undo' ? e.before : e.after, Object.keys(e.before ?? e.after ?? {})),
      );
      plan.expect.set(id, null);
    }
  }
  return plan;
};

/** Records whose cells are no longer what the plan expects (someone changed them since). */
const conflicts = (plan: Plan, current: ReadonlyMap<string, RecordItem>): string[] =>
  [...plan.expect].flatMap(([id, cells]) => {
    const now = current.get(id);
    if (cells === null) return now ? [id] : [];
    if (!now) return [id];
    return Object.entries(cells).some(
      ([field, value]) => !sameValue(now[field] ?? undefined, value ?? undefined),
    )
      ? [id]
      : [];
  });

/** Stored cells as the API writes them (links with ids, attachments, users…), by field id. */
const asInput = async (
  schema: TableSchema,
  template: RecordItem | undefined,
  id: string,
  cells: Record<string, unknown>,
): Promise<Record<string, unknown>> => {
  const pseudo = { ...(template ?? stub(id)), ...cells } as RecordItem;
  const [out] = await renderRecords(schema, [pseudo], {
    keyType: 'id',
    cellFormat: 'json',
    canUpdate: false,
    canDelete: false,
  });
  const rendered = (out?.fields ?? {}) as Record<string, unknown>;
  // a cell the rendering leaves out is empty: written as null
  return Object.fromEntries(Object.keys(cells).map((f) => [f, rendered[f] ?? null]));
};

const stub = (id: string): RecordItem =>
  ({
    id,
    autoNumber: 0,
    version: 0,
    cb: { id: '', title: '' },
    mb: { id: '', title: '' },
  }) as unknown as RecordItem;

/**
 * Undoes or redoes the request on top of the user's stack for this table and window. Answers
 * Teable's `{status, errorMessage?}`: `empty` with nothing to do (or no `X-Window-Id`).
 */
export const undoOrRedo = async (
  direction: Direction,
  principal: Principal,
  located: Located,
  schema: TableSchema,
  windowId: string | undefined,
  waitMs = UNDO_WAIT_MS,
): Promise<UndoAnswer> => {
  if (!windowId) return { status: 'empty' };
  const tableId = schema.table.id;
  const baseId = schema.table.baseId;
  const stack = await readUndoStack(principal.userId, tableId, windowId);
  const [from, onto] = direction === 'undo' ? [stack.done, stack.undone] : [stack.undone, stack.done];
  const step = from.at(-1);
  if (!step) return { status: 'empty' };
  const entries = await awaitEntries(baseId, step, waitMs);
  if (!entries.length)
    return {
      status: 'failed',
      errorMessage: `The change to ${direction} has not reached the change log yet; try again in a moment`,
    };
  const moved: Pick<UndoStack, 'done' | 'undone'> =
    direction === 'undo'
      ? { done: from.slice(0, -1), undone: [...onto, step] }
      : { done: [...onto, step], undone: from.slice(0, -1) };
  const dropped: Pick<UndoStack, 'done' | 'undone'> =
    direction === 'undo'
      ? { done: from.slice(0, -1), undone: onto }
      : { done: onto, undone: from.slice(0, -1) };
  const take = async (next: Pick<UndoStack, 'done' | 'undone'>) => {
    try {
      await moveUndo(principal.userId, tableId, windowId, stack, next);
      return undefined;
    } catch (error) {
      // another undo or redo of this window took the same step a moment ago (the web app sends
      // two for one Ctrl+Z with a cell selected: its grid's and its table's): this one has nothing left
      if (error instanceof ConflictError) return { status: 'empty' as const };
      throw error;
    }
  };
  const plan = planOf(direction, entries, schema);
  if (typeof plan === 'string') return (await take(dropped)) ?? { status: 'failed', errorMessage: plan };
  if ('kind' in plan)
    return applyFieldPlan(
      direction,
      plan,
      { principal, located, schema },
      {
        move: () => take(moved),
        drop: () => take(dropped),
      },
    );
  if (plan instanceof Map)
    return applyViewPlan(
      direction,
      plan,
      { principal, located, schema },
      {
        move: () => take(moved),
        drop: () => take(dropped),
      },
    );
  const ids = [...plan.expect.keys()];
  const current = await getRecords(tableId, ids);
  const changed = conflicts(plan, current);
  if (changed.length)
    return (
      (await take(dropped)) ?? {
        status: 'failed',
        errorMessage: `Not ${direction === 'undo' ? 'undone' : 'redone'}: ${changed.length === 1 ? 'a record' : `${changed.length} records`} changed since (by someone else or in another window); nothing was changed`,
      }
    );
  checkAccess({
    principal,
    resource: located,
    role: located.role,
    actions: [
      ...(plan.update.size ? (['record|update'] as const) : []),
      ...(plan.create.size ? (['record|create'] as const) : []),
      ...(plan.delete.size ? (['record|delete'] as const) : []),
    ],
  });
  const refused = await take(moved);
  if (refused) return refused;
  try {
    if (plan.create.size) {
      const created = [...plan.create];
      const records = await Promise.all(
        created.map(async ([id, cells]) => ({ fields: await asInput(schema, undefined, id, cells) })),
      );
      await createRecords(principal, located, schema, {
        records,
        fieldKeyType: 'id',
        typecast: false,
        keepEmpty: true,
        ids: created.map(([id]) => id),
      });
    }
    if (plan.update.size) {
      const records = await Promise.all(
        [...plan.update].map(async ([id, cells]) => ({
          id,
          fields: await asInput(schema, current.get(id), id, cells),
        })),
      );
      await updateRecords(principal, located, schema, { records, fieldKeyType: 'id', typecast: false });
    }
    if (plan.delete.size) await deleteRecords(schema, [...plan.delete]);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status >= 500) throw error;
    return { status: 'failed', errorMessage: error.message };
  }
  return { status: 'fulfilled' };
};

/** A view plan: refused when a setting changed since, else the settings written back, one view update each. */
const applyViewPlan = async (
  direction: Direction,
  plan: ViewPlan,
  on: { principal: Principal; located: Located; schema: TableSchema },
  stack: { move: () => Promise<UndoAnswer | undefined>; drop: () => Promise<UndoAnswer | undefined> },
): Promise<UndoAnswer> => {
  const { principal, located, schema } = on;
  const changed = [...plan].filter(([viewId, { expect }]) => {
    const view = schema.views.find((v) => v.id === viewId) as unknown as Record<string, unknown> | undefined;
    return !view || Object.entries(expect).some(([k, v]) => !sameValue(view[k] ?? null, v ?? null));
  });
  if (changed.length)
    return (
      (await stack.drop()) ?? {
        status: 'failed',
        errorMessage: `Not ${direction === 'undo' ? 'undone' : 'redone'}: the view changed since (by someone else or in another window), or is gone; nothing was changed`,
      }
    );
  checkAccess({ principal, resource: located, role: located.role, actions: ['view|update'] });
  const refused = await stack.move();
  if (refused) return refused;
  try {
    for (const [viewId, { to, expect }] of plan) {
      const { columnMeta, ...rest } = to;
      await updateView(schema, viewId, {
        ...rest,
        ...(columnMeta !== undefined
          ? { columnMeta: columnsBack((expect.columnMeta ?? {}) as Columns, (columnMeta ?? {}) as Columns) }
          : {}),
      } as Parameters<typeof updateView>[2]);
    }
  } catch (error) {
    if (!(error instanceof HttpError) || error.status >= 500) throw error;
    return { status: 'failed', errorMessage: error.message };
  }
  return { status: 'fulfilled' };
};

/** A field plan: refused when the field changed since (or is gone), else set back or deleted. */
const applyFieldPlan = async (
  direction: Direction,
  plan: FieldPlan,
  on: { principal: Principal; located: Located; schema: TableSchema },
  stack: { move: () => Promise<UndoAnswer | undefined>; drop: () => Promise<UndoAnswer | undefined> },
): Promise<UndoAnswer> => {
  const { principal, located, schema } = on;
  const field = schema.fields.find((f) => f.id === plan.fieldId) as unknown as
    | Record<string, unknown>
    | undefined;
  if (!field || Object.entries(plan.expect).some(([k, v]) => !sameValue(field[k] ?? null, v ?? null)))
    return (
      (await stack.drop()) ?? {
        status: 'failed',
        errorMessage: `Not ${direction === 'undo' ? 'undone' : 'redone'}: the field changed since (by someone else or in another window), or is gone; nothing was changed`,
      }
    );
  checkAccess({
    principal,
    resource: located,
    role: located.role,
    actions: [plan.kind === 'delete' ? 'field|delete' : 'field|update'],
  });
  const refused = await stack.move();
  if (refused) return refused;
  try {
    if (plan.kind === 'delete') await deleteField(schema, plan.fieldId);
    else await updateField(schema, plan.fieldId, plan.to);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status >= 500) throw error;
    return { status: 'failed', errorMessage: error.message };
  }
  return { status: 'fulfilled' };
};
