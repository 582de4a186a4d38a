import { NotFoundError } from '#shared/core/errors.ts';
import { type Item, queryAll } from '#shared/db/client.ts';
import { and, LIVE, or } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { oncePerRequest, readEarlier } from '#shared/db/request-scope.ts';
import { type Table, tableOf } from '#shared/entities/tables.ts';
import { fieldByRef as fieldIn } from '#shared/fields/names.ts';
import type { Field } from '#shared/fields/types.ts';

/** How request bodies and answers key a record's fields: by name, id or dbFieldName. */
export const FIELD_KEY_TYPES = ['name', 'id', 'dbFieldName'] as const;
export type FieldKeyType = (typeof FIELD_KEY_TYPES)[number];

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

/** A table's schema: its item, fields (creation order, primary first) and views (by order). */
export interface TableSchema {
  table: Table;
  fields: Field[];
  views: View[];
  /** Computed fields elsewhere that read this table (the cross-table part of the dependency graph). */
  dependents: Dependent[];
  version: number;
  /** Each field's order number (fields keep it for life; new fields get the next one). */
  fieldOrder: Record<string, number>;
}

const cache = new Map<string, TableSchema>();
const CACHE_LIMIT = 500;

/** The schema version a table item carries; every schema write increments it. */
export const schemaVersionOf = (table: Item): number => Number(table.schemaVersion ?? 0);

/** Builds a schema from the items of a table's schema partition. Pure. */
export const schemaFromItems = (items: Item[]): TableSchema => {
  const tableItem = items.find((i) => i.type === 'table');
  if (!tableItem) throw new NotFoundError('Table not found');
  const table = tableOf(tableItem);
  const fieldItems = items
    .filter((i) => i.type === 'field')
    .sort((a, b) => Number(a.order) - Number(b.order));
  const fields = fieldItems.map((i) => i.field as Field);
  const fieldOrder = Object.fromEntries(fieldItems.map((i) => [(i.field as Field).id, Number(i.order)]));
  const views = items
    .filter((i) => i.type === 'view')
    .map((i) => i.view as View)
    .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
  const dependents = items
    .filter((i) => i.type === 'dependent')
    .map(
      (i): Dependent => ({
        tableId: String(i.tableId),
        fieldId: String(i.fieldId),
        linkFieldId: String(i.linkFieldId),
        inputs: Array.isArray(i.inputs) ? i.inputs.map(String) : [],
        ...(i.via && typeof i.via === 'object'
          ? {
              via: {
                tableId: String((i.via as Record<string, unknown>).tableId),
                linkFieldId: String((i.via as Record<string, unknown>).linkFieldId),
              },
            }
          : {}),
      }),
    );
  return { table, fields, views, dependents, version: table.schemaVersion, fieldOrder };
};

/**
 * The schema of a table. `table` is the table item already read (with authentication): when its
 * version matches the cached schema, no read is made; otherwise one query reads the partition.
 */
export const loadSchema = async (tableId: string, table?: Item): Promise<TableSchema> => {
  const cached = cache.get(tableId);
  if (cached && table && schemaVersionOf(table) === cached.version)
    return { ...cached, table: tableOf(table) };
  const schema = schemaFromItems(await queryAll(keys.schemaOf(tableId)));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(tableId, schema);
  return schema;
};

/**
 * The schema of a table that a record write or read of another table links to. Read at most once
 * per request, and not at all on a warm Lambda when the request read the table item with
 * authentication (`foreignTableKeys`). Never for a table the request itself changes the schema of.
 */
export const loadForeignSchema = (tableId: string): Promise<TableSchema> =>
  oncePerRequest(`schema:${tableId}`, () => loadSchema(tableId, readEarlier(keys.table(tableId))));

/**
 * The table items of the tables a cached schema links to: read with authentication, they let
 * `loadForeignSchema` answer from the cache. No read; empty when the schema is not cached.
 */
export const foreignTableKeys = (tableId: string): Key[] => {
  const cached = cache.get(tableId);
  if (!cached) return [];
  const ids = new Set<string>();
  for (const f of cached.fields) {
    const foreign =
      f.type === 'link' ? (f.options as { foreignTableId?: unknown }).foreignTableId : undefined;
    if (typeof foreign === 'string' && foreign !== tableId) ids.add(foreign);
  }
  return [...ids].map((id) => keys.table(id));
};

/** The primary field (the first field of the table). */
export const primaryField = (schema: TableSchema): Field => {
  const primary = schema.fields.find((f) => f.isPrimary) ?? schema.fields[0];
  if (!primary) throw new Error(`table ${schema.table.id} has no field`);
  return primary;
};

/** Looks a field up by id or name (filters, sorts and groups accept both). */
export const fieldByRef = (schema: TableSchema, ref: string): Field | undefined =>
  fieldIn(schema.fields, ref);

/** The table's default view: the one with the lowest order. */
export const defaultView = (schema: TableSchema): View => {
  const first = schema.views[0];
  if (!first) throw new Error(`table ${schema.table.id} has no view`);
  return first;
};

/** The operation that bumps a table's schema version, conditioned on the version read. */
export const bumpSchemaOp = (tableId: string, readVersion: number) => ({
  update: {
    key: keys.table(tableId),
    update: 'SET schemaVersion = :next, lastModifiedTime = :now',
    condition: and(
      LIVE,
      or('schemaVersion = :read', '(attribute_not_exists(schemaVersion) AND :read = :zero)'),
    ),
    values: { ':next': readVersion + 1, ':read': readVersion, ':zero': 0, ':now': new Date().toISOString() },
  },
});

/** The order number of a new field: after every existing one. */
export const nextFieldOrder = (schema: TableSchema): number =>
  Object.values(schema.fieldOrder).reduce((m, o) => Math.max(m, o + 1), 0);

/** The stored item of a field. */
export const fieldItem = (tableId: string, field: Field, order: number): Item => ({
  ...keys.field(tableId, field.id),
  type: 'field',
  order,
  field,
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
});
