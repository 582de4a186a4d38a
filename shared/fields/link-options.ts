/**
 * The options of a link field as stored, read with their types checked: the one place that turns
 * a link field's `options` object into `LinkOptions`. Pure.
 */
import type { Field, LinkRelationship } from './field-types.ts';

/** The four link relationships. */
export const LINK_RELATIONSHIPS: readonly LinkRelationship[] = ['oneOne', 'oneMany', 'manyOne', 'manyMany'];

/** True when a cell of the relationship holds a list (`oneMany`, `manyMany`). */
export const isMultipleRelationship = (relationship: unknown): boolean =>
  relationship === 'oneMany' || relationship === 'manyMany';

const isRelationship = (v: unknown): v is LinkRelationship => LINK_RELATIONSHIPS.some((r) => r === v);

export interface LinkOptions {
  relationship: LinkRelationship;
  foreignTableId: string;
  /** The foreign table's base, on a link between two bases (each side names the other's). */
  baseId?: string;
  isOneWay?: boolean;
  symmetricFieldId?: string;
  lookupFieldId?: string;
  /** The picker's limits, over the foreign table: its records must pass `filter` and the view's filter (checked when written). */
  filter?: unknown;
  filterByViewId?: string;
  visibleFieldIds?: string[];
  /** Teable's storage names (`link-storage.ts`): names only, set by the schema layer. */
  fkHostTableName?: string;
  selfKeyName?: string;
  foreignKeyName?: string;
}

const optionalText = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A link field's options. Options are checked when a field is written; an attribute of the wrong
 * type here reads as absent (a relationship as manyMany, a foreign table as `''`, which names none).
 */
export const linkOptionsOf = (options: Readonly<Record<string, unknown>>): LinkOptions => {
  const relationship = isRelationship(options.relationship) ? options.relationship : 'manyMany';
  const out: LinkOptions = { relationship, foreignTableId: optionalText(options.foreignTableId) ?? '' };
  if (typeof options.isOneWay === 'boolean') out.isOneWay = options.isOneWay;
  for (const k of [
    'baseId',
    'symmetricFieldId',
    'lookupFieldId',
    'filterByViewId',
    'fkHostTableName',
    'selfKeyName',
    'foreignKeyName',
  ] as const) {
    const v = optionalText(options[k]);
    if (v !== undefined) out[k] = v;
  }
  if (options.filter !== undefined && options.filter !== null) out.filter = options.filter;
  if (Array.isArray(options.visibleFieldIds))
    out.visibleFieldIds = options.visibleFieldIds.filter((v): v is string => typeof v === 'string');
  return out;
};

/** A link field itself: it holds linked record ids (not a lookup that shows another link's). */
export const isLinkField = (field: Pick<Field, 'type' | 'isLookup'>): boolean =>
  field.type === 'link' && !field.isLookup;

/** A lookup of a link field: it shows the links of the records it reaches. */
export const isLinkLookup = (field: Pick<Field, 'type' | 'isLookup'>): boolean =>
  field.type === 'link' && field.isLookup === true;
