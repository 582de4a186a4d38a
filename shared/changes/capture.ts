/**
 * From the table's change stream to change-log drafts (data-flow.md 1): one stream record — an
 * item before and after a write — becomes the changes a reader of the log sees. Pure: the stream
 * shell (the Lambda handler, the local poller) reads the stream and the facts; this decides.
 *
 * What becomes an entry:
 * - a record item (`type: record`): created, updated (cells that changed, before and after, by
 *   field id), deleted (its last non-empty cells). A write of the envelope alone (the record's
 *   place in a view's manual order, its version) changes no cell and gives no entry.
 * - a field, view or table item: created, updated, deleted. A table moved to the trash is
 *   `table.deleted`, one restored `table.created`; its counters (`autoNumber`, `schemaVersion`)
 *   and times alone are no change.
 * - every other item (order entries, indexes, counters, journals, claims, tokens…): nothing.
 *
 * How a write is told apart (the stamps the write path puts on the items it writes anyway, so
 * capture costs a request no item and no round trip):
 * - `tx` — the request id of the write: every entry of one request shares it as `txId`. An item
 *   written without a stamp (before stamps existed, or outside a request) gets the stream
 *   record's own id.
 * - `txp: true` — a record written by propagation only (the other side of a link, a lookup or
 *   rollup in another table): every change of it is `computed`.
 * - otherwise a record's changes to computed fields (formula, lookup, rollup, system fields:
 *   `facts.computedFields`) are a second entry with `computed: true`, beside the caller's.
 * - the actor: a record's last editor (`mb`), a table's `createdBy`/`deletedBy`, or the `by`
 *   stamp; `{id: "system"}` when none is known.
 * - the time (`occurredAt`): the write's own, to the millisecond, read off the item it wrote — a
 *   caller's record its `lastModifiedTime`, a record written by propagation alone and a table,
 *   field or view the `at` stamp (`writeTimeOf`). Where the item carries none (written outside a
 *   request, or before stamps had a time), or one older than the time it replaces (an undo that
 *   puts an item back as it was read), the stream record's time, which is rounded (to the minute
 *   by DynamoDB Local, to the second in the cloud). A removal's image is the item as it was, whose
 *   times are not the deletion's: its entry takes the deletion note's time when joined with it.
 *
 * A removal's stream record holds only the item as it was: who deleted a record, and in which
 * request, comes from the deletion note on the table's data version (`db/data-versions.ts`),
 * another stream record; the processor joins them (`entities/record-deletions.ts`, `attributed`).
 * Records of a table or base in the trash, removed when it is purged, give no entry: `table.deleted` said
 * they went.
 */
import type { ChangeActor, ChangeDraft, ChangeType } from '#shared/entities/change-log.ts';
import type { DeletionNote, Removal } from '#shared/entities/record-deletions.ts';
import { tableOfRecordItem } from '#shared/entities/records.ts';
import { schemaItemOf } from '#shared/entities/schema-items.ts';

/** One stream record, unmarshalled (the shells convert the stream's wire format). */
export interface StreamChange {
  /** The stream record's id: unique, the same when the record is handed over again. */
  eventId: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /**
   * When the write happened as the stream tells it (its approximate creation time, rounded: to
   * the minute by DynamoDB Local), ISO; an entry takes it only when the item carries no time of
   * the write (`writeTimeOf`).
   */
  at: string;
  oldImage?: Readonly<Record<string, unknown>>;
  newImage?: Readonly<Record<string, unknown>>;
}

/** What the shell knows of the item's table when it converts. */
export interface CaptureFacts {
  /** The base of the table the item belongs to; undefined when the table is gone for good. */
  baseId: string | undefined;
  /** The table's computed fields (formula, lookup, rollup, system fields). */
  computedFields: ReadonlySet<string>;
  /** The table is in the trash (its records' removals are its purge). */
  trashed?: boolean;
}

type Image = Readonly<Record<string, unknown>>;

/** The kind of item a stream record is about, and its table; undefined for items not captured. */
export const capturedItem = (
  change: StreamChange,
): { kind: 'record' | 'field' | 'view' | 'table'; tableId: string } | undefined => {
  const image = change.newImage ?? change.oldImage;
  if (!image) return undefined;
  const recordTable = tableOfRecordItem(image);
  if (recordTable !== undefined) return { kind: 'record', tableId: recordTable };
  return schemaItemOf(image);
};

const isFieldAttribute = (name: string) => name.startsWith('fld');

/** A record image's cells, by field id. */
const cellsOf = (image: Image | undefined): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  if (!image) return out;
  for (const [name, value] of Object.entries(image)) if (isFieldAttribute(name)) out[name] = value;
  return out;
};

/** Whether two stored values are the same (images are plain JSON-like data; sets compared as sorted lists). */
export const sameValue = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => {
    if (x instanceof Set) return [...x].sort();
    if (x && typeof x === 'object' && !Array.isArray(x))
      return Object.fromEntries(
        Object.entries(x as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : 1)),
      );
    return x;
  }) ?? 'undefined';

const actorOfUser = (ref: unknown): ChangeActor | undefined => {
  if (!ref || typeof ref !== 'object') return undefined;
  const r = ref as { id?: unknown; title?: unknown; name?: unknown };
  if (typeof r.id !== 'string' || r.id === '') return undefined;
  const name = typeof r.title === 'string' ? r.title : typeof r.name === 'string' ? r.name : undefined;
  return name ? { id: r.id, name } : { id: r.id };
};

const actorOfId = (id: unknown): ChangeActor | undefined =>
  typeof id === 'string' && id !== '' ? { id } : undefined;

const SYSTEM: ChangeActor = { id: 'system' };

const txOf = (change: StreamChange, image: Image | undefined): string =>
  typeof image?.tx === 'string' && image.tx !== '' ? image.tx : change.eventId;

/**
 * The time of a write, from the attribute of the item it wrote that holds it (`at`, or a record's
 * `lastModifiedTime`), to the millisecond. The stream's time where the new image has none, or one
 * older than the old image's (the write put back an item as it was read: an undo), since that
 * time is not this write's. Pure.
 */
const writeTimeOf = (change: StreamChange, attribute: 'at' | 'lastModifiedTime'): string => {
  const written = change.newImage?.[attribute];
  const replaced = change.oldImage?.[attribute];
  if (typeof written !== 'string' || written === '') return change.at;
  return typeof replaced === 'string' && written < replaced ? change.at : written;
};

/** The drafts of a record item's change. */
const recordDrafts = (change: StreamChange, tableId: string, facts: CaptureFacts & { baseId: string }) => {
  const before = cellsOf(change.oldImage);
  const after = cellsOf(change.newImage);
  const image = change.newImage ?? change.oldImage;
  const recordId = typeof image?.id === 'string' ? image.id : '';
  // the write's own time: a caller's write moves the record's edit time, a write by propagation
  // stamps `at` and leaves the edit time; a removal's is its deletion note's, once joined
  const occurredAt =
    change.kind === 'REMOVE'
      ? change.at
      : writeTimeOf(change, change.newImage?.txp === true ? 'at' : 'lastModifiedTime');
  const base = { baseId: facts.baseId, tableId, recordId, occurredAt };
  if (change.kind === 'INSERT')
    return [
      draft(change, 0, {
        ...base,
        type: 'record.created',
        actor: actorOfUser(change.newImage?.cb) ?? actorOfId(change.newImage?.by) ?? SYSTEM,
        txId: txOf(change, change.newImage),
        after,
      }),
    ];
  if (change.kind === 'REMOVE')
    return facts.trashed
      ? []
      : [
          // a removal carries only the item as it was: the processor joins it with its deletion
          // note (who, which request; `attributed`); until then, the system's, with its own txId
          draft(change, 0, {
            ...base,
            type: 'record.deleted',
            actor: SYSTEM,
            txId: change.eventId,
            before,
          }),
        ];
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (f) => !sameValue(before[f], after[f]),
  );
  if (!changed.length) return [];
  const propagated = change.newImage?.txp === true;
  const isComputed = (f: string) => propagated || facts.computedFields.has(f);
  // a propagated record's writer is the request's user (`by`), not the record's last editor
  const actor =
    (propagated ? actorOfId(change.newImage?.by) : undefined) ?? actorOfUser(change.newImage?.mb) ?? SYSTEM;
  const txId = txOf(change, change.newImage);
  const part = (fields: string[], computed: boolean, index: number) =>
    fields.length
      ? [
          draft(change, index, {
            ...base,
            type: 'record.updated',
            actor,
            txId,
            ...(computed ? { computed: true } : {}),
            before: pick(before, fields),
            after: pick(after, fields),
          }),
        ]
      : [];
  return [
    ...part(
      changed.filter((f) => !isComputed(f)),
      false,
      0,
    ),
    ...part(changed.filter(isComputed), true, 1),
  ];
};

/** The cells of `fields` that hold something (an empty cell is absent from an image). */
const pick = (cells: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (cells[f] !== undefined) out[f] = cells[f];
  return out;
};

const draft = (change: StreamChange, index: number, rest: Omit<ChangeDraft, 'sourceId'>): ChangeDraft => ({
  sourceId: `${change.eventId}#${index}`,
  ...rest,
});

/** Table attributes a reader cares about (counters and times move without a change of the table). */
const TABLE_ATTRIBUTES = ['name', 'description', 'icon', 'dbTableName', 'order'] as const;

/** The drafts of a field, view or table item's change. */
const schemaDrafts = (
  change: StreamChange,
  kind: 'field' | 'view' | 'table',
  tableId: string,
  baseId: string,
): ChangeDraft[] => {
  const oldImage = change.oldImage;
  const newImage = change.newImage;
  const image = newImage ?? oldImage;
  const txId = txOf(change, newImage ?? oldImage);
  // the write's `at` stamp; a removal: the deletion note's time once joined (a field or a view),
  // else the stream's (a table item removed without the trash, by a base's purge or the undo of
  // its create, carries no time of its removal)
  const occurredAt = change.kind === 'REMOVE' ? change.at : writeTimeOf(change, 'at');
  const common = { baseId, tableId, occurredAt, txId };
  const by = actorOfId(newImage?.by) ?? actorOfId(image?.lastModifiedBy);
  if (kind === 'table') {
    const trashedBefore = typeof oldImage?.deletedTime === 'string';
    const trashedAfter = typeof newImage?.deletedTime === 'string';
    let type: ChangeType | undefined;
    if (change.kind === 'INSERT') type = 'table.created';
    else if (change.kind === 'REMOVE') type = trashedBefore ? undefined : 'table.deleted';
    else if (!trashedBefore && trashedAfter) type = 'table.deleted';
    else if (trashedBefore && !trashedAfter) type = 'table.created';
    else if (TABLE_ATTRIBUTES.some((a) => !sameValue(oldImage?.[a], newImage?.[a]))) type = 'table.updated';
    if (!type) return [];
    const actor =
      (type === 'table.deleted' ? actorOfId(newImage?.deletedBy) : undefined) ??
      (type === 'table.created' && change.kind === 'INSERT' ? actorOfId(newImage?.createdBy) : undefined) ??
      by ??
      SYSTEM;
    return [draft(change, 0, { ...common, type, actor })];
  }
  const body = kind === 'field' ? 'field' : 'view';
  const before = oldImage?.[body] as Record<string, unknown> | undefined;
  const after = newImage?.[body] as Record<string, unknown> | undefined;
  const id = typeof (after ?? before)?.id === 'string' ? ((after ?? before)?.id as string) : '';
  const ids = kind === 'field' ? { fieldId: id } : { viewId: id };
  const type: ChangeType =
    change.kind === 'INSERT'
      ? `${kind}.created`
      : change.kind === 'REMOVE'
        ? `${kind}.deleted`
        : `${kind}.updated`;
  if (change.kind === 'MODIFY' && sameValue(before, after)) return [];
  return [
    draft(change, 0, {
      ...common,
      ...ids,
      type,
      actor: by ?? SYSTEM,
      ...(before && change.kind !== 'INSERT' ? { before } : {}),
      ...(after && change.kind !== 'REMOVE' ? { after } : {}),
    }),
  ];
};

/**
 * The change-log drafts of one stream record, in the order a reader should see them; [] for an
 * item that is not captured, a write that changed nothing a reader sees, or an item of a table
 * whose base is no longer known.
 */
export const draftsOf = (change: StreamChange, facts: CaptureFacts): ChangeDraft[] => {
  const item = capturedItem(change);
  if (!item || facts.baseId === undefined) return [];
  const baseId = facts.baseId;
  if (item.kind === 'record') return recordDrafts(change, item.tableId, { ...facts, baseId });
  // the fields and views of a table in the trash go when it is purged: `table.deleted` said so
  if (change.kind === 'REMOVE' && item.kind !== 'table' && facts.trashed) return [];
  return schemaDrafts(change, item.kind, item.tableId, baseId);
};

/** The id of what a deleted draft is about (its record, field or view). Pure. */
export const deletedItemId = (d: ChangeDraft): string => d.recordId ?? d.fieldId ?? d.viewId ?? '';

/** The removal a `….deleted` draft is joined by (`entities/record-deletions.ts`). Pure. */
export const removalOf = (d: ChangeDraft): Removal => ({
  sourceId: d.sourceId,
  type: d.type as Removal['type'],
  occurredAt: d.occurredAt,
  ...(d.before ? { before: d.before } : {}),
});

const ID_KEY = {
  'record.deleted': 'recordId',
  'field.deleted': 'fieldId',
  'view.deleted': 'viewId',
} as const;

/**
 * The `….deleted` draft of a removal, with what its deletion note says (the user, the request and
 * the time of the write); without a note (or a note without a time), the system's, with the
 * stream record's id as `txId` (and its time). Pure.
 */
export const attributed = (
  where: { baseId: string; tableId: string; itemId: string },
  removal: Removal,
  note: DeletionNote | undefined,
): ChangeDraft => ({
  sourceId: removal.sourceId,
  type: removal.type,
  baseId: where.baseId,
  tableId: where.tableId,
  [ID_KEY[removal.type]]: where.itemId,
  actor: actorOfId(note?.by) ?? SYSTEM,
  txId: note?.tx ?? removal.sourceId.replace(/#\d+$/, ''),
  occurredAt: note?.at ?? removal.occurredAt,
  ...(removal.before ? { before: removal.before } : {}),
  ...(removal.cellsOmitted ? { cellsOmitted: true } : {}),
});
