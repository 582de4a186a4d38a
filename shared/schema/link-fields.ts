import { NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import type { TransactOp } from '#shared/db/commit.ts';
import { createFieldOp, deleteFieldOp } from '#shared/entities/schema-items.ts';
import { dbFieldNameFrom, uniqueDbFieldName } from '#shared/fields/field-names.ts';
import type { Field, LinkRelationship } from '#shared/fields/field-types.ts';
import { type LinkOptions, linkOptionsOf } from '#shared/fields/link-options.ts';
import { linkStorageNames } from '#shared/fields/link-storage.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import { resolveFilter } from '#shared/query/filter.ts';
import { bumpSchemaOp, loadSchema, nextFieldOrder, primaryField, type TableSchema } from './schema.ts';

export type { LinkOptions } from '#shared/fields/link-options.ts';

/**
 * Checks that the caller may link to a table of `baseId` (create a field there): a 403 when it may
 * not, a `NotFoundError` when it cannot see the base (answered as the table not found).
 */
export type LinkAccess = (baseId: string) => Promise<void>;

/** A link field's options, typed (`linkOptionsOf`). */
export const linkOptions = (field: Field): LinkOptions => linkOptionsOf(field.options);

/**
 * A link's picker limits checked against the foreign table's fields and views: the filter as a
 * view filter is (`options.filter.…` names a bad part), the view and the visible fields must be
 * the foreign table's. An empty filter is dropped. Answers the field with the resolved filter.
 */
export const checkLinkPicker = (field: Field, foreign: TableSchema): Field => {
  const opts = linkOptions(field);
  const options: Record<string, unknown> = { ...field.options };
  if (opts.filter !== undefined) {
    const filter = resolveFilter(opts.filter, foreign.fields, 'options.filter');
    if (filter && filter.filterSet.length > 0) options.filter = filter;
    else delete options.filter;
  }
  if (opts.filterByViewId !== undefined && !foreign.views.some((v) => v.id === opts.filterByViewId))
    throw new ValidationError(
      `options.filterByViewId: view ${opts.filterByViewId} not found in the foreign table`,
    );
  for (const id of opts.visibleFieldIds ?? [])
    if (!foreign.fields.some((f) => f.id === id))
      throw new ValidationError(`options.visibleFieldIds: field ${id} not found in the foreign table`);
  return { ...field, options };
};

/** True when a record on this side links at most one foreign record. */
export const singleHere = (r: LinkRelationship) => r === 'manyOne' || r === 'oneOne';
/** True when a foreign record is linked from at most one record on this side. */
export const singleThere = (r: LinkRelationship) => r === 'oneMany' || r === 'oneOne';

/** The relationship of the symmetric field, seen from the foreign table. */
export const mirrorRelationship = (r: LinkRelationship): LinkRelationship =>
  r === 'manyOne' ? 'oneMany' : r === 'oneMany' ? 'manyOne' : r;

/**
 * Completes a new link field and writes its other side: `lookupFieldId` is the foreign primary
 * field, and unless the link is one-way a symmetric link field is created in the foreign table
 * (named after this table, made unique there) pointing back. The foreign table must be a table
 * of the same base, or of another base named in `options.baseId` that `linkAccess` lets the
 * caller reach. Answers the completed field and the operations for the foreign table.
 * `pending` holds the symmetric fields the same call already adds, by table: a second link into
 * one table takes the next name and order there, and its schema is bumped once (two updates of
 * one item cannot share a transaction).
 */
export const prepareLinkField = async (
  field: Field,
  here: {
    tableId: string;
    tableName: string;
    /** The table's database name: the host of its many-one and one-one links' names. */
    dbTableName: string;
    baseId: string;
    schema?: TableSchema;
    primaryFieldId: string;
    selfOrder: number;
    pending?: Map<string, Field[]>;
    /** The other side this write deletes (a converted link's): the new one may take its names. */
    replacing?: string;
    /** Checks the caller may link to a table of another base (undefined: links stay in the base). */
    linkAccess?: LinkAccess;
  },
): Promise<{ field: Field; ops: TransactOp[]; symmetric?: { tableId: string; field: Field } }> => {
  let opts = linkOptions(field);
  const self = opts.foreignTableId === here.tableId;
  let foreign: TableSchema | undefined;
  if (!self) {
    foreign = await loadSchema(opts.foreignTableId).catch(() => undefined);
    // one answer for a table that does not exist and one in another base the caller did not name
    // or may not reach (another tenant's, perhaps): a caller learns nothing about ids outside the
    // bases it works in
    const notFound = () =>
      new ValidationError(
        `Field "${field.name}": foreign table ${opts.foreignTableId} not found in ${opts.baseId && opts.baseId !== here.baseId ? `base ${opts.baseId}` : 'this base'}`,
      );
    if (!foreign || foreign.table.deletedTime) throw notFound();
    const there = foreign.table.baseId;
    if (opts.baseId !== undefined && opts.baseId !== there) throw notFound();
    if (there !== here.baseId) {
      // a link to another base is named as such (`baseId`), by a caller who may create fields there
      if (opts.baseId !== there || !here.linkAccess) throw notFound();
      await here.linkAccess(there).catch((error: unknown) => {
        throw error instanceof NotFoundError ? notFound() : error;
      });
    }
  }
  // each side of a link between two bases names the other's base; a link within one names none
  const crossBase = foreign !== undefined && foreign.table.baseId !== here.baseId;
  if (!crossBase && opts.baseId !== undefined) {
    const { baseId: _, ...rest } = opts;
    opts = rest;
    field = { ...field, options: rest as Record<string, unknown> };
  }
  const lookupFieldId = self ? here.primaryFieldId : primaryField(foreign as TableSchema).id;
  const pickerTable = self ? here.schema : foreign;
  if (pickerTable) {
    field = checkLinkPicker(field, pickerTable);
    opts = linkOptions(field);
  }
  const symmetricFieldId = opts.isOneWay ? undefined : newId('field');
  const names = linkStorageNames({
    baseId: here.baseId,
    fieldId: field.id,
    relationship: opts.relationship,
    symmetricFieldId,
    dbTableName: here.dbTableName,
    foreignDbTableName: self ? here.dbTableName : (foreign as TableSchema).table.dbTableName,
    random: randomBase62(16),
  });
  if (!symmetricFieldId)
    return { field: { ...field, options: { ...opts, lookupFieldId, ...names.origin } }, ops: [] };
  const completed: Field = {
    ...field,
    options: { ...opts, lookupFieldId, symmetricFieldId, ...names.origin },
  };
  const targetTable = self ? here.tableId : opts.foreignTableId;
  const pending = here.pending?.get(targetTable) ?? [];
  const foreignFields = [
    ...(self ? [...(here.schema?.fields ?? []), completed] : (foreign as TableSchema).fields),
    ...pending,
  ].filter((f) => f.id !== here.replacing);
  const name = uniqueName(
    here.tableName,
    foreignFields.map((f) => f.name),
  );
  const symmetric: Field = {
    id: symmetricFieldId,
    name,
    type: 'link',
    options: {
      relationship: mirrorRelationship(opts.relationship),
      foreignTableId: here.tableId,
      symmetricFieldId: field.id,
      lookupFieldId: here.primaryFieldId,
      ...(crossBase ? { baseId: here.baseId } : {}),
      ...names.symmetric,
    },
    dbFieldName: uniqueDbFieldName(
      dbFieldNameFrom(name),
      foreignFields.map((f) => f.dbFieldName),
    ),
    cellValueType: 'string',
    // Like every field (fields/define.ts): the flag is present only when true.
    ...(mirrorRelationship(opts.relationship) === 'oneMany' || opts.relationship === 'manyMany'
      ? { isMultipleCellValue: true }
      : {}),
    dbFieldType: 'JSON',
  };
  const order = self ? here.selfOrder : nextFieldOrder(foreign as TableSchema) + pending.length;
  const ops: TransactOp[] = [createFieldOp(targetTable, symmetric, order)];
  if (!self && pending.length === 0)
    ops.push(bumpSchemaOp(opts.foreignTableId, (foreign as TableSchema).version));
  here.pending?.set(targetTable, [...pending, symmetric]);
  return { field: completed, ops, symmetric: { tableId: targetTable, field: symmetric } };
};

/** The operations that delete the other side of a link field being deleted. */
export const symmetricDeleteOps = async (field: Field, tableId: string): Promise<TransactOp[]> => {
  const opts = linkOptions(field);
  if (field.type !== 'link' || opts.isOneWay || !opts.symmetricFieldId) return [];
  if (opts.foreignTableId === tableId) return [deleteFieldOp(tableId, opts.symmetricFieldId)];
  const foreign = await loadSchema(opts.foreignTableId).catch(() => undefined);
  if (!foreign) return [];
  return [
    deleteFieldOp(opts.foreignTableId, opts.symmetricFieldId),
    bumpSchemaOp(opts.foreignTableId, foreign.version),
  ];
};
