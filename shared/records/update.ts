import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import {
  ConflictError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from '#shared/core/errors.ts';
import { allInOrder } from '#shared/core/in-order.ts';
import { commitSteps, type Step } from '#shared/db/commit.ts';
import {
  getRecords,
  putRecordOp,
  type RecordItem,
  recordWritten,
  updateCellsOp,
  withCells,
} from '#shared/entities/records.ts';
import { isDerived } from '#shared/fields/dependencies.ts';
import type { FieldKeyType, TableSchema } from '#shared/schema/schema.ts';
import { cellTagSteps } from './cell-tags.ts';
import { assertNotNull, type CellChanges } from './cells.ts';
import { userRefOf } from './context.ts';
import { convertWrite } from './convert-write.ts';
import { assertBatchSize, assertRecordFits, cellsBytes, cellsOfItem } from './limits.ts';
import { etagOf } from './model.ts';
import { followComputed, sharedWriteSteps } from './pipeline.ts';
import { type Placement, placementSteps, withJoined } from './placement.ts';
import { schemaChangeSteps } from './schema-changes.ts';
import { groupCountSteps, hasViewIndexes, type RecordMove, withEntrySteps } from './view-indexes/upkeep.ts';

/** The records read beforehand, or a 404 naming the first that was not found. */
const ensureFound = (ids: readonly string[], items: readonly (RecordItem | undefined)[]): RecordItem[] =>
  ids.map((id, i) => {
    const item = items[i];
    if (!item) throw new NotFoundError(`Record ${id} not found`);
    return item;
  });

/** Reads records of a table by id; any missing id is a 404 naming it. */
export const loadRecords = async (tableId: string, ids: readonly string[]): Promise<RecordItem[]> => {
  const loaded = await getRecords(tableId, ids);
  return ids.map((id) => {
    const item = loaded.get(id);
    if (!item) throw new NotFoundError(`Record ${id} not found`);
    return item;
  });
};

export interface UpdateInput {
  records: { id: string; fields: Record<string, unknown> }[];
  fieldKeyType: FieldKeyType;
  typecast: boolean;
  order?: Placement;
  /** The ETag the caller last saw (single-record PATCH with If-Match). */
  ifMatch?: string;
  /** The records as already read (with authentication), in `records` order; read here when absent. */
  current?: readonly (RecordItem | undefined)[];
}

/**
 * Updates records: only the written cells change (a concurrent write to other cells of the same
 * record survives; the same cell: last write wins), links are kept two-sided, `unique`/`notNull`
 * checked, placement applied. With `ifMatch`, a record whose version changed is a 412.
 */
export const updateRecords = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  input: UpdateInput,
): Promise<RecordItem[]> => {
  // A record with formulas is written on the condition that nothing changed since it was read
  // (its formulas were computed from what was read); a concurrent write makes it read again.
  // So is a record of a table with view indexes: its index entries were worked out from it.
  const guarded = input.ifMatch === undefined && (schema.fields.some(isDerived) || hasViewIndexes(schema));
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateOnce(
        principal,
        located,
        schema,
        attempt === 1 ? input : { ...input, current: undefined },
        guarded,
      );
    } catch (error) {
      if (!guarded || !(error instanceof ConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
};

/** How often an update of records with formulas is tried when concurrent writes keep winning. */
const MAX_ATTEMPTS = 5;

const updateOnce = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  input: UpdateInput,
  versioned: boolean,
): Promise<RecordItem[]> => {
  if (input.records.length === 0) return [];
  assertBatchSize(input.records.length);
  const ids = input.records.map((r) => r.id);
  if (new Set(ids).size !== ids.length) throw new ValidationError('A record id appears twice in records');
  const tableId = located.id;
  // Converting (it may read the collaborators) and reading the records do not wait for each other.
  const [{ ctx, converted, fields }, before] = await allInOrder([
    convertWrite(principal, located, schema, input.records, input),
    input.current
      ? Promise.resolve().then(() => ensureFound(ids, input.current ?? []))
      : loadRecords(tableId, ids),
  ]);
  if (input.ifMatch !== undefined && before[0] && input.ifMatch !== etagOf(before[0]))
    throw new PreconditionFailedError(`Record ${ids[0]} changed since the ETag ${input.ifMatch}`);
  // notNull: a written cell may not clear a field that must hold a value.
  for (const cells of converted.changes)
    assertNotNull(
      fields.filter((f) => cells.has(f.id)),
      (id) => cells.get(id),
    );
  const {
    links,
    unique,
    own: [placed],
  } = await sharedWriteSteps(
    schema,
    fields,
    ids.map((id, i) => ({
      recordId: id,
      before: before[i],
      cells: converted.changes[i] as Map<string, unknown>,
      titles: converted.linkTitles[i],
    })),
    [
      placementSteps(schema, before, input.order, {
        created: false,
        nextAutoNumber: schema.table.autoNumber + 1,
      }),
    ],
  );
  // Computed cells of each record as it will be stored (written with its cells), and of the
  // records elsewhere that depend on what changed.
  const now = ctx.now.toISOString();
  const computed = await followComputed(
    schema,
    before.map((item, i) => {
      const cells = converted.changes[i] as CellChanges;
      return {
        item: withCells(item, cells, { lastModifiedTime: now }),
        original: item,
        changed: new Set(cells.keys()),
      };
    }),
    links,
    ctx.now,
  );
  before.forEach((item, i) => {
    for (const [fieldId, value] of computed.own.get(item.id) ?? []) converted.changes[i]?.set(fieldId, value);
  });
  // The record as it would be stored must fit: its other cells count too.
  before.forEach((item, i) => {
    const cells = converted.changes[i] as CellChanges;
    const stored = cellsOfItem(item);
    const after = new Map(stored);
    for (const [id, value] of cells) after.set(id, value);
    assertRecordFits(`Record ${item.id}`, after, (id) => fields.find((f) => f.id === id), {
      written: new Set(cells.keys()),
      bytesBefore: cellsBytes(stored),
    });
  });
  const user = userRefOf(principal);
  // what each record becomes, for the view indexes
  const moves = before.map((item, i): RecordMove => {
    const ord = placed.orderOf.get(item.id);
    const after = withCells(item, converted.changes[i] as CellChanges, { lastModifiedTime: now, mb: user });
    return { before: item, after: ord ? { ...after, ord: { ...item.ord, ...ord } } : after };
  });
  const steps: Step[] = [
    ...schemaChangeSteps(schema, converted.changedFields),
    ...before.flatMap((item, i): Step[] => {
      const cells = converted.changes[i] as CellChanges;
      const change = { cells, by: user, at: now, ord: placed.orderOf.get(item.id) };
      return withEntrySteps(
        schema,
        moves[i] as RecordMove,
        withJoined(placed, item.id, {
          op: updateCellsOp(tableId, item, change, input.ifMatch !== undefined || versioned),
          undo: putRecordOp(item),
        }),
      );
    }),
    ...placed.steps,
    ...groupCountSteps(schema, moves),
    ...unique,
    ...computed.steps,
    ...cellTagSteps(
      {
        schema,
        fields,
        baseId: located.baseId ?? schema.table.baseId,
        writer: { userId: principal.userId, userName: principal.name },
        records: before.map((item, i) => {
          const cells = converted.changes[i] as CellChanges;
          return { item: withCells(item, cells), before: item, cells };
        }),
      },
      ctx.now,
    ),
  ];
  const written = await commitSteps(tableId, steps, () =>
    input.ifMatch !== undefined
      ? new PreconditionFailedError(`Record ${ids[0]} changed since the ETag ${input.ifMatch}`)
      : new ConflictError('A concurrent change to the same records won; retry the request'),
  );
  // A one-record update that was one call answers the record as written; others read theirs back.
  const [only] = ids;
  const answered = ids.length === 1 && only && written ? recordWritten(written, tableId, only) : undefined;
  return answered ? [answered] : loadRecords(tableId, ids);
};
