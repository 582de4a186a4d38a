import type { TransactOp } from '#shared/db/client.ts';
import type { Step } from '#shared/db/commit.ts';
import { keyOfItem } from '#shared/db/keys.ts';
import { type NewNotification, notificationOps } from '#shared/entities/notifications.ts';
import type { RecordItem } from '#shared/entities/records.ts';
import type { Field, UserRef } from '#shared/fields/field-types.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { NO_LINKS, recordName } from './model.ts';

/**
 * `collaboratorCellTag` notifications: a user written into a user cell of a field whose
 * `shouldNotify` is on, who was not in that cell before, hears of it. Decisions:
 * - One notification per user per write (the contract's words): a user tagged in one record gets a
 *   `collaboratorCellTag` naming the table and the record (url `/base/<bse>/<tbl>?recordId=<rec>`);
 *   tagged in several records of one batch, one `collaboratorMultiRowTag` naming the table and
 *   how many records (url `/base/<bse>/<tbl>`). A batch of 1000 records thus writes at most one
 *   notification per collaborator, and each recipient's counter appears once in the write.
 * - The writer is never notified about themselves.
 * - Create and duplicate count every cell the new record holds (defaults and copies included);
 *   update counts only the written cells, against the record as it was read before the write.
 * The notification items and counter updates are steps of the record write's own commit: they
 * appear with the records or not at all, and the unread counters stay exact.
 */

/** The user ids of a user cell (single or multiple). Pure. */
export const userIdsOf = (value: unknown): string[] => {
  const refs = Array.isArray(value) ? value : value ? [value] : [];
  return refs
    .map((r) => (r && typeof r === 'object' ? (r as Partial<UserRef>).id : undefined))
    .filter((id): id is string => typeof id === 'string');
};

export interface TaggedWrite {
  /** The record as it is after the write (names it). */
  item: RecordItem;
  /** The record before the write; absent for a new record. */
  before?: RecordItem;
  /** The cells written, by field id (undefined clears). */
  cells: ReadonlyMap<string, unknown>;
}

export interface CellTagInput {
  schema: TableSchema;
  /** The table's fields as they are after the write. */
  fields: readonly Field[];
  baseId: string;
  writer: { userId: string; userName: string };
  records: readonly TaggedWrite[];
}

/** For each user newly tagged (not the writer): the records and field names, in write order. Pure. */
export const newlyTagged = (
  input: CellTagInput,
): Map<string, { records: RecordItem[]; fieldNames: string[] }> => {
  const fields = input.fields.filter((f) => f.type === 'user' && f.options.shouldNotify === true);
  const tagged = new Map<string, { records: RecordItem[]; fieldNames: string[] }>();
  if (fields.length === 0) return tagged;
  for (const write of input.records) {
    for (const field of fields) {
      if (!write.cells.has(field.id)) continue;
      const had = new Set(userIdsOf(write.before?.[field.id]));
      for (const userId of userIdsOf(write.cells.get(field.id))) {
        if (had.has(userId) || userId === input.writer.userId) continue;
        const entry = tagged.get(userId) ?? { records: [], fieldNames: [] };
        if (!entry.records.includes(write.item)) entry.records.push(write.item);
        if (!entry.fieldNames.includes(field.name)) entry.fieldNames.push(field.name);
        tagged.set(userId, entry);
      }
    }
  }
  return tagged;
};

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** The notifications of a record write. Pure. */
export const cellTagNotifications = (input: CellTagInput): NewNotification[] => {
  const tableId = input.schema.table.id;
  const tableName = input.schema.table.name;
  const from = { userId: input.writer.userId, userName: input.writer.userName };
  return [...newlyTagged(input)].map(([userId, { records, fieldNames }]): NewNotification => {
    const [only] = records;
    if (records.length === 1 && only) {
      const name = recordName(only, input.schema, NO_LINKS) || 'Unnamed record';
      return {
        userId,
        notifyType: 'collaboratorCellTag',
        message: `${from.userName} added you to ${quoted(fieldNames)} in the record "${name}" of the table "${tableName}"`,
        url: `/base/${input.baseId}/${tableId}?recordId=${only.id}`,
        from,
      };
    }
    return {
      userId,
      notifyType: 'collaboratorMultiRowTag',
      message: `${from.userName} added you to ${quoted(fieldNames)} in ${records.length} records of the table "${tableName}"`,
      url: `/base/${input.baseId}/${tableId}`,
      from,
    };
  });
};

/** The commit steps that write a notification and count it, each with its undo. Pure. */
export const notificationSteps = (notification: NewNotification, now: Date): Step[] =>
  notificationOps(notification, now).map((op): Step => {
    if ('put' in op) return { op, undo: { delete: keyOfItem(op.put) } };
    if ('update' in op) {
      const values = op.update.values ?? {};
      const undo: TransactOp = {
        update: { ...op.update, values: { ...values, ':d': -Number(values[':d']) } },
      };
      return { op, undo };
    }
    throw new Error('unexpected notification operation');
  });

/** The steps of every cell-tag notification of a record write. Pure. */
export const cellTagSteps = (input: CellTagInput, now: Date): Step[] =>
  cellTagNotifications(input).flatMap((n) => notificationSteps(n, now));
