import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import {
  commitSteps,
  MAX_TRANSACTION_ITEMS,
  type Step,
  type TransactOp,
  transact,
  withoutRepeatedDeletes,
} from '#shared/db/commit.ts';
import { queryRecordParts } from '#shared/entities/records.ts';
import {
  createFieldOp,
  deleteFieldOp,
  putFieldOp,
  putViewOp,
  replaceFieldOp,
  schemaOpsWithUndo,
} from '#shared/entities/schema-items.ts';
import { oneBumpPerTable } from '#shared/entities/tables.ts';
import { answerField } from '#shared/fields/db-field-type.ts';
import {
  assertPrimaryAllowed,
  choiceChanges,
  defineField,
  updateField as patchField,
} from '#shared/fields/define.ts';
import { dependentsOf, isDerived, sameTableInputs } from '#shared/fields/dependencies.ts';
import type { Field, StoredCell } from '#shared/fields/field-types.ts';
import { resolverOf } from '#shared/fields/formula-resolve.ts';
import { isEmptyCell } from '#shared/fields/kind-helpers.ts';
import { isLinkField } from '#shared/fields/link-options.ts';
import { linkStorageNames, storedLinkNames } from '#shared/fields/link-storage.ts';
import type { ForeignFields } from '#shared/fields/lookup.ts';
import { newId } from '#shared/ids.ts';
import { rewriteChoiceCells } from '#shared/records/choices.ts';
import { type Broken, convertedCellSteps } from '#shared/records/field-conversion.ts';
import { cellOf } from '#shared/records/model.ts';
import { recomputeSteps } from '#shared/records/recompute.ts';
import { claimRebuildSteps } from '#shared/records/unique.ts';
import {
  checkLinkPicker,
  type LinkAccess,
  linkOptions,
  mirrorRelationship,
  prepareLinkField,
  symmetricDeleteOps,
} from '#shared/schema/link-fields.ts';
import {
  bumpSchemaOp,
  loadSchema,
  nextFieldOrder,
  primaryField,
  type SortItem,
  type TableSchema,
  type View,
} from '#shared/schema/schema.ts';
import { completeColumnMeta } from '#shared/schema/views.ts';
import { assertNoCrossTableCycle, dependentOps } from './dependents.ts';

const schemaConflict = () => new ConflictError('The table changed at the same time; retry');

/**
 * A link without a name is named after its foreign table (fields.md, default names), only when
 * that table is in the same base: the name of another base's table must not reach an answer.
 */
export const linkDefaultName = async (
  input: Record<string, unknown>,
  baseId: string,
): Promise<string | undefined> => {
  const foreignTableId = (input.options as { foreignTableId?: unknown } | undefined)?.foreignTableId;
  if (input.type !== 'link' || typeof foreignTableId !== 'string') return undefined;
  const foreign = await loadSchema(foreignTableId).catch(() => undefined);
  return foreign && foreign.table.baseId === baseId && !foreign.table.deletedTime
    ? foreign.table.name
    : undefined;
};

/** Finds a field of the table by id, or a 404. */
export const findField = (schema: TableSchema, fieldId: string): Field => {
  const field = schema.fields.find((f) => f.id === fieldId);
  if (!field) throw new NotFoundError(`Field ${fieldId} not found in table ${schema.table.id}`);
  return field;
};

/**
 * Fields in a view's column order, or in table order without a view; as Teable's field list, the
 * view's hidden ones left out only with `filterHidden` (which needs the view), and
 * `excludeFieldIds` left out.
 */
export const fieldsInViewOrder = (
  schema: TableSchema,
  view: View | undefined,
  only: { filterHidden?: boolean; excludeFieldIds?: readonly string[] } = {},
): Field[] => {
  const excluded = new Set(only.excludeFieldIds ?? []);
  const fields = schema.fields.filter((f) => !excluded.has(f.id));
  if (!view) return fields;
  const meta = completeColumnMeta(view.columnMeta, schema.fields);
  return fields
    .filter((f) => !only.filterHidden || !meta[f.id]?.hidden)
    .sort((a, b) => (meta[a.id]?.order ?? 0) - (meta[b.id]?.order ?? 0));
};

/** Creates a field at the end of the table. */
export const createField = async (
  schema: TableSchema,
  input: Record<string, unknown>,
  /** Lets a link reach a table of another base the caller may create fields in. */
  linkAccess?: LinkAccess,
) => {
  const tableId = schema.table.id;
  const defined = defineField(input, {
    existing: schema.fields,
    renameTakenName: true,
    newChoiceId: () => newId('choice'),
    defaultName: await linkDefaultName(input, schema.table.baseId),
    foreign: await linkedFields(schema, input.lookupOptions),
  });
  const order = nextFieldOrder(schema);
  const { field, ops } =
    defined.type === 'link'
      ? await prepareLinkField(defined, {
          tableId,
          tableName: schema.table.name,
          dbTableName: schema.table.dbTableName,
          baseId: schema.table.baseId,
          schema,
          primaryFieldId: primaryField(schema).id,
          selfOrder: order + 1,
          linkAccess,
        })
      : { field: defined, ops: [] };
  const after = withFields(schema, [...schema.fields, field], { [field.id]: order });
  await commitSchemaChange(
    tableId,
    [
      createFieldOp(tableId, field, order),
      ...ops,
      ...(await dependentOps(tableId, undefined, field, schema.fields, after.fields)),
      bumpSchemaOp(tableId, schema.version),
    ],
    isDerived(field) ? await recomputeSteps(after, new Set([field.id]), new Date()) : [],
  );
  return answerField(field);
};

/**
 * The fields of the table a lookup or rollup reads, for `defineField`: loaded only when the
 * link it names is a link of this table (a foreign table id is never read on the caller's word).
 */
export const linkedFields = async (schema: TableSchema, lookupOptions: unknown): Promise<ForeignFields> => {
  const linkFieldId = (lookupOptions as { linkFieldId?: unknown } | undefined)?.linkFieldId;
  const link = schema.fields.find((f) => f.id === linkFieldId && isLinkField(f));
  const foreignTableId = link ? linkOptions(link).foreignTableId : undefined;
  const foreign =
    foreignTableId && foreignTableId !== schema.table.id
      ? await loadSchema(foreignTableId).catch(() => undefined)
      : undefined;
  return (id) =>
    id === schema.table.id ? schema.fields : id === foreignTableId ? foreign?.fields : undefined;
};

/** A schema with other fields (a change about to be stored). */
const withFields = (
  schema: TableSchema,
  fields: Field[],
  order: Record<string, number> = {},
): TableSchema => ({
  ...schema,
  fields,
  fieldOrder: { ...schema.fieldOrder, ...order },
});

/**
 * Stores a schema change and the record rewrites it causes (formula cells recomputed) as one
 * write: a transaction when it fits, else a journaled write (all or nothing, crash repair).
 */
const commitSchemaChange = async (tableId: string, ops: TransactOp[], records: Step[]) => {
  if (records.length === 0) return transact(ops, schemaConflict);
  await commitSteps(tableId, [...(await schemaSteps(ops)), ...records], schemaConflict);
};

/**
 * Schema operations as steps of a journaled write, each with its undo: the item as read just
 * before (a field a conversion rewrites gets its old definition back when the write is undone,
 * so cells and definition never disagree), or a delete of what the write creates. Updates (the
 * schema version bumps) are not undone: a version that moved on only makes readers read again.
 */
const schemaSteps = (ops: readonly TransactOp[]): Promise<Step[]> => schemaOpsWithUndo(ops);

/**
 * The table's fields after the formulas reading `fieldId` (directly or through each other) were
 * resolved again: their result type follows, misfitting display options are dropped.
 */
const reinferDependents = (fields: Field[], fieldId: string): { fields: Field[]; changed: Field[] } => {
  const current = [...fields];
  const changed: Field[] = [];
  for (const dependent of dependentsOf(fields, new Set([fieldId]))) {
    const resolve = resolverOf(dependent.type);
    if (!resolve || dependent.hasError) continue;
    const i = current.findIndex((f) => f.id === dependent.id);
    const resolved = resolve(
      dependent,
      current.filter((f) => f.id !== dependent.id),
      false,
    );
    if (JSON.stringify(resolved) === JSON.stringify(dependent)) continue;
    current[i] = resolved;
    changed.push(resolved);
  }
  return { fields: current, changed };
};

/**
 * Computed fields of other tables that a field's deletion breaks (computed.md 4, 6): lookups and
 * rollups of it, and those that go through the other side of a deleted link. They get
 * `hasError` and empty cells, in the same write.
 */
const brokenElsewhere = async (
  schema: TableSchema,
  deleted: readonly Field[],
): Promise<{ ops: TransactOp[]; steps: Step[] }> => {
  const targets = new Map<string, Set<string>>();
  const add = (tableId: string, fieldId: string) =>
    targets.set(tableId, (targets.get(tableId) ?? new Set()).add(fieldId));
  for (const field of deleted) {
    for (const d of schema.dependents)
      if (d.tableId !== schema.table.id && d.inputs.includes(field.id)) add(d.tableId, d.fieldId);
    const link = field.type === 'link' ? linkOptions(field) : undefined;
    const sym = link?.symmetricFieldId;
    const foreignId = link?.foreignTableId;
    if (typeof sym === 'string' && foreignId && foreignId !== schema.table.id) {
      const foreign = await loadSchema(foreignId).catch(() => undefined);
      for (const f of foreign?.fields ?? []) if (sameTableInputs(f).includes(sym)) add(foreignId, f.id);
    }
  }
  const ops: TransactOp[] = [];
  const steps: Step[] = [];
  for (const [tableId, fieldIds] of targets) {
    const there = await loadSchema(tableId).catch(() => undefined);
    if (!there) continue;
    const marked = there.fields.map((f) => (fieldIds.has(f.id) ? { ...f, hasError: true } : f));
    for (const f of marked)
      if (fieldIds.has(f.id)) ops.push(putFieldOp(tableId, f, there.fieldOrder[f.id] ?? 0));
    ops.push(bumpSchemaOp(tableId, there.version));
    steps.push(...(await recomputeSteps(withFields(there, marked), fieldIds, new Date())));
  }
  return { ops, steps };
};

/** The formulas that read one of the deleted fields and stay, marked broken (computed.md 6: field delete). */
const brokenBy = (schema: TableSchema, deleted: ReadonlySet<string>): Field[] =>
  schema.fields
    .filter((f) => !deleted.has(f.id) && sameTableInputs(f).some((id) => deleted.has(id)))
    .map((f) => ({ ...f, hasError: true }));

/**
 * A lookup's or rollup's create body rebuilt from the stored field and a PATCH (a PATCH of its
 * options acts as a convert keeping the type, computed.md 8): the id, names and flags kept.
 */
const redefinition = (
  current: Field,
  patch: Record<string, unknown>,
  keepDisplay: boolean,
): Record<string, unknown> => {
  const display = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => k === 'formatting' || k === 'showAs'));
  const patched = (patch.options ?? {}) as Record<string, unknown>;
  return {
    id: current.id,
    type: current.type,
    name: patch.name ?? current.name,
    dbFieldName: patch.dbFieldName ?? current.dbFieldName,
    description: 'description' in patch ? patch.description : current.description,
    ...(current.isLookup ? { isLookup: true } : {}),
    lookupOptions: patch.lookupOptions ?? current.lookupOptions,
    options: current.isLookup
      ? { ...(keepDisplay ? display(current.options) : {}), ...display(patched) }
      : {
          ...Object.fromEntries(
            Object.entries(current.options).filter(
              ([k]) => keepDisplay || (k !== 'formatting' && k !== 'showAs'),
            ),
          ),
          ...patched,
        },
  };
};

/** Changes a field's name, description, dbFieldName or options. */
export const updateField = async (schema: TableSchema, fieldId: string, patch: Record<string, unknown>) => {
  const tableId = schema.table.id;
  const current = findField(schema, fieldId);
  const others = schema.fields.filter((f) => f.id !== fieldId);
  const field =
    current.isLookup || current.type === 'rollup'
      ? redefine(current, patch, {
          existing: others,
          foreign: await linkedFields(schema, patch.lookupOptions ?? current.lookupOptions),
        })
      : await linkPickerChecked(
          schema,
          patchField(current, patch, { existing: others, newChoiceId: () => newId('choice') }),
        );
  if (current.isPrimary) field.isPrimary = true;
  const order = schema.fieldOrder[fieldId] ?? nextFieldOrder(schema);
  // formulas reading the field re-infer their type (their display options follow it)
  const reinferred = reinferDependents(
    schema.fields.map((f) => (f.id === fieldId ? field : f)),
    fieldId,
  );
  const after = withFields(schema, reinferred.fields);
  await assertNoCrossTableCycle(tableId, after.fields, field);
  const validation = await validationSteps(tableId, current, field);
  // computed cells follow a changed definition, or a changed field they read
  const recompute =
    !sameJson(withoutPicker(current.options), withoutPicker(field.options)) ||
    !sameJson(current.lookupOptions, field.lookupOptions);
  const toCompute = new Set([
    ...(isDerived(field) ? [field.id] : []),
    ...dependentsOf(after.fields, new Set([fieldId])).map((f) => f.id),
  ]);
  await commitSchemaChange(
    tableId,
    [
      replaceFieldOp(tableId, field, order),
      ...reinferred.changed.map((f) => putFieldOp(tableId, f, schema.fieldOrder[f.id] ?? 0)),
      ...(await dependentOps(tableId, current, field, schema.fields, after.fields)),
      bumpSchemaOp(tableId, schema.version),
    ],
    [...(recompute ? await recomputeSteps(after, toCompute, new Date()) : []), ...validation],
  );
  // cells hold choice names: renamed and removed choices are rewritten in the records
  if (field.type === 'singleSelect' || field.type === 'multipleSelect')
    await rewriteChoiceCells(tableId, field, choiceChanges(current, field));
  // lookups elsewhere copy the field's options and hold its values: they follow
  if (recompute) await refreshLookupsOf(schema, field);
  return answerField(field);
};

/**
 * A PATCH that turns a field `notNull` or `unique` checks the data first: an empty cell, or two
 * records holding one value, is a 400 naming a record. Turning `unique` on claims every value, and
 * turning it off gives the claims up, in the same write.
 */
const validationSteps = async (tableId: string, current: Field, field: Field): Promise<Step[]> => {
  const notNullOn = field.notNull && !current.notNull;
  const uniqueChanged = !!field.unique !== !!current.unique;
  if (!notNullOn && !uniqueChanged) return [];
  const cells = (await queryRecordParts(tableId, [field.id])).map((r): [string, StoredCell | undefined] => [
    r.id,
    cellOf(r as never, field),
  ]);
  if (notNullOn) {
    const empty = cells.find(([, value]) => isEmptyCell(value));
    if (empty)
      throw new ValidationError(`Field "${field.name}" cannot be notNull: record ${empty[0]} is empty`);
  }
  return uniqueChanged ? claimRebuildSteps(tableId, field, cells) : [];
};

/** A link field's picker limits checked against its foreign table (any other field as it is). */
const linkPickerChecked = async (schema: TableSchema, field: Field): Promise<Field> => {
  if (!isLinkField(field)) return field;
  const foreignTableId = linkOptions(field).foreignTableId;
  const foreign = foreignTableId === schema.table.id ? schema : await loadSchema(foreignTableId);
  return checkLinkPicker(field, foreign);
};

/** Options less a link's picker limits, which change which records a picker offers and no cell. */
const withoutPicker = (options: Record<string, unknown>) => {
  const { filter: _f, filterByViewId: _v, visibleFieldIds: _i, ...rest } = options;
  return rest;
};

/** JSON equality that ignores key order (stored maps come back in any order). */
const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
      : x,
  );

/**
 * A lookup or rollup defined again from a PATCH. Display options kept from the stored field are
 * dropped when they no longer fit a changed result (3.2: defaults filled); display options the
 * PATCH itself gives must fit (400).
 */
const redefine = (current: Field, patch: Record<string, unknown>, ctx: Parameters<typeof defineField>[1]) => {
  try {
    return defineField(redefinition(current, patch, true), ctx);
  } catch (error) {
    const patched = (patch.options ?? {}) as Record<string, unknown>;
    if (!(error instanceof ValidationError) || 'formatting' in patched || 'showAs' in patched) throw error;
    return defineField(redefinition(current, patch, false), ctx);
  }
};

/**
 * The lookups of other tables that read `field` (computed.md 4: they copy its options and follow
 * a change of them, choices included): each defined again from the field as it is now, stored,
 * and its cells recomputed with what depends on them. One write per table.
 */
const refreshLookupsOf = async (schema: TableSchema, field: Field) => {
  const tableIds = new Set(
    schema.dependents.filter((d) => d.inputs.includes(field.id)).map((d) => d.tableId),
  );
  for (const tableId of tableIds) {
    const there = await loadSchema(tableId).catch(() => undefined);
    if (!there) continue;
    const ids = new Set(
      schema.dependents
        .filter((d) => d.tableId === tableId && d.inputs.includes(field.id))
        .map((d) => d.fieldId),
    );
    const foreign: ForeignFields = (id) =>
      id === schema.table.id ? schema.fields.map((f) => (f.id === field.id ? field : f)) : undefined;
    const changed = there.fields.flatMap((f) => {
      if (!ids.has(f.id) || !(f.isLookup || f.type === 'rollup') || f.hasError) return [];
      // a lookup takes the type of the field it looks up; one that cannot follow is broken
      let next: Field;
      try {
        next = redefine(
          { ...f, type: f.isLookup ? field.type : f.type },
          {},
          { existing: there.fields.filter((o) => o.id !== f.id), foreign },
        );
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        next = { ...f, hasError: true };
      }
      if (f.isPrimary) next.isPrimary = true;
      return sameJson(next, f) ? [] : [next];
    });
    // formulas there reading a lookup that changed type re-infer theirs, as they do here
    let fields = there.fields.map((f) => changed.find((c) => c.id === f.id) ?? f);
    const written = new Set(changed.map((f) => f.id));
    for (const lookup of changed) {
      const reinferred = reinferDependents(fields, lookup.id);
      fields = reinferred.fields;
      for (const f of reinferred.changed) written.add(f.id);
    }
    const after = withFields(there, fields);
    await commitSchemaChange(
      tableId,
      [
        ...fields
          .filter((f) => written.has(f.id))
          .map((f) => putFieldOp(tableId, f, there.fieldOrder[f.id] ?? 0)),
        bumpSchemaOp(tableId, there.version),
      ],
      await recomputeSteps(after, new Set([...ids, ...written]), new Date()),
    );
  }
};

/**
 * A field as a conversion would define it (the body over the current field: its name, database
 * name and description kept unless given, its id and primary flag always), checked as the write
 * checks it (a 400 for a bad definition, a unique field that changes type, a primary field that
 * may not be one). Shared by the conversion and its plan.
 */
export const defineConversion = async (
  schema: TableSchema,
  fieldId: string,
  input: Record<string, unknown>,
): Promise<{ current: Field; defined: Field }> => {
  const current = findField(schema, fieldId);
  if (current.unique && input.type !== current.type)
    throw new ValidationError(`Field "${current.name}" is unique: its type cannot change`);
  const defined = defineField(
    {
      name: current.name,
      dbFieldName: current.dbFieldName,
      description: current.description,
      ...input,
      id: current.id,
      isPrimary: current.isPrimary === true,
      // kept when the type stays and the body does not say (`unique: false` turns it off)
      unique: input.unique ?? (current.unique === true && input.type === current.type ? true : undefined),
    },
    {
      existing: schema.fields.filter((f) => f.id !== fieldId),
      newChoiceId: () => newId('choice'),
      foreign: await linkedFields(schema, input.lookupOptions),
    },
  );
  if (current.isPrimary) assertPrimaryAllowed(defined);
  return { current, defined };
};

/**
 * Converts a field to a new definition (`PUT …/field/{fieldId}/convert`, teable-routes.md
 * "Field", computed.md 8): the body is a full definition validated like a create (the id kept,
 * the name, dbFieldName and description kept when absent), the cells rewritten for it, and the
 * fields that read it re-inferred and recomputed, here and in other tables, in one write.
 * Links convert to links (see `linkSides`); fields reading a link left behind are broken, never a
 * reason to refuse. Decided: a unique field keeps its type.
 */
export const convertField = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  fieldId: string,
  input: Record<string, unknown>,
  /** Lets a link reach a table of another base the caller may create fields in. */
  linkAccess?: LinkAccess,
) => {
  const tableId = schema.table.id;
  const { current, defined } = await defineConversion(schema, fieldId, input);
  // a link's other side: created with a new link, deleted with an old one, changed with both
  const sides = await linkSides(schema, current, defined, linkAccess);
  const side = isLinkField(current) && !sides.keptSide ? await otherSideReaders(schema, current) : undefined;
  const readers = await readersThrough(schema, current, sides.field);
  for (const f of side?.here ?? []) readers.set(f.id, f);
  const reinferred = reinferDependents(
    [...schema.fields.filter((f) => !sides.removed.has(f.id)), ...sides.added].map((f) =>
      f.id === fieldId ? sides.field : (readers.get(f.id) ?? sides.replaced.get(f.id) ?? f),
    ),
    fieldId,
  );
  const after = withFields(schema, reinferred.fields, sides.order);
  await assertNoCrossTableCycle(tableId, after.fields, sides.field);
  const brokenHere = [...readers.values()].filter((f) => f.hasError).map((f) => f.id);
  const { steps, field, values } = await convertedCellSteps(
    principal,
    located,
    after,
    current,
    sides.field,
    new Date(),
    schema,
    [
      ...(brokenHere.length ? [{ schema: after, fieldIds: new Set(brokenHere) }] : []),
      ...(side?.elsewhere ?? []),
    ],
  );
  const order = schema.fieldOrder[fieldId] ?? nextFieldOrder(schema);
  await commitSchemaChange(
    tableId,
    oneBumpPerTable([
      replaceFieldOp(tableId, field, order),
      ...[...readers.values(), ...sides.replaced.values()]
        .filter((f) => !reinferred.changed.some((c) => c.id === f.id))
        .map((f) => putFieldOp(tableId, f, schema.fieldOrder[f.id] ?? 0)),
      ...reinferred.changed.map((f) => putFieldOp(tableId, f, schema.fieldOrder[f.id] ?? 0)),
      ...sides.ops,
      ...(side?.ops ?? []),
      ...(await dependentOps(tableId, current, field, schema.fields, after.fields)),
      bumpSchemaOp(tableId, schema.version),
    ]),
    [
      ...steps,
      // a field unique after the conversion claims its values anew (the values may have changed)
      ...(field.unique || current.unique ? await claimRebuildSteps(tableId, field, values ?? []) : []),
    ],
  );
  await refreshLookupsOf(schema, field);
  return answerField(field);
};

/** Whether a link's other side holds a list (its records link many of this table's). */
const otherSideIsList = (field: Field): boolean => {
  const mirrored = mirrorRelationship(linkOptions(field).relationship);
  return mirrored === 'oneMany' || mirrored === 'manyMany';
};

/**
 * The other side of a link a conversion makes, unmakes or changes. To a link: the field is
 * completed and its symmetric field created (in the foreign table, or `added` here for a link to
 * this table). From a link: its symmetric field is deleted (`removed` here for a self-link). From
 * a link to a link of the same foreign table, both two-way, whose other side stays a list or a
 * single record: the symmetric field is kept (same id, name and readers), only its relationship
 * follows (`keptSide`; `replaced` holds it for a self-link). Any other link to link: the old side
 * is deleted and a new one created under its name. `ops` store that.
 */
const linkSides = async (schema: TableSchema, current: Field, defined: Field, linkAccess?: LinkAccess) => {
  const tableId = schema.table.id;
  const none = {
    field: defined,
    ops: [] as TransactOp[],
    added: [] as Field[],
    removed: new Set<string>(),
    replaced: new Map<string, Field>(),
    order: {} as Record<string, number>,
    keptSide: false,
  };
  const fromLink = isLinkField(current);
  const oldSide =
    fromLink && !linkOptions(current).isOneWay ? linkOptions(current).symmetricFieldId : undefined;
  const oldForeign = fromLink ? linkOptions(current).foreignTableId : undefined;
  const removed = new Set(oldSide && oldForeign === tableId ? [oldSide] : []);
  if (isLinkField(defined)) {
    const opts = linkOptions(defined);
    if (
      oldSide &&
      oldForeign === opts.foreignTableId &&
      !opts.isOneWay &&
      otherSideIsList(current) === otherSideIsList(defined)
    )
      return { ...none, ...(await keepOtherSide(schema, current, defined, oldSide)), keptSide: true };
    const selfOrder = nextFieldOrder(schema);
    const { field, ops, symmetric } = await prepareLinkField(defined, {
      tableId,
      tableName: schema.table.name,
      dbTableName: schema.table.dbTableName,
      baseId: schema.table.baseId,
      schema: withFields(
        schema,
        schema.fields.filter((f) => f.id !== current.id && !removed.has(f.id)),
      ),
      primaryFieldId: primaryField(schema).id,
      selfOrder,
      replacing: oldSide,
      linkAccess,
    });
    // a link to this table: its symmetric field is a new field of this table
    const added = symmetric?.tableId === tableId ? [symmetric.field] : [];
    return {
      ...none,
      field,
      ops: [...(fromLink ? await symmetricDeleteOps(current, tableId) : []), ...ops],
      added,
      removed,
      order: Object.fromEntries(added.map((f) => [f.id, selfOrder])),
    };
  }
  if (fromLink) return { ...none, ops: await symmetricDeleteOps(current, tableId), removed };
  return none;
};

/**
 * A link converted within its foreign table, its other side kept: the converted field keeps the
 * symmetric field id and looked-up field, and the symmetric field takes the mirrored relationship.
 */
const keepOtherSide = async (schema: TableSchema, current: Field, defined: Field, sideId: string) => {
  const tableId = schema.table.id;
  const opts = linkOptions(defined);
  const self = opts.foreignTableId === tableId;
  const there = self ? schema : await loadSchema(opts.foreignTableId);
  const side = findField(there, sideId);
  // the storage names stay while the relationship does; else they are made anew, this side first
  const kept = storedLinkNames(current.options);
  const sideKept = storedLinkNames(side.options);
  const names =
    kept && sideKept && linkOptions(current).relationship === opts.relationship
      ? { origin: kept, symmetric: sideKept }
      : linkStorageNames({
          baseId: schema.table.baseId,
          fieldId: current.id,
          relationship: opts.relationship,
          symmetricFieldId: sideId,
          dbTableName: schema.table.dbTableName,
          foreignDbTableName: there.table.dbTableName,
          random: '',
        });
  // a link between two bases names the other base on each side (kept: the foreign table is the same)
  const { baseId: _given, ...rest } = opts;
  const crossBase = there.table.baseId !== schema.table.baseId;
  const field = checkLinkPicker(
    {
      ...defined,
      options: {
        ...rest,
        ...(crossBase ? { baseId: there.table.baseId } : {}),
        symmetricFieldId: sideId,
        lookupFieldId: linkOptions(current).lookupFieldId,
        ...names.origin,
      },
    },
    there,
  );
  const { isMultipleCellValue: _, ...sideRest } = side;
  const relationship = mirrorRelationship(opts.relationship);
  const changed: Field = {
    ...sideRest,
    options: { ...side.options, relationship, ...names.symmetric },
    ...(relationship === 'oneMany' || relationship === 'manyMany' ? { isMultipleCellValue: true } : {}),
  };
  if (self) return { field, replaced: new Map([[sideId, changed]]) };
  return {
    field,
    ops: [
      replaceFieldOp(there.table.id, changed, there.fieldOrder[sideId] ?? 0),
      bumpSchemaOp(there.table.id, there.version),
    ],
  };
};

/**
 * This table's lookups and rollups through a converted field: defined again through the link as
 * it is now when it links the table they read (a broken one mends: its link is back), else (and
 * when that fails) broken: `hasError`, with cells the conversion's rewrite empties. Keyed by id;
 * only those that change.
 */
const readersThrough = async (schema: TableSchema, current: Field, converted: Field) => {
  const readers = new Map<string, Field>();
  if (!isLinkField(current) && !isLinkField(converted)) return readers;
  const target = isLinkField(converted) ? linkOptions(converted).foreignTableId : undefined;
  const fields = schema.fields.map((f) => (f.id === current.id ? converted : f));
  const foreign = target
    ? await linkedFields(withFields(schema, fields), { linkFieldId: current.id })
    : undefined;
  for (const f of schema.fields) {
    if (!(f.isLookup || f.type === 'rollup') || f.lookupOptions?.linkFieldId !== current.id) continue;
    // a reader still (or again) reaching its table through the field is defined anew: a broken
    // one mends when its link comes back; any other is broken (a healthy one) or stays so
    const reaches = target !== undefined && f.lookupOptions?.foreignTableId === target;
    if (!reaches && f.hasError) continue;
    let next: Field = { ...f, hasError: true };
    if (reaches && foreign)
      try {
        const { hasError: _, ...mended } = f;
        next = redefine(mended, {}, { existing: fields.filter((o) => o.id !== f.id), foreign });
        if (f.isPrimary) next.isPrimary = true;
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
      }
    if (!sameJson(next, f)) readers.set(f.id, next);
  }
  return readers;
};

/**
 * The fields of the foreign table (this one, for a self-link) that read a link's other side, which
 * a conversion deletes (lookups and rollups through it, formulas naming it): broken, `hasError`,
 * as a deletion of that side breaks them. The other table's as it will be, and what stores it.
 */
const otherSideReaders = async (schema: TableSchema, link: Field) => {
  const { symmetricFieldId: sym, foreignTableId, isOneWay } = linkOptions(link);
  const none = { here: [] as Field[], elsewhere: [] as Broken[], ops: [] as TransactOp[] };
  if (!sym || isOneWay) return none;
  const self = foreignTableId === schema.table.id;
  const there = self ? schema : await loadSchema(foreignTableId).catch(() => undefined);
  const readers = (there?.fields ?? [])
    .filter((f) => f.id !== link.id && f.id !== sym && !f.hasError && sameTableInputs(f).includes(sym))
    .map((f) => ({ ...f, hasError: true }));
  if (!there || readers.length === 0) return none;
  if (self) return { ...none, here: readers };
  const after = withFields(
    there,
    there.fields.map((f) => readers.find((r) => r.id === f.id) ?? f),
  );
  return {
    here: [],
    elsewhere: [{ schema: after, fieldIds: new Set(readers.map((f) => f.id)) }],
    ops: [
      ...readers.map((f) => putFieldOp(foreignTableId, f, there.fieldOrder[f.id] ?? 0)),
      bumpSchemaOp(foreignTableId, there.version),
    ],
  };
};

const withoutField = (view: View, fieldId: string): View => {
  const keep = (items: SortItem[] | null) => items?.filter((s) => s.fieldId !== fieldId) ?? null;
  const { [fieldId]: _dropped, ...columnMeta } = view.columnMeta;
  return {
    ...view,
    filter: stripFilter(view.filter, fieldId),
    sort: view.sort ? { ...view.sort, sortObjs: keep(view.sort.sortObjs) ?? [] } : null,
    group: keep(view.group),
    columnMeta,
  };
};

/** A filter without the items on one field (empty groups dropped). Pure. */
export const stripFilter = (filter: unknown, fieldId: string): unknown => {
  if (!filter || typeof filter !== 'object') return filter ?? null;
  const f = filter as { filterSet?: unknown[]; fieldId?: string };
  if (f.fieldId !== undefined) return f.fieldId === fieldId ? null : filter;
  const before = f.filterSet ?? [];
  const filterSet = before.map((i) => stripFilter(i, fieldId)).filter((i) => i !== null);
  // a group emptied by the removal goes too (one the caller left empty stays as it was)
  if (before.length > 0 && filterSet.length === 0) return null;
  return { ...f, filterSet };
};

/**
 * Deletes a field; the primary field cannot be deleted (403). Views that name it lose those
 * filter, sort, group and column entries in the same transaction. Its cells stay in the record
 * items, unread (field ids are never reused).
 */
export const deleteField = async (schema: TableSchema, fieldId: string) => {
  const [field] = await deleteFields(schema, [fieldId]);
  return field as Field;
};

/**
 * Stores a deletion as `commitSchemaChange` does while its schema operations fit one transaction.
 * More (many fields at once) go in a journaled write whose undo puts back every item it deletes
 * or overwrites as read just before, and deletes what it creates: all or nothing.
 */
const commitDeletion = async (tableId: string, ops: TransactOp[], records: Step[]) => {
  if (ops.length < MAX_TRANSACTION_ITEMS) return commitSchemaChange(tableId, ops, records);
  await commitSteps(tableId, [...(await schemaSteps(ops)), ...records], schemaConflict);
};

/**
 * Deletes several fields in one write, all or none (`DELETE /table/{t}/field?fieldIds[]=`): an
 * unknown one is a 404 and the primary field among them a 403, before anything is written. What
 * `deleteField` does for one is done for all together: formulas reading any of them broken once,
 * views stripped of all of them, registrations and other sides of links removed, one version bump
 * per table.
 */
export const deleteFields = async (schema: TableSchema, fieldIds: readonly string[]) => {
  const tableId = schema.table.id;
  const gone = new Set(fieldIds);
  const fields = [...gone].map((id) => findField(schema, id));
  const primary = fields.find((f) => f.isPrimary);
  if (primary) throw new ForbiddenError(`Field ${primary.id} is the primary field and cannot be deleted`);
  const broken = brokenBy(schema, gone);
  const elsewhere = await brokenElsewhere(schema, fields);
  const after = withFields(
    schema,
    schema.fields.filter((f) => !gone.has(f.id)).map((f) => broken.find((b) => b.id === f.id) ?? f),
  );
  const stripped = (view: View) => fields.reduce((v, f) => withoutField(v, f.id), view);
  const ops: TransactOp[] = [
    ...fields.map((f) => deleteFieldOp(tableId, f.id, true)),
    ...broken.map((f) => putFieldOp(tableId, f, schema.fieldOrder[f.id] ?? 0)),
    ...(await Promise.all(fields.map((f) => symmetricDeleteOps(f, tableId)))).flat(),
    ...(
      await Promise.all(fields.map((f) => dependentOps(tableId, f, undefined, schema.fields, after.fields)))
    ).flat(),
    ...elsewhere.ops,
    ...schema.views
      .filter((v) => JSON.stringify(stripped(v)) !== JSON.stringify(v))
      .map((v) => putViewOp(tableId, stripped(v))),
    bumpSchemaOp(tableId, schema.version),
  ];
  await commitDeletion(tableId, withoutRepeatedDeletes(oneBumpPerTable(ops)), [
    ...(await recomputeSteps(after, new Set(broken.map((f) => f.id)), new Date())),
    ...elsewhere.steps,
  ]);
  return fields;
};
