/**
 * The column type the reference gives a field (`dbFieldType`), answered on every field because
 * Teable's client types require it. Ours is a document store, so it describes the cell, not a
 * column: a list is `JSON`; links, users, attachments, buttons and the created / modified by
 * fields are `JSON` even with one value (their cells are objects); an auto number is `INTEGER`;
 * anything else follows its cell value type (`TEXT`, `REAL`, `BOOLEAN`, `DATETIME`). Pure.
 */
import type { CellValueType, Field } from './field-types.ts';
import { linkNamesOf } from './link-storage.ts';

export type DbFieldType = 'TEXT' | 'INTEGER' | 'REAL' | 'BOOLEAN' | 'DATETIME' | 'JSON';

const OBJECT_TYPES: ReadonlySet<string> = new Set([
  'link',
  'user',
  'attachment',
  'button',
  'createdBy',
  'lastModifiedBy',
]);

const BY_CELL_VALUE: Record<CellValueType, DbFieldType> = {
  string: 'TEXT',
  number: 'REAL',
  boolean: 'BOOLEAN',
  dateTime: 'DATETIME',
};

/** A field's (or a computed result's, without `type`) `dbFieldType`. */
export const dbFieldTypeOf = (field: {
  type?: string;
  isLookup?: boolean;
  cellValueType: CellValueType;
  isMultipleCellValue?: boolean;
}): DbFieldType => {
  if (field.isMultipleCellValue) return 'JSON';
  if (field.type !== undefined && OBJECT_TYPES.has(field.type)) return 'JSON';
  if (field.type === 'autoNumber' && !field.isLookup) return 'INTEGER';
  return BY_CELL_VALUE[field.cellValueType] ?? 'TEXT';
};

/**
 * A field as it is answered, complete as Teable's `fieldVo` requires: its `dbFieldType` (a field
 * stored before it was kept gets it here), a link's storage names, and no `null` description
 * (Teable's schema takes text or nothing). Pure.
 */
export const answerField = (field: Field): Field => {
  let out = field.dbFieldType ? field : { ...field, dbFieldType: dbFieldTypeOf(field) };
  if (out.description === null) {
    const { description: _, ...rest } = out;
    out = rest;
  }
  if (out.type === 'link' && out.options.fkHostTableName === undefined)
    out = { ...out, options: { ...out.options, ...linkNamesOf(out) } };
  return out;
};
