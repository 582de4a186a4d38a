/**
 * The `filter-link-records` routes (teable-routes.md 2, Field and View): the records a view's
 * filter, or a link field's picker filter, names in its items on link fields, with their titles,
 * per linked table, so a client can show the filter's chosen records by name.
 */

import { NotFoundError } from '#shared/core/errors.ts';
import type { RecordPart } from '#shared/entities/records.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { isLinkField } from '#shared/fields/link-options.ts';
import { isId } from '#shared/ids.ts';
import { linkTitlesFor } from '#shared/records/links.ts';
import { linkOptions } from '#shared/schema/links.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { findView } from '#shared/schema/views.ts';

export interface FilterLinkRecords {
  tableId: string;
  records: { id: string; title: string }[];
}

/** The record ids each link field's filter items name, in the filter's order. Pure. */
export const linkFilterIds = (
  filter: unknown,
  linkFields: ReadonlyMap<string, Field>,
): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const n = node as { filterSet?: unknown; fieldId?: unknown; value?: unknown };
    if (Array.isArray(n.filterSet)) {
      for (const child of n.filterSet) visit(child);
      return;
    }
    if (typeof n.fieldId !== 'string' || !linkFields.has(n.fieldId)) return;
    const values = Array.isArray(n.value) ? n.value : [n.value];
    const ids = values.filter((v): v is string => typeof v === 'string' && isId('record', v));
    if (ids.length === 0) return;
    const list = out.get(n.fieldId) ?? [];
    for (const id of ids) if (!list.includes(id)) list.push(id);
    out.set(n.fieldId, list);
  };
  visit(filter);
  return out;
};

/**
 * The records a filter over `schema`'s fields names through link fields, grouped by the table
 * they belong to (first named first). Records that no longer exist are left out; a table whose
 * named records are all gone is answered with none.
 */
const filterLinkRecords = async (schema: TableSchema, filter: unknown): Promise<FilterLinkRecords[]> => {
  const linkFields = new Map(schema.fields.filter((f) => f.type === 'link').map((f) => [f.id, f]));
  const named = linkFilterIds(filter, linkFields);
  if (named.size === 0) return [];
  // One pseudo record holding every named id in its link cells: titles are read as for a listing.
  const holder: RecordPart = { id: '', ...Object.fromEntries(named) };
  const titles = await linkTitlesFor(schema, [holder], new Set(named.keys()));
  const byTable = new Map<string, FilterLinkRecords>();
  for (const [fieldId, ids] of named) {
    const tableId = linkOptions(linkFields.get(fieldId) as Field).foreignTableId;
    const entry = byTable.get(tableId) ?? { tableId, records: [] };
    byTable.set(tableId, entry);
    for (const id of ids) {
      const title = titles.linkTitle(fieldId, id);
      if (title !== undefined && !entry.records.some((r) => r.id === id)) entry.records.push({ id, title });
    }
  }
  return [...byTable.values()];
};

/** `GET …/view/{viewId}/filter-link-records`: the records the view's filter names. */
export const viewFilterLinkRecords = (schema: TableSchema, viewId: string): Promise<FilterLinkRecords[]> =>
  filterLinkRecords(schema, findView(schema, viewId).filter);

/**
 * `GET …/field/{fieldId}/filter-link-records`: the records a link field's picker filter
 * (`options.filter`, over the foreign table) names. A field without a picker filter (a link
 * without one, or any other type) names none, as in Teable.
 */
export const fieldFilterLinkRecords = async (
  schema: TableSchema,
  fieldId: string,
): Promise<FilterLinkRecords[]> => {
  const field = schema.fields.find((f) => f.id === fieldId);
  if (!field) throw new NotFoundError(`Field ${fieldId} not found in table ${schema.table.id}`);
  if (!isLinkField(field)) return [];
  const { filter, foreignTableId } = linkOptions(field);
  if (!filter) return [];
  const foreign = foreignTableId === schema.table.id ? schema : await loadSchema(foreignTableId);
  return filterLinkRecords(foreign, filter);
};
