import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, type HttpError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { uniqueName } from '#shared/core/names.ts';
import { type TransactOp, transact } from '#shared/db/commit.ts';
import { liveSpaceOf, stampSpaceOp, tableRefsOfBase } from '#shared/entities/bases.ts';
import { newRootNodeOp } from '#shared/entities/node-append.ts';
import { deleteNodeOp } from '#shared/entities/node-tree.ts';
import { purgeTableItems as purgeTable } from '#shared/entities/purges.ts';
import { putRecordCountBaseOp } from '#shared/entities/record-counts.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import {
  deleteFieldOp,
  newSchemaParts,
  putFieldOp,
  putViewOp,
  renameLinkHostOp,
} from '#shared/entities/schema-items.ts';
import {
  createTableOps,
  deleteTableRefOp,
  oneBumpPerTable,
  readTable,
  type Table,
  touchSchemaVersionOp,
  trashTableOps,
  updateTableOps,
} from '#shared/entities/tables.ts';
import { newTrashEntry, putTrashOps, removeTrashOps } from '#shared/entities/trash-items.ts';
import { answerField } from '#shared/fields/db-field-type.ts';
import { assertPrimaryAllowed, defineField } from '#shared/fields/define.ts';
import { dbFieldNameFrom } from '#shared/fields/field-names.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { isLinkField } from '#shared/fields/link-options.ts';
import { newId, nodeIdOf } from '#shared/ids.ts';
import { enqueuePurge, markResourcePurgedOp, purgeJobOp } from '#shared/jobs/purge-queue.ts';
import { createRecords } from '#shared/records/create.ts';
import { type LinkAccess, linkOptions, prepareLinkField } from '#shared/schema/link-fields.ts';
import type { FieldKeyType } from '#shared/schema/schema.ts';
import {
  bumpSchemaOp,
  loadSchema,
  schemaFromParts,
  type TableSchema,
  type View,
} from '#shared/schema/schema.ts';
import { defineView, toViewOut, type ViewInput } from '#shared/schema/views.ts';
import { dependentOps } from './dependents.ts';

export const DEFAULT_TABLE_NAME = 'Table';
/** Fields and views one create call may define: they are written in one transaction with the table. */
export const MAX_CREATE_FIELDS = 80;
export const MAX_CREATE_VIEWS = 10;

/** The fields of a table created without `fields` (endpoints.md, "New table defaults"). */
export const DEFAULT_FIELDS = [
  { type: 'singleLineText', name: 'Name' },
  { type: 'number', name: 'Count' },
  {
    type: 'singleSelect',
    name: 'Status',
    options: { choices: [{ name: 'light' }, { name: 'medium' }, { name: 'heavy' }] },
  },
];

export interface CreateTableInput {
  name?: string;
  dbTableName?: string;
  description?: string | null;
  icon?: string | null;
  fieldKeyType?: FieldKeyType;
  fields?: Record<string, unknown>[];
  views?: ViewInput[];
  records?: { fields: Record<string, unknown> }[];
}

/** The public shape of a table. */
export const toTable = (table: Table, views: readonly View[]) => ({
  id: table.id,
  name: table.name,
  dbTableName: table.dbTableName,
  description: table.description,
  icon: table.icon,
  order: table.order,
  defaultViewId: views[0]?.id ?? null,
  lastModifiedTime: table.lastModifiedTime,
});

/** A refusal of the base's `stampSpaceOp`, explained by `explainRefusal` once the base is read. */
class BaseRefused extends ConflictError {}

/**
 * Turns a refusal of the base's `stampSpaceOp` into the answer: `gone` when the base is gone or in
 * the trash, a 409 when it moved to another space meanwhile (the retry locates it there).
 */
const explainRefusal =
  (baseId: string, gone: () => HttpError) =>
  async (error: unknown): Promise<never> => {
    if (!(error instanceof BaseRefused)) throw error;
    throw (await liveSpaceOf(baseId)) === undefined
      ? gone()
      : new ConflictError(`Base ${baseId} moved to another space meanwhile; retry`);
  };

/**
 * Creates a table: its fields (the first is the primary field), views and records, with the
 * contract's defaults (three fields, one grid view, three empty records unless `records` is
 * given). Schema first in one transaction, then the records through the record write path.
 */
export const createTable = async (
  principal: Principal,
  base: Located,
  input: CreateTableInput,
  /** Lets a link reach a table of another base the caller may create fields in. */
  linkAccess?: LinkAccess,
) => {
  const baseId = base.id;
  const tableId = newId('table');
  // the table's project node goes to the end of the base's root, in the create transaction
  const [tableRefs, nodeOp] = await Promise.all([
    tableRefsOfBase(baseId),
    newRootNodeOp(baseId, 'table', tableId),
  ]);
  const name =
    input.name ??
    uniqueName(
      DEFAULT_TABLE_NAME,
      tableRefs.filter((r) => !r.deletedTime).map((r) => r.name),
    );
  const fieldInputs = input.fields ?? DEFAULT_FIELDS;
  if (fieldInputs.length === 0) throw new ValidationError('fields: a table needs at least one field');
  if (fieldInputs.length > MAX_CREATE_FIELDS)
    throw new ValidationError(`fields: at most ${MAX_CREATE_FIELDS} when creating a table`);
  if ((input.views?.length ?? 0) > MAX_CREATE_VIEWS)
    throw new ValidationError(`views: at most ${MAX_CREATE_VIEWS} when creating a table`);
  const now = new Date();
  const dbTableName = input.dbTableName ?? dbFieldNameFrom(name);
  const fields: Field[] = [];
  const foreignOps: TransactOp[] = [];
  const pending = new Map<string, Field[]>();
  for (const [i, raw] of fieldInputs.entries()) {
    let field = defineField(
      { ...raw, isPrimary: i === 0 },
      { existing: fields, newChoiceId: () => newId('choice') },
    );
    if (i === 0) assertPrimaryAllowed(field);
    if (field.type === 'link') {
      const primary = fields[0] ?? field;
      const prepared = await prepareLinkField(field, {
        tableId,
        tableName: name,
        dbTableName,
        baseId,
        primaryFieldId: primary.id,
        selfOrder: fieldInputs.length + i,
        pending,
        linkAccess,
      });
      field = prepared.field;
      foreignOps.push(...prepared.ops);
    }
    fields.push(field);
  }
  const views: View[] = [];
  for (const v of input.views ?? [{ type: 'grid', name: 'Grid view' }])
    views.push(defineView(v, fields, views, principal.userId, now));
  const table: Table = {
    id: tableId,
    name,
    dbTableName,
    description: input.description ?? null,
    icon: input.icon ?? null,
    baseId,
    spaceId: base.spaceId,
    // after every table (trashed ones too); a count would repeat an order once a table is purged
    order: tableRefs.reduce((max, r) => Math.max(max, r.order + 1), 0),
    schemaVersion: 1,
    autoNumber: 0,
    createdTime: now.toISOString(),
    createdBy: principal.userId,
    lastModifiedTime: now.toISOString(),
  };
  // computed fields that read linked tables register there (a formula over a link's titles)
  const dependents = (
    await Promise.all(fields.map((f) => dependentOps(tableId, undefined, f, fields, fields)))
  ).flat();
  const ops: TransactOp[] = oneBumpPerTable([
    ...createTableOps(table),
    putRecordCountBaseOp(tableId),
    ...fields.map((f, i) => putFieldOp(tableId, f, i)),
    ...views.map((v) => putViewOp(tableId, v)),
    ...foreignOps,
    ...dependents,
    nodeOp,
    // The table carries its base's space as located: the create commits only while the base is
    // live in it, and a move that read the base's tables before it fails (shared/entities/bases.ts).
    stampSpaceOp(baseId, table.spaceId),
  ]);
  if (ops.length > 100) throw new ValidationError('Too many fields and views for one create call');
  await transact(ops, (i) =>
    i === ops.length - 1
      ? new BaseRefused('')
      : new ConflictError('A linked table changed at the same time; retry'),
  ).catch(explainRefusal(baseId, () => new NotFoundError(`Base ${baseId} not found`)));
  const schema: TableSchema = schemaFromParts(newSchemaParts(table, fields, views));
  const located: Located = { ...base, kind: 'table', id: tableId, table, baseId };
  const recordInputs = input.records ?? [{ fields: {} }, { fields: {} }, { fields: {} }];
  let records: RecordItem[] = [];
  try {
    records = await createRecords(principal, located, schema, {
      records: recordInputs,
      fieldKeyType: input.fieldKeyType ?? 'name',
      typecast: false,
      order: undefined,
    });
  } catch (error) {
    // The table without its records is not what the caller asked for: remove it whole, with the
    // other side of its links.
    await dropLinkSides(tableId, fields);
    await transact([deleteTableRefOp(baseId, tableId)], () => new ConflictError('retry'));
    await purgeTable(tableId);
    throw error;
  }
  return {
    schema: {
      ...schema,
      table: { ...table, autoNumber: records.length },
      fields: schema.fields.map(answerField),
    },
    records,
  };
};

/** Tables of a base (not in the trash), in order. */
export const listTables = async (baseId: string) => {
  const refs = await tableRefsOfBase(baseId);
  return refs
    .filter((r) => !r.deletedTime)
    .sort((a, b) => a.order - b.order)
    .map((r) => r.tableId);
};

/** Answers the table of the path, or 404 when it is not a table of that base. */
export const assertInBase = (table: Located['table'], baseId: string, tableId: string): Table => {
  if (!table || table.baseId !== baseId)
    throw new NotFoundError(`Table ${tableId} not found in base ${baseId}`);
  return table;
};

/** Renames a table or changes its description, icon or database name. */
export const updateTable = async (
  baseId: string,
  tableId: string,
  patch: { name?: string; description?: string | null; icon?: string | null; dbTableName?: string },
) => {
  const ops = updateTableOps(baseId, tableId, patch);
  const hostOps = patch.dbTableName === undefined ? [] : await linkHostRenameOps(tableId, patch.dbTableName);
  await transact([...ops, ...hostOps], (i) =>
    i < ops.length
      ? new NotFoundError(`Table ${tableId} not found`)
      : new ConflictError(`A link of table ${tableId} changed while its database name did; try again`),
  );
};

/**
 * A new database name reaches the links that name the table as their storage host (Teable's
 * many-one and one-one links kept in it, and the one-many ones pointing at it), their symmetric
 * fields and the lookups and rollups through either, here and in the linked tables (whose schema
 * versions move with them).
 */
const linkHostRenameOps = async (tableId: string, to: string): Promise<TransactOp[]> => {
  const schema = await loadSchema(tableId).catch(() => undefined);
  const from = schema?.table.dbTableName;
  if (!schema || from === undefined || from === to) return [];
  // the renamed links, by table (this one first: its schema version moves with the table)
  const renamed = new Map<string, { schema: TableSchema; links: Set<string> }>([
    [tableId, { schema, links: new Set() }],
  ]);
  for (const field of schema.fields) {
    if (!isLinkField(field) || field.options.fkHostTableName !== from) continue;
    renamed.get(tableId)?.links.add(field.id);
    const { symmetricFieldId, foreignTableId, isOneWay } = linkOptions(field);
    if (isOneWay || !symmetricFieldId || foreignTableId === tableId) continue;
    const there =
      renamed.get(foreignTableId)?.schema ?? (await loadSchema(foreignTableId).catch(() => undefined));
    const side = there?.fields.find((f) => f.id === symmetricFieldId);
    if (!there || side?.options.fkHostTableName !== from) continue;
    const entry = renamed.get(foreignTableId) ?? { schema: there, links: new Set<string>() };
    entry.links.add(side.id);
    renamed.set(foreignTableId, entry);
  }
  const ops: TransactOp[] = [];
  for (const [id, { schema: s, links }] of renamed) {
    const before = ops.length;
    for (const f of s.fields) {
      if (links.has(f.id)) ops.push(renameLinkHostOp(id, f.id, 'options', from, to));
      const through = f.lookupOptions;
      if (through && links.has(String(through.linkFieldId)) && through.fkHostTableName === from)
        ops.push(renameLinkHostOp(id, f.id, 'lookupOptions', from, to));
    }
    if (id !== tableId && ops.length > before) ops.push(bumpSchemaOp(id, s.version));
  }
  return ops;
};

/**
 * Moves a table to the trash: every route on it and its records answers 404 from now on. The
 * trash item is written in the same transaction (shared/entities/trash-items.ts), so every way of
 * trashing a table (its route, its project node) lists it in the base's trash. The entry carries
 * the base's space (`spaceId` saves a read when the caller knows it): like a create, the trash
 * commits only while the base is in that space (stampSpaceOp), so a move never misses it.
 */
export const trashTable = async (baseId: string, tableId: string, userId: string, spaceId?: string) => {
  const now = new Date();
  // the base's own space rather than the table's copy of it: the entry must carry what the base says
  const space = spaceId ?? (await liveSpaceOf(baseId));
  if (!space) throw new NotFoundError(`Table ${tableId} not found`);
  const entry = newTrashEntry('table', tableId, { spaceId: space, baseId }, userId, now);
  const ops: TransactOp[] = [
    // the table stamped: the change log's `table.deleted` names this request
    ...trashTableOps(baseId, tableId, entry, userId),
    ...putTrashOps(entry),
    stampSpaceOp(baseId, space),
  ];
  await transact(ops, (i) =>
    i <= 1
      ? new NotFoundError(`Table ${tableId} not found`)
      : i === ops.length - 1
        ? new BaseRefused('')
        : new ConflictError('retry'),
  ).catch(explainRefusal(baseId, () => new NotFoundError(`Table ${tableId} not found`)));
};

/**
 * Deletes a table and its records for good. The request makes it invisible at once and removes
 * what points at it, in one transaction: the purge mark (`purgeTime`: even the permanent routes
 * answer 404 from now on), the base's reference, its project node, its trash item, and the
 * durable purge job; then the other side of each link goes, and the purge worker empties the
 * table's partitions in the background (shared/trash/job-runner.ts).
 */
export const deleteTablePermanently = async (baseId: string, tableId: string, userId: string) => {
  const table = await readTable(tableId);
  if (!table || table.purgeTime || table.baseId !== baseId)
    throw new NotFoundError(`Table ${tableId} not found`);
  const now = new Date();
  const { trashId, spaceId } = table;
  await transact(
    [
      markResourcePurgedOp('table', tableId, userId, now),
      deleteTableRefOp(baseId, tableId),
      deleteNodeOp(baseId, nodeIdOf(tableId)),
      ...(trashId ? removeTrashOps({ id: trashId, resourceType: 'table', spaceId, baseId }) : []),
      purgeJobOp({ kind: 'table', resourceId: tableId }, { spaceId, baseId, userId }, now),
    ],
    (i) => (i === 0 ? new NotFoundError(`Table ${tableId} not found`) : new ConflictError('retry')),
  );
  const schema = await loadSchema(tableId).catch(() => undefined);
  if (schema) await dropLinkSides(tableId, schema.fields);
  await enqueuePurge({ kind: 'table', resourceId: tableId });
};

/**
 * Deletes the other side of each link of a table that goes away for good, so no table keeps a link
 * field into a table that no longer exists (a foreign table in the trash loses it too). One
 * transaction per link: two links may point into the same table. Repeatable.
 */
export const dropLinkSides = async (tableId: string, fields: readonly Field[]): Promise<void> => {
  for (const field of fields) {
    const opts = linkOptions(field);
    const foreignTableId = opts.foreignTableId;
    if (field.type !== 'link' || opts.isOneWay || !opts.symmetricFieldId || !foreignTableId) continue;
    if (foreignTableId === tableId) continue;
    const foreign = await loadSchema(foreignTableId).catch(() => undefined);
    if (!foreign) continue;
    await transact(
      [
        deleteFieldOp(foreignTableId, opts.symmetricFieldId),
        // unconditional bump (the foreign table may be in the trash): cached schemas reload
        touchSchemaVersionOp(foreignTableId),
      ],
      () => new ConflictError('A linked table changed at the same time; retry'),
    );
  }
};

/** The full table answered by create: with fields, views, records and their count. */
export const toCreatedTable = (schema: TableSchema, records: unknown[]) => ({
  ...toTable(schema.table, schema.views),
  fields: schema.fields,
  views: schema.views.map((v) => toViewOut(v, schema.fields)),
  records,
  total: records.length,
});
