import { getItems, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { schemaDeletionNoteOf } from '#shared/db/data-versions.ts';
import { keyOfItem, keys } from '#shared/db/keys.ts';
import { writeStamps } from '#shared/db/request-scope.ts';
import { answerField } from '#shared/fields/db-field-type.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { text, textsOrNull } from './attributes.ts';
import { type Table, tableOf, toTableItem } from './tables.ts';

/**
 * The items of a table's schema partition besides the table item (`entities/tables.ts`): its
 * fields, its views and its dependents (computed fields elsewhere that read it). Each item holds
 * its object whole (`field`, `view`) or flat (a dependent); these functions are the only place
 * that builds or reads them.
 */

/** View types of the contract. */
export const VIEW_TYPES = ['grid', 'kanban', 'form', 'gallery', 'calendar'] as const;
export type ViewType = (typeof VIEW_TYPES)[number];

export interface SortItem {
  fieldId: string;
  order: 'asc' | 'desc';
}

export interface ColumnMeta {
  order: number;
  width?: number;
  hidden?: boolean;
  /** Kanban, gallery, calendar and form views show a column when set. */
  visible?: boolean;
  /** Form views: the answer is required. */
  required?: boolean;
  /** The column's statistic in a grid view (Teable's `StatisticsFunc`), null for none. */
  statisticFunc?: string | null;
}

/** A view as stored and answered (endpoints.md, "View shape"). */
export interface View {
  id: string;
  name: string;
  type: ViewType;
  order: number;
  filter: unknown | null;
  sort: { sortObjs: SortItem[]; manualSort?: boolean } | null;
  group: SortItem[] | null;
  columnMeta: Record<string, ColumnMeta>;
  options: Record<string, unknown>;
  /** Set by `PUT …/description`; absent until then. */
  description?: string;
  /** Set by `PUT …/locked`; absent until then. */
  isLocked?: boolean;
  createdBy: string;
  createdTime: string;
  lastModifiedTime: string;
}

/**
 * A computed field (of this table or another) that reads this table's records through a link:
 * when one of `inputs` changes in a record here, the records of `tableId` that link to it
 * through `linkFieldId` recompute `fieldId`.
 */
export interface Dependent {
  tableId: string;
  fieldId: string;
  linkFieldId: string;
  inputs: string[];
  /**
   * Two links away (a rollup of a link field, a formula over a lookup of a link: they read the
   * titles of records two links away): the records here are held by records of `via.tableId`
   * through its link `via.linkFieldId`, and those by the records of `tableId` through
   * `linkFieldId`.
   */
  via?: { tableId: string; linkFieldId: string };
}

/** A field as stored: the field and its order number (kept for life). */
export interface FieldEntry {
  field: Field;
  order: number;
}

/** The stored item of a field. */
export const fieldItem = (tableId: string, field: Field, order: number): Item => ({
  ...keys.field(tableId, field.id),
  type: 'field',
  order,
  field,
  // the request and user that wrote it (the change log's txId and actor)
  ...writeStamps(),
});

/** The stored item of a dependent, in the schema partition of the table it reads. */
export const dependentItem = (readTableId: string, dependent: Dependent): Item => ({
  ...keys.dependent(readTableId, dependent.tableId, dependent.fieldId, dependent.linkFieldId),
  type: 'dependent',
  ...dependent,
});

/** The stored item of a view. */
export const viewItem = (tableId: string, view: View): Item => ({
  ...keys.view(tableId, view.id),
  type: 'view',
  view,
  // the request and user that wrote it (the change log's txId and actor)
  ...writeStamps(),
});

/**
 * The table and kind of a schema item (table, field or view; any image of one, as a stream hands
 * it over); undefined for any other item of the schema partition (dependents, counters…).
 */
export const schemaItemOf = (
  item: Readonly<Record<string, unknown>>,
): { tableId: string; kind: 'table' | 'field' | 'view' } | undefined => {
  if (typeof item.pk !== 'string' || typeof item.sk !== 'string') return undefined;
  const found = keys.schemaItemOfKey({ pk: item.pk, sk: item.sk });
  return found && item.type === found.kind ? found : undefined;
};

/**
 * The schema deletion note a stream record of a table item carries (`db/data-versions.ts`
 * `SCHEMA_DELETION_NOTE`): the fields and views its write deleted, the request, the user and the time;
 * undefined for any other item or a write that deleted none. Pure.
 */
export const schemaDeletionNoteIn = (
  oldImage: Readonly<Record<string, unknown>> | undefined,
  newImage: Readonly<Record<string, unknown>> | undefined,
): { tableId: string; ids: string[]; tx?: string; by?: string; at?: string } | undefined => {
  const item = newImage ? schemaItemOf(newImage) : undefined;
  const note = item?.kind === 'table' ? schemaDeletionNoteOf(oldImage, newImage) : undefined;
  return item && note ? { tableId: item.tableId, ...note } : undefined;
};

export const isFieldItem = (item: Item): boolean => item.type === 'field';
export const isViewItem = (item: Item): boolean => item.type === 'view';
export const isDependentItem = (item: Item): boolean => item.type === 'dependent';

/**
 * The field of a field item as written by `fieldItem`. Its shape is checked where fields are
 * created and changed (`fields/define.ts`), never again on read.
 */
export const fieldEntryOf = (item: Item): FieldEntry => ({
  field: answerField(item.field as Field),
  order: Number(item.order),
});

/** The view of a view item as written by `viewItem` (checked where views are created and changed). */
export const viewOf = (item: Item): View => item.view as View;

/** The id of a view item, also of one read with a projection (`view` only). */
export const viewIdOf = (item: Item): string => {
  const view = item.view as { id?: unknown } | undefined;
  return text(view?.id) || text(item.id);
};

const via = (value: unknown): Dependent['via'] => {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  return { tableId: text(v.tableId), linkFieldId: text(v.linkFieldId) };
};

/** The dependent of a dependent item. */
export const dependentOf = (item: Item): Dependent => {
  const through = via(item.via);
  return {
    tableId: text(item.tableId),
    fieldId: text(item.fieldId),
    linkFieldId: text(item.linkFieldId),
    inputs: textsOrNull(item.inputs) ?? [],
    ...(through ? { via: through } : {}),
  };
};

/** What a table's schema partition holds, read: its table, fields (in no order), views and dependents. */
export interface SchemaParts {
  /** Undefined when the partition holds no table item (the table is gone). */
  table: Table | undefined;
  fieldEntries: FieldEntry[];
  views: View[];
  dependents: Dependent[];
}

/** The parts of a schema among the items of its partition (or built for a new table). Pure. */
export const schemaPartsOf = (items: readonly Item[]): SchemaParts => {
  const tableItem = items.find((i) => i.type === 'table');
  return {
    table: tableItem ? tableOf(tableItem) : undefined,
    fieldEntries: items.filter(isFieldItem).map(fieldEntryOf),
    views: items.filter(isViewItem).map(viewOf),
    dependents: items.filter(isDependentItem).map(dependentOf),
  };
};

/**
 * The parts of a new table's schema, as its partition will hold them once written (read back from
 * the items its create puts, so a new table's schema is the one a later read gives). Pure.
 */
export const newSchemaParts = (table: Table, fields: readonly Field[], views: readonly View[]): SchemaParts =>
  schemaPartsOf([
    toTableItem(table),
    ...fields.map((f, i) => fieldItem(table.id, f, i)),
    ...views.map((v) => viewItem(table.id, v)),
  ]);

/** Reads a table's schema partition (one query). */
export const readSchemaParts = async (tableId: string): Promise<SchemaParts> =>
  schemaPartsOf(await queryAll(keys.schemaOf(tableId)));

/** The operation that adds a field to a table; fails when its id is taken. Pure. */
export const createFieldOp = (tableId: string, field: Field, order: number): TransactOp => ({
  put: fieldItem(tableId, field, order),
  condition: NOT_EXISTS,
});

/** The operation that writes a field whatever is stored (a field marked broken, its choices grown). Pure. */
export const putFieldOp = (tableId: string, field: Field, order: number): TransactOp => ({
  put: fieldItem(tableId, field, order),
});

/** The operation that rewrites a field that is there (a change of its definition). Pure. */
export const replaceFieldOp = (tableId: string, field: Field, order: number): TransactOp => ({
  put: fieldItem(tableId, field, order),
  condition: EXISTS,
});

/**
 * The operation that moves a storage host name (`fields/link-storage.ts`) from `from` to `to`, a
 * table's database name renamed: in a link's `options` or a lookup's or rollup's `lookupOptions`,
 * only while it still names `from`. Pure.
 */
export const renameLinkHostOp = (
  tableId: string,
  fieldId: string,
  where: 'options' | 'lookupOptions',
  from: string,
  to: string,
): TransactOp => ({
  update: {
    key: keys.field(tableId, fieldId),
    update: 'SET #field.#in.#host = :to',
    condition: '#field.#in.#host = :from',
    names: { '#field': 'field', '#in': where, '#host': 'fkHostTableName' },
    values: { ':from': from, ':to': to },
  },
});

/** The operation that deletes a field's item: unconditional (repeatable), or only one that is there. Pure. */
export const deleteFieldOp = (tableId: string, fieldId: string, mustExist = false): TransactOp => ({
  delete: keys.field(tableId, fieldId),
  ...(mustExist ? { condition: EXISTS } : {}),
});

/** The operation that adds a view to a table; fails when its id is taken. Pure. */
export const createViewOp = (tableId: string, view: View): TransactOp => ({
  put: viewItem(tableId, view),
  condition: NOT_EXISTS,
});

/** The operation that writes a view over its stored one; fails when it is gone. Pure. */
export const replaceViewOp = (tableId: string, view: View): TransactOp => ({
  put: viewItem(tableId, view),
  condition: EXISTS,
});

/** The operation that writes a view whatever is stored (stripped of a deleted field; an undo). Pure. */
export const putViewOp = (tableId: string, view: View): TransactOp => ({ put: viewItem(tableId, view) });

/** The operation that deletes a view's item; fails when it is gone. Pure. */
export const deleteViewOp = (tableId: string, viewId: string): TransactOp => ({
  delete: keys.view(tableId, viewId),
  condition: EXISTS,
});

/** The operation that registers a dependent in the table it reads, over any registration there. Pure. */
export const putDependentOp = (readTableId: string, dependent: Dependent): TransactOp => ({
  put: dependentItem(readTableId, dependent),
});

/** The operation that removes a dependent's registration from the table it reads. Pure. */
export const deleteDependentOp = (
  readTableId: string,
  tableId: string,
  fieldId: string,
  linkFieldId: string,
): TransactOp => ({
  delete: keys.dependent(readTableId, tableId, fieldId, linkFieldId),
});

/**
 * Schema operations each with its undo, for a journaled write: the item as read just before (one
 * batch read of the items the puts and deletes touch), or a delete of what a put creates; null
 * for an update (a schema version that moved on only makes readers read again).
 */
export const schemaOpsWithUndo = async (
  ops: readonly TransactOp[],
): Promise<{ op: TransactOp; undo: TransactOp | null }[]> => {
  const keyed = ops.map((op) => ('put' in op ? keyOfItem(op.put) : 'delete' in op ? op.delete : undefined));
  const prior = await getItems(keyed.filter((k) => k !== undefined));
  return ops.map((op, i) => {
    const key = keyed[i];
    const old = key ? prior.get(key) : undefined;
    return { op, undo: old ? { put: old } : key && 'put' in op ? { delete: key } : null };
  });
};
