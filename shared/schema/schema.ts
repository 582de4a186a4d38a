import { LRUCache } from 'lru-cache';
import { NotFoundError } from '#shared/core/errors.ts';
import { oncePerRequest } from '#shared/db/request-scope.ts';
import { type ItemKey, valueReadEarlier } from '#shared/entities/batch-read.ts';
import {
  type Dependent,
  readSchemaParts,
  type SchemaParts,
  type View,
} from '#shared/entities/schema-items.ts';
import { bumpSchemaVersionOp, type Table, tableLookup } from '#shared/entities/tables.ts';
import { fieldByRef as fieldIn } from '#shared/fields/field-names.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { linkOptionsOf } from '#shared/fields/link-options.ts';

/** How request bodies and answers key a record's fields: by name, id or dbFieldName. */
export const FIELD_KEY_TYPES = ['name', 'id', 'dbFieldName'] as const;
export type FieldKeyType = (typeof FIELD_KEY_TYPES)[number];

export type { ColumnMeta, Dependent, SortItem, View, ViewType } from '#shared/entities/schema-items.ts';
export { VIEW_TYPES } from '#shared/entities/schema-items.ts';

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

/**
 * Schemas of this process by table, checked against the table item's version on every use; the
 * 500 most recently used are kept (a warm Lambda serving many tables keeps the ones in use).
 */
const cache = new LRUCache<string, TableSchema>({ max: 500 });

/** Builds a schema from the parts its partition holds (or a new table's, `newSchemaParts`). Pure. */
export const schemaFromParts = (parts: SchemaParts): TableSchema => {
  const { table } = parts;
  if (!table) throw new NotFoundError('Table not found');
  const fieldEntries = [...parts.fieldEntries].sort((a, b) => a.order - b.order);
  const fields = fieldEntries.map((e) => e.field);
  const fieldOrder = Object.fromEntries(fieldEntries.map((e) => [e.field.id, e.order]));
  const views = [...parts.views].sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
  return { table, fields, views, dependents: parts.dependents, version: table.schemaVersion, fieldOrder };
};

/**
 * The schema of a table. `table` is the table already read (with authentication): when its schema
 * version matches the cached schema, no read is made; otherwise one query reads the partition.
 */
export const loadSchema = async (tableId: string, table?: Table): Promise<TableSchema> => {
  const cached = cache.get(tableId);
  if (cached && table && table.schemaVersion === cached.version) return { ...cached, table };
  const schema = schemaFromParts(await readSchemaParts(tableId));
  cache.set(tableId, schema);
  return schema;
};

/**
 * The schema of a table that a record write or read of another table links to. Read at most once
 * per request, and not at all on a warm Lambda when the request read the table item with
 * authentication (`foreignTableKeys`). Never for a table the request itself changes the schema of.
 */
export const loadForeignSchema = (tableId: string): Promise<TableSchema> =>
  oncePerRequest(`schema:${tableId}`, () => loadSchema(tableId, valueReadEarlier(tableLookup(tableId))));

/**
 * The table items of the tables a cached schema links to: read with authentication, they let
 * `loadForeignSchema` answer from the cache. No read; empty when the schema is not cached.
 */
export const foreignTableKeys = (tableId: string): ItemKey[] => {
  const cached = cache.get(tableId);
  if (!cached) return [];
  const ids = new Set<string>();
  for (const f of cached.fields) {
    const foreign = f.type === 'link' ? linkOptionsOf(f.options).foreignTableId : '';
    if (foreign && foreign !== tableId) ids.add(foreign);
  }
  return [...ids].map((id) => tableLookup(id).key);
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
export const bumpSchemaOp = (tableId: string, readVersion: number) =>
  bumpSchemaVersionOp(tableId, readVersion);

/** The order number of a new field: after every existing one. */
export const nextFieldOrder = (schema: TableSchema): number =>
  Object.values(schema.fieldOrder).reduce((m, o) => Math.max(m, o + 1), 0);
