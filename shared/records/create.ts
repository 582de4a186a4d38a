import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError } from '#shared/core/errors.ts';
import {
  commitSteps,
  MAX_TRANSACTION_ITEMS,
  recoverInterrupted,
  type Step,
  type TransactOp,
} from '#shared/db/commit.ts';
import { recordCountOp } from '#shared/entities/record-counts.ts';
import {
  deleteRecordNumberOp,
  deleteRecordOp,
  newRecordItem,
  putRecordNumberOp,
  putRecordOp,
  type RecordItem,
} from '#shared/entities/records.ts';
import { newId } from '#shared/ids.ts';
import type { FieldKeyType, TableSchema } from '#shared/schema/schema.ts';
import { cellTagSteps } from './cell-tags.ts';
import { applyDefaults, assertNotNull, type CellChanges } from './cells.ts';
import { allocateAutoNumbers } from './context.ts';
import { convertWrite } from './convert-write.ts';
import { assertBatchSize, assertRecordFits } from './limits.ts';
import { followComputed, sharedWriteSteps } from './pipeline.ts';
import { type Placement, placementSteps } from './placement.ts';
import { schemaChangeSteps } from './schema-changes.ts';
import { groupCountSteps, withEntrySteps } from './view-indexes/upkeep.ts';

export { MAX_RECORDS_PER_CALL } from './limits.ts';

export interface CreateInput {
  records: { fields: Record<string, unknown> }[];
  fieldKeyType: FieldKeyType;
  typecast: boolean;
  order?: Placement;
  /** Leave empty cells empty instead of filling `defaultValue` (a duplicate copies cells as they are). */
  keepEmpty?: boolean;
  /** The ids of the new records, when the caller chose them (an upsert leases keys for them first). */
  ids?: readonly string[];
  /** More steps of the same write (an upsert's leases), committed with it or not at all. */
  alsoSteps?: readonly Step[];
  /** Operations that land with the write's end, exactly once (an import's progress; `commitSteps` `final`). */
  alsoFinal?: readonly TransactOp[];
}

/**
 * Creates records in request order: values converted per field type, defaults filled, `notNull`
 * and `unique` checked, links written on both sides, autoNumbers allocated, and each record placed
 * at the end of every view's manual order (or where `order` says). All or nothing.
 */
export const createRecords = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  input: CreateInput,
): Promise<RecordItem[]> => {
  if (input.records.length === 0) return [];
  assertBatchSize(input.records.length);
  const tableId = located.id;
  const { ctx, converted, fields } = await convertWrite(principal, located, schema, input.records, input);
  const cells = input.keepEmpty
    ? converted.changes
    : converted.changes.map((c) => applyDefaults(fields, c, ctx));
  for (const c of cells) assertNotNull(fields, (id) => c.get(id));
  const ids = input.ids ? [...input.ids] : cells.map(() => newId('record'));
  // A write this large goes through the journal: look for interrupted ones while numbers are
  // allocated (a write refused after that leaves a gap, as any failed write does).
  const large = ids.length * 2 > MAX_TRANSACTION_ITEMS;
  const {
    links,
    unique,
    own: [first],
  } = await sharedWriteSteps(
    schema,
    fields,
    ids.map((id, i) => ({
      recordId: id,
      before: undefined,
      cells: cells[i] as Map<string, unknown>,
      titles: converted.linkTitles[i],
    })),
    [allocateAutoNumbers(tableId, ids.length), large ? recoverInterrupted(tableId) : undefined],
  );
  const now = ctx.now.toISOString();
  const items = ids.map((id, i) =>
    newRecordItem(tableId, {
      id,
      autoNumber: first + i,
      cells: cells[i] as Map<string, never>,
      user: ctx.user,
      now,
    }),
  );
  // Computed cells of the new records (stored with them, counted in their size), and of the
  // records elsewhere that their links reach.
  const computed = await followComputed(
    schema,
    items.map((item, i) => ({
      item,
      original: undefined,
      changed: new Set((cells[i] as CellChanges).keys()),
    })),
    links,
    ctx.now,
  );
  items.forEach((item, i) => {
    for (const [fieldId, value] of computed.own.get(item.id) ?? []) cells[i]?.set(fieldId, value);
  });
  // Sizes once the cells are final: defaults filled, typecast done, self-link other sides joined.
  const fieldOf = (id: string) => fields.find((f) => f.id === id);
  cells.forEach((c, i) => {
    assertRecordFits(cells.length > 1 ? `Record ${i + 1} of the request` : 'The record', c, fieldOf);
  });
  const placed = await placementSteps(schema, items, input.order, {
    created: true,
    nextAutoNumber: first + ids.length,
  });
  const steps: Step[] = [
    ...schemaChangeSteps(schema, converted.changedFields),
    ...items.flatMap((item): Step[] => {
      const ord = placed.orderOf.get(item.id);
      // No existence condition: ids are 16 random base62 characters, so the put can be batched.
      const withOrder = { ...item, ...(ord ? { ord } : {}) };
      return [
        ...withEntrySteps(schema, { after: withOrder }, [
          { op: putRecordOp(withOrder), undo: deleteRecordOp(tableId, item.id, 'unguarded') },
        ]),
        {
          op: putRecordNumberOp(tableId, item.autoNumber, item.id, ord),
          undo: deleteRecordNumberOp(tableId, item.autoNumber),
        },
      ];
    }),
    ...placed.steps,
    ...groupCountSteps(
      schema,
      items.map((item) => {
        const ord = placed.orderOf.get(item.id);
        return { after: ord ? { ...item, ord } : item };
      }),
    ),
    ...unique,
    ...(input.alsoSteps ?? []),
    ...computed.steps,
    ...cellTagSteps(
      {
        schema,
        fields,
        baseId: located.baseId ?? schema.table.baseId,
        writer: { userId: principal.userId, userName: principal.name },
        records: items.map((item, i) => ({ item, cells: cells[i] as Map<string, unknown> })),
      },
      ctx.now,
    ),
  ];
  await commitSteps(
    tableId,
    steps,
    () => new ConflictError('A concurrent change to the same table won; retry the request'),
    large,
    [recordCountOp(tableId, items.length), ...(input.alsoFinal ?? [])],
  );
  return items.map((item) => ({
    ...item,
    ...(placed.orderOf.get(item.id) ? { ord: placed.orderOf.get(item.id) } : {}),
  }));
};
