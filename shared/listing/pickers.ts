/**
 * The link-cell pickers (contract `listing.md` section 6): which records of this table may still
 * go into a link cell (`filterLinkCellCandidate`) or are in it (`filterLinkCellSelected`). The
 * link field `fldL` may belong to another table of the base (or to this one) and must point at
 * this table.
 *
 * "Linked from any record" is read from this table's symmetric field when the link has one (its
 * cells here are exactly the records linking to each record), else (a one-way link) from the link
 * field's column across its own table, read with a projection.
 */

import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { tableRefsOfBase } from '#shared/entities/bases.ts';
import { getRecordParts } from '#shared/entities/records.ts';
import type { Field, LinkRelationship } from '#shared/fields/field-types.ts';
import { andFilters, resolveFilter } from '#shared/query/filter.ts';
import type { FilterGroup } from '#shared/query/query-types.ts';
import { rangesFor, readAllRecords } from '#shared/records/rows.ts';
import { linkOptions, singleThere } from '#shared/schema/link-fields.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import type { LinkCellRef } from './params.ts';

const idsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** The link field of a picker and what is known about it. */
export interface PickerLink {
  field: Field;
  /** The table the link field belongs to. */
  ownerTableId: string;
  relationship: LinkRelationship;
  /** This table's field holding the other side, when the link is two-way. */
  symmetricFieldId?: string;
}

/** Finds the picker's link field in this table or another table of the base; checks it. */
export const findPickerLink = async (
  schema: TableSchema,
  ref: LinkCellRef,
  param: string,
): Promise<PickerLink> => {
  const tableId = schema.table.id;
  let field = schema.fields.find((f) => f.id === ref.fieldId);
  let ownerTableId = tableId;
  if (!field) {
    const baseId = schema.table.baseId;
    const refs = await tableRefsOfBase(baseId);
    const others = refs
      .filter((r) => !r.deletedTime)
      .map((r) => r.tableId)
      .filter((id) => id !== tableId);
    const schemas = await Promise.all(others.map((id) => loadSchema(id).catch(() => undefined)));
    for (const other of schemas) {
      const found = other?.fields.find((f) => f.id === ref.fieldId);
      if (found && other) {
        field = found;
        ownerTableId = other.table.id;
        break;
      }
    }
  }
  if (!field) throw new NotFoundError(`${param}: field ${ref.fieldId} not found`);
  if (field.type !== 'link') throw new ValidationError(`${param}: field ${field.id} is not a link field`);
  const opts = linkOptions(field);
  if (opts.foreignTableId !== tableId)
    throw new ValidationError(`${param}: field ${field.id} does not link to table ${tableId}`);
  const symmetric =
    !opts.isOneWay && opts.symmetricFieldId
      ? schema.fields.find((f) => f.id === opts.symmetricFieldId && f.type === 'link')
      : undefined;
  return {
    field,
    ownerTableId,
    relationship: opts.relationship,
    ...(symmetric ? { symmetricFieldId: symmetric.id } : {}),
  };
};

/** The ids in one record's link cell, in the cell's order; an unknown record is a 404. */
export const linkCellIds = async (link: PickerLink, recordId: string): Promise<string[]> => {
  const item = (await getRecordParts(link.ownerTableId, [recordId], [link.field.id])).get(recordId);
  if (!item) throw new NotFoundError(`Record ${recordId} not found in table ${link.ownerTableId}`);
  return idsOf(item[link.field.id]);
};

/**
 * Records of this table linked from any record through the link, read from the link field's
 * column (one-way links; two-way links read this table's symmetric cells with the rows instead).
 */
export const linkedThroughColumn = async (link: PickerLink): Promise<Set<string>> => {
  const owner = await loadSchema(link.ownerTableId);
  const items = await readAllRecords(
    link.ownerTableId,
    ['id', link.field.id],
    rangesFor(owner.table.autoNumber),
  );
  return new Set(items.flatMap((i) => idsOf(i[link.field.id])));
};

/** What a candidate picker leaves out: records linked anywhere ("one" side) and the cell's own. */
export const candidateRule = (link: PickerLink) => ({
  excludeLinkedAnywhere: singleThere(link.relationship),
});

/**
 * What a candidate picker adds to the query: the link's own `filter` and the filter of its
 * `filterByViewId` view, both over this table (parts a later field change made stale are left
 * out, as for a saved view filter). Null when the link sets neither. Pure.
 */
export const candidateFilter = (schema: TableSchema, link: PickerLink): FilterGroup | null => {
  const opts = linkOptions(link.field);
  const own = opts.filter
    ? resolveFilter(opts.filter, schema.fields, 'link filter', { dropInvalid: true })
    : null;
  const view = opts.filterByViewId ? schema.views.find((v) => v.id === opts.filterByViewId) : undefined;
  const viewFilter = view?.filter
    ? resolveFilter(view.filter, schema.fields, 'link view filter', { dropInvalid: true })
    : null;
  return andFilters(own, viewFilter);
};
