/**
 * Deletions the change-log capture is joining (`DELJ#<bse>` `<tbl>#<id>`, data-flow.md 1): of
 * records, fields and views. A removal reaches the stream processor with the item as it was and
 * nothing about who removed it; the deletion note, written in the same transaction (for records
 * on the table's data version, `db/data-versions.ts` `DELETION_NOTE`; for fields and views on the
 * table item, `SCHEMA_DELETION_NOTE`), says who and in which request. The two come as different
 * stream records, on different shards in the cloud, in either order. Each half is written with
 * one update that answers the item as it now is: whichever half is written second finds the
 * other, and the `….deleted` entry is written with both; the item is then removed. A removal
 * no note joins (a write that deleted records without one: the undo of an interrupted write) is
 * written alone, with the system actor, once it has waited `NOTE_GRACE_MS`. TTL: a day.
 */
import { ConflictError } from '#shared/core/errors.ts';
import { deleteItems, type Item, queryRange, updateItem } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { isMap, optionalText, text } from './attributes.ts';

/** What a removal becomes in the log. */
export const DELETED_TYPES = ['record.deleted', 'field.deleted', 'view.deleted'] as const;
export type DeletedType = (typeof DELETED_TYPES)[number];

/** The removal of a record, field or view, as its stream record gave it. */
export interface Removal {
  /** The stream record's source id: the entry's, whichever half completes the join. */
  sourceId: string;
  type: DeletedType;
  /**
   * When the record was removed as the stream record tells it (rounded: to the minute by DynamoDB
   * Local), ISO: how long it has waited for its note; the entry takes the note's time when it has one.
   */
  occurredAt: string;
  /** The record's last cells (the field or view as it was); absent with `cellsOmitted` when too large. */
  before?: Record<string, unknown>;
  cellsOmitted?: true;
}

/** Who deleted it, in which request, and when (the time of the write; any may be unknown). */
export interface DeletionNote {
  tx?: string;
  by?: string;
  at?: string;
}

/** A deletion, either half of it. */
export interface Deletion {
  tableId: string;
  /** The record's, field's or view's id. */
  itemId: string;
  removal?: Removal;
  note?: DeletionNote;
}

/** How long a removal waits for its note before it is written with the system actor. */
export const NOTE_GRACE_MS = 60_000;
const TTL_SECONDS = 86_400;
/** Cells a removal keeps at most (JSON characters; an item holds 400 KB). */
const MAX_CELLS = 300_000;

/** The deletion stored in an item. Pure. */
export const deletionOf = (item: Item): Deletion => {
  const r = isMap(item.removal) ? item.removal : undefined;
  const n = isMap(item.note) ? item.note : undefined;
  const tx = optionalText(n?.tx);
  const by = optionalText(n?.by);
  const at = optionalText(n?.at);
  return {
    tableId: text(item.tableId),
    itemId: text(item.itemId),
    ...(r
      ? {
          removal: {
            sourceId: text(r.sourceId),
            type: DELETED_TYPES.includes(r.type as DeletedType) ? (r.type as DeletedType) : 'record.deleted',
            occurredAt: text(r.occurredAt),
            ...(isMap(r.before) ? { before: r.before } : {}),
            ...(r.cellsOmitted === true ? { cellsOmitted: true as const } : {}),
          },
        }
      : {}),
    ...(n
      ? {
          note: {
            ...(tx === undefined ? {} : { tx }),
            ...(by === undefined ? {} : { by }),
            ...(at === undefined ? {} : { at }),
          },
        }
      : {}),
  };
};

const writeHalf = async (
  baseId: string,
  tableId: string,
  itemId: string,
  half: { removal: Removal } | { note: DeletionNote },
  now: Date,
): Promise<Deletion> => {
  const [name, value] = Object.entries(half)[0] as [string, unknown];
  const item = await updateItem(
    {
      key: keys.recordDeletion(baseId, tableId, itemId),
      update: 'SET #h = :h, #t = :t, tableId = :tbl, itemId = :id, expiresAt = :e',
      names: { '#h': name, '#t': 'type' },
      values: {
        ':h': value,
        ':t': 'recordDeletion',
        ':tbl': tableId,
        ':id': itemId,
        ':e': Math.floor(now.getTime() / 1000) + TTL_SECONDS,
      },
    },
    () => new ConflictError('unconditional'),
  );
  return deletionOf(item);
};

/** Writes a removal; answers the note when it was there already. */
export const noteRemoval = async (
  baseId: string,
  tableId: string,
  itemId: string,
  removal: Removal,
  now = new Date(),
): Promise<DeletionNote | undefined> => {
  const fits = !removal.before || JSON.stringify(removal.before).length <= MAX_CELLS;
  const { before, ...rest } = removal;
  const kept: Removal = fits ? removal : { ...rest, cellsOmitted: true };
  return (await writeHalf(baseId, tableId, itemId, { removal: kept }, now)).note;
};

/** Writes a deletion note; answers the removal when it was there already. */
export const noteDeletion = async (
  baseId: string,
  tableId: string,
  itemId: string,
  note: DeletionNote,
  now = new Date(),
): Promise<Removal | undefined> => (await writeHalf(baseId, tableId, itemId, { note }, now)).removal;

/** Removes joined deletions (best effort: TTL removes what stays). */
export const forgetDeletions = async (
  baseId: string,
  done: readonly Pick<Deletion, 'tableId' | 'itemId'>[],
): Promise<void> => {
  if (!done.length) return;
  await deleteItems(done.map((d) => keys.recordDeletion(baseId, d.tableId, d.itemId))).catch(() => undefined);
};

/** Removals of a base that have waited for their note since before `before` (ISO), up to `limit`. */
export const removalsWaiting = async (baseId: string, before: string, limit = 100): Promise<Deletion[]> => {
  const items = await queryRange({
    pk: keys.recordDeletionsOf(baseId).pk,
    limit,
    filter: {
      expression: 'attribute_exists(#r) AND attribute_not_exists(#n) AND #r.#o < :at',
      names: { '#r': 'removal', '#n': 'note', '#o': 'occurredAt' },
      values: { ':at': before },
    },
  });
  return items.map(deletionOf);
};
