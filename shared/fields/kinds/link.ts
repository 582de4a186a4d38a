/** link (fields.md "Types", "Writing values"): ids of records in the foreign table. */
import { isId } from '#shared/ids.ts';
import type { Field, FieldKind, LinkRelationship, StoredCell } from '../field-types.ts';
import {
  cellError,
  isNothing,
  isRecord,
  optionalBoolean,
  optionsError,
  readOptions,
  splitList,
  textOf,
  unique,
} from '../kind-helpers.ts';
import { isMultipleRelationship, LINK_RELATIONSHIPS } from '../link-options.ts';

// read per cell: the one option, not the whole typed options
const multipleOf = (field: Field): boolean => isMultipleRelationship(field.options.relationship);

const idsOf = (value: StoredCell): string[] =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? [value]
      : [];

/** The record id one written item names (`"rec…"` or `{id: "rec…"}`), or undefined. */
const recordIdOf = (item: unknown): string | undefined => {
  const id = isRecord(item) ? item.id : item;
  return isId('record', id) ? id : undefined;
};

/** A typecast item split into record ids and texts still to find by title. */
const sortItem = (item: unknown, ids: string[], titles: string[]): void => {
  const id = recordIdOf(item);
  if (id) ids.push(id);
  else if (isRecord(item) && typeof item.title === 'string') titles.push(item.title.trim());
  else if (!isRecord(item) && !Array.isArray(item)) titles.push(textOf(item).trim());
};

/** The linked records with their titles; ids without a title (deleted records) are left out. */
const linkedOf = (value: StoredCell, field: Field, linkTitle: (f: string, r: string) => string | undefined) =>
  idsOf(value).flatMap((id) => {
    const title = linkTitle(field.id, id);
    return title === undefined ? [] : [{ id, title }];
  });

/**
 * A link cell: stored as record ids; answered as `{id, title}` (`{id}` when the record's primary cell is empty) or a list of them for
 * `oneMany`/`manyMany`. Whether the ids exist in the foreign table is the write path's check.
 */
export const link: FieldKind = {
  type: 'link',
  // the caller names a new link after the foreign table (fields.md); this is only the fallback
  defaultName: 'Link',
  isComputed: false,
  allowedAsPrimary: false,
  normalizeOptions(options) {
    const o = readOptions(options, 'link');
    if (!LINK_RELATIONSHIPS.includes(o.relationship as LinkRelationship))
      throw optionsError('link', `relationship must be one of ${LINK_RELATIONSHIPS.join(', ')}`);
    if (!isId('table', o.foreignTableId))
      throw optionsError('link', 'foreignTableId must be a table id (tbl…)');
    const out: Record<string, unknown> = { relationship: o.relationship, foreignTableId: o.foreignTableId };
    const isOneWay = optionalBoolean(o, 'isOneWay', 'link');
    if (isOneWay !== undefined) out.isOneWay = isOneWay;
    // set by the schema layer; kept when an update passes the stored options back through here
    for (const key of ['symmetricFieldId', 'lookupFieldId'] as const) {
      if (isNothing(o[key])) continue;
      if (!isId('field', o[key])) throw optionsError('link', `${key} must be a field id (fld…)`);
      out[key] = o[key];
    }
    // the foreign table's base, for a link to another base (checked by the schema layer)
    if (!isNothing(o.baseId)) {
      if (!isId('base', o.baseId)) throw optionsError('link', 'baseId must be a base id (bse…)');
      out.baseId = o.baseId;
    }
    // the picker's limits (teable-routes.md, Field): checked against the foreign table by the schema layer
    if (!isNothing(o.filter)) {
      if (!isRecord(o.filter))
        throw optionsError('link', 'filter must be a filter object {conjunction, filterSet}');
      out.filter = o.filter;
    }
    if (!isNothing(o.filterByViewId)) {
      if (!isId('view', o.filterByViewId))
        throw optionsError('link', 'filterByViewId must be a view id (viw…)');
      out.filterByViewId = o.filterByViewId;
    }
    if (!isNothing(o.visibleFieldIds)) {
      const ids = o.visibleFieldIds;
      if (!Array.isArray(ids) || !ids.every((id) => isId('field', id)))
        throw optionsError('link', 'visibleFieldIds must be a list of field ids (fld…)');
      out.visibleFieldIds = unique(ids as string[]);
    }
    return out;
  },
  cellValueType: () => 'string',
  isMultipleCellValue: (options) => isMultipleRelationship(options.relationship),
  validate(value, field) {
    if (isNothing(value)) return { value: undefined };
    const multiple = multipleOf(field);
    const expected = multiple ? 'expected a non-empty list of {id} of records' : 'expected {id} of a record';
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0) throw cellError(field, expected);
    const given = items.map((item) => {
      const id = recordIdOf(item);
      if (!id) throw cellError(field, expected);
      return id;
    });
    const ids = unique(given);
    // as Teable refuses it (typecast, more lenient, keeps one of each)
    if (ids.length < given.length)
      throw cellError(field, `the same record twice: ${given.find((id, i) => given.indexOf(id) !== i)}`);
    if (!multiple && ids.length > 1) throw cellError(field, `expected one record, got ${ids.length}`);
    return { value: ids };
  },
  /**
   * Ids stay ids in `value`; other texts go to `linkTitles` for the write path to find by the
   * foreign primary field. The cell becomes `value` plus the records found for `linkTitles`. A
   * single relationship keeps only the first item given.
   */
  typecast(value, field) {
    if (isNothing(value)) return { value: undefined };
    const items = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : [value];
    const ids: string[] = [];
    const titles: string[] = [];
    for (const item of multipleOf(field) ? items : items.slice(0, 1)) sortItem(item, ids, titles);
    const linkTitles = unique(titles.filter((t) => t !== ''));
    return {
      value: ids.length ? unique(ids) : undefined,
      ...(linkTitles.length ? { linkTitles } : {}),
    };
  },
  defaultValue: () => undefined,
  /** Undefined when no linked record is left, so the record path leaves the cell out. */
  toJson(value, field, ctx) {
    // a record whose primary cell is empty has no title: `{id}`, as Teable answers it
    const linked = linkedOf(value, field, ctx.linkTitle).map((l) => (l.title === '' ? { id: l.id } : l));
    if (linked.length === 0) return undefined;
    return multipleOf(field) ? linked : linked[0];
  },
  toText: (value, field, ctx) =>
    linkedOf(value, field, ctx.linkTitle)
      .map((l) => l.title)
      .join(', '),
  query: { valueClass: 'link', searchedByDefault: true, searchCost: 1 },
};
